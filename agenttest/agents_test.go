package agenttest_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/protocol"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The assistants the kit's tests run: a scripted greeter, as the README's,
// and a model-driven planner that may ask the user itself.

type greeting struct {
	Name string `json:"name" title:"Your name" min:"1" max:"40"`
}

var (
	greetingForm = elicit.Form[greeting]()
	outside      = agents.New("outside", "Looks outside.")
	weatherRuns  atomic.Int32 // how often weather really ran, for the replay tests
	weather      = agents.NewTool(outside, "weather", "Today's weather in a city",
		func(ctx context.Context, city string) (string, error) {
			weatherRuns.Add(1)
			return "sunny in " + city, nil
		})
)

var greeter = agents.Assistant{Name: "greeter", Turn: func(ctx context.Context, message string) (string, error) {
	who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
	if err != nil {
		return "", err
	}
	if who.Action != elicit.Accept {
		return "Hello, stranger.", nil
	}
	if err := turn.Notify(ctx, "Looking outside", 0.5); err != nil {
		return "", err
	}
	sky, err := weather.Call(ctx, "Lisbon")
	if err != nil {
		return "", err
	}
	out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.User, Content: fmt.Sprintf("Greet %s; it is %s.", who.Content.Name, sky)}}})
	if err != nil {
		return "", err
	}
	turn.Log(ctx, slog.LevelInfo, "greeted", "name", who.Content.Name)
	return out.Content, nil
}}

var planner = agents.Assistant{Name: "planner", Turn: agents.Loop{
	System:  "You plan trips.",
	Agents:  []*agents.Agent{outside},
	AskUser: true,
}.Turn}

// twoAtOnce asks two questions at once (turn.Together): they reach the
// user in either order.
var twoAtOnce = agents.Assistant{Name: "two", Turn: func(ctx context.Context, message string) (string, error) {
	var mu sync.Mutex
	var got []string
	ask := func(q string) func(context.Context) error {
		return func(ctx context.Context) error {
			res, err := turn.Ask(ctx, elicit.Confirm, q, elicit.ConfirmInput{})
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%s %v", q, res.Content.Yes))
			return err
		}
	}
	if err := turn.Together(ctx, ask("Tea?"), ask("Cake?")); err != nil {
		return "", err
	}
	return fmt.Sprint(len(got), " answers"), nil
}}

// fakeT is a test that records its failures instead of failing, so that
// a test can check that the kit fails one, and how. Fatalf does not end
// the goroutine: the kit returns after it.
type fakeT struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func newFakeT(t *testing.T) *fakeT { return &fakeT{TB: t} }

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *fakeT) Fatalf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *fakeT) Error(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *fakeT) Fatal(args ...any)                 { f.fail(fmt.Sprint(args...)) }

func (f *fakeT) fail(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, msg)
}

// failed returns every failure recorded, joined.
func (f *fakeT) failed() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.failures, "\n")
}

// host looks outside and has the model say so before it asks the user's
// name: a restart while it asks must not do either again.
var host = agents.Assistant{Name: "host", Turn: func(ctx context.Context, message string) (string, error) {
	sky, err := weather.Call(ctx, "Lisbon")
	if err != nil {
		return "", err
	}
	out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Say that it is " + sky}}})
	if err != nil {
		return "", err
	}
	who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
	if err != nil {
		return "", err
	}
	if who.Action != elicit.Accept {
		return out.Content, nil
	}
	return out.Content + ", " + who.Content.Name + "!", nil
}}

// twoPoems has the model write two poems at once: the calls reach the
// model in either order.
var twoPoems = agents.Assistant{Name: "poems", Turn: func(ctx context.Context, message string) (string, error) {
	poems := make([]string, 2)
	write := func(i int, about string) func(context.Context) error {
		return func(ctx context.Context) error {
			out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "A poem about " + about}}})
			poems[i] = out.Content
			return err
		}
	}
	if err := turn.Together(ctx, write(0, "the hills"), write(1, "the sea")); err != nil {
		return "", err
	}
	return strings.Join(poems, " / "), nil
}}

// notes keeps notes: a tool that writes, whose calls the user approves
// first under the default policy.
var (
	notes       = agents.New("notes", "Keeps notes.")
	notesKept   atomic.Int32 // how often remember really ran
	rememberNew = agents.NewTool(notes, "remember", "Keeps a note for later",
		func(ctx context.Context, text string) (string, error) {
			notesKept.Add(1)
			return "noted: " + text, nil
		}).Does(policy.Writes)
)

// keeper calls remember with the message and, as authors do, turns the
// tool's error into a friendly reply.
var keeper = agents.Assistant{Name: "keeper", Turn: func(ctx context.Context, message string) (string, error) {
	out, err := rememberNew.Call(ctx, message)
	if err != nil {
		return "I could not add it: " + err.Error(), nil
	}
	return "Done, " + out + ".", nil
}}

// A scanner calls a method a frontend implements (package protocol) and
// says how it ended and what progress it heard.
type (
	scanArgs struct {
		Code string `json:"code" enum:"qr,barcode"`
	}
	scanProgress struct {
		Status string `json:"status" enum:"aiming,reading"`
	}
	scanned struct {
		Text string `json:"text" min:"1"`
	}
)

var scan = protocol.Declare[scanArgs, scanProgress, scanned]("scan-code", "Scan a code with the camera")

var scanner = agents.Assistant{Name: "scanner", Turn: func(ctx context.Context, message string) (string, error) {
	var heard []string
	out, err := protocol.Invoke(ctx, scan, "Point your camera at the code.", scanArgs{Code: "qr"},
		func(p scanProgress) { heard = append(heard, p.Status) })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %q after %v", out.Status, out.Result.Text, heard), nil
}}

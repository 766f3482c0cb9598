package eventstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// paced is a model the test drives: each call takes the next call the test
// hands it, streams each chunk the test sends on it as it comes, and
// answers when the test closes the chunks. Its answer's text is the chunks
// joined, unless the call says otherwise.
type paced struct {
	calls chan pacedCall
}

type pacedCall struct {
	chunks chan string
	resp   llm.Response
	err    error
}

func newPaced() *paced { return &paced{calls: make(chan pacedCall, 16)} }

func (*paced) Name() string { return "paced" }

func (m *paced) Complete(ctx context.Context, _ llm.Request, onDelta func(string)) (llm.Response, error) {
	var call pacedCall
	select {
	case call = <-m.calls:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	var text strings.Builder
	for {
		select {
		case s, ok := <-call.chunks:
			if !ok {
				if call.err != nil {
					return llm.Response{}, call.err
				}
				resp := call.resp
				if resp.Content == "" {
					resp.Content = text.String()
				}
				return resp, nil
			}
			text.WriteString(s)
			if onDelta != nil {
				onDelta(s)
			}
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
	}
}

// stream starts the next model call; the test sends its chunks and closes
// the channel to end it.
func (m *paced) stream(resp llm.Response) chan<- string {
	ch := make(chan string)
	m.calls <- pacedCall{chunks: ch, resp: resp}
	return ch
}

// answer makes the next model call answer at once with chunks.
func (m *paced) answer(usage llm.Usage, chunks ...string) {
	ch := make(chan string, len(chunks))
	for _, c := range chunks {
		ch <- c
	}
	close(ch)
	m.calls <- pacedCall{chunks: ch, resp: llm.Response{Usage: usage}}
}

// fail makes the next model call fail.
func (m *paced) fail(err error) {
	ch := make(chan string)
	close(ch)
	m.calls <- pacedCall{chunks: ch, err: err}
}

type city struct {
	City string `json:"city" title:"City"`
}

type sky struct {
	Sky string `json:"sky"`
}

var (
	cityForm = elicit.Form[city]()
	weather  = agents.New("weather", "Tells the weather.")
	forecast = agents.NewTool(weather, "forecast", "The sky over a city", func(_ context.Context, in city) (sky, error) {
		return sky{Sky: "clear over " + in.City}, nil
	})
)

// eventsAssistants are the assistants of these tests: forecaster asks for
// a city, reports progress, calls a tool and has the model reply; echo has
// the model reply; rewriter streams a model call, then replies in words of
// its own; booker's tool call asks for approval; locator calls a method
// (protocol_test.go).
func eventsAssistants() *registry.Assistants {
	forecaster := agents.Assistant{Name: "forecaster", Turn: func(ctx context.Context, msg string) (string, error) {
		res, err := turn.Ask(ctx, cityForm, "Which city?", struct{}{})
		if err != nil {
			return "", err
		}
		if err := turn.Notify(ctx, "Looking at the sky", 0.5); err != nil {
			return "", err
		}
		out, err := forecast.Call(ctx, res.Content)
		if err != nil {
			return "", err
		}
		resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg + ": " + out.Sky}}})
		return resp.Content, err
	}}
	echo := agents.Assistant{Name: "echo", Turn: func(ctx context.Context, msg string) (string, error) {
		resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		return resp.Content, err
	}}
	rewriter := agents.Assistant{Name: "rewriter", Turn: func(ctx context.Context, msg string) (string, error) {
		first, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		if err != nil {
			return "", err
		}
		second, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: first.Content}}})
		if err != nil {
			return "", err
		}
		return "In short: " + second.Content, nil
	}}
	return registry.New(echo, forecaster, rewriter, booker(), locator())
}

func newEventsService(t *testing.T) (*chat.Service, *paced) {
	t.Helper()
	m := newPaced()
	svc := newServiceWith(t, chat.Config{Assistants: eventsAssistants(), Model: m, DecideByRule: true, Kinds: kindset.New(append(elicit.BuiltinKinds(), getSpot)...)})
	return svc, m
}

// follower reads one event stream.
type follower struct {
	t    *testing.T
	es   *eventstream.Stream
	buf  []eventstream.Event // read from the stream, not yet returned
	seen []eventstream.Event // returned, in order
}

func follow(t *testing.T, svc *chat.Service, session, conv, lastID string) *follower {
	t.Helper()
	es, err := eventstream.Open(t.Context(), svc, session, conv, lastID)
	if err != nil {
		t.Fatalf("open the event stream after %q: %v", lastID, err)
	}
	t.Cleanup(es.Close)
	return &follower{t: t, es: es}
}

// until reads events until one satisfies cond and returns them, that one
// included; events read past it are kept for the next call.
func (f *follower) until(what string, cond func(eventstream.Event) bool) []eventstream.Event {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.t.Context(), 10*time.Second)
	defer cancel()
	for checked := 0; ; {
		for ; checked < len(f.buf); checked++ {
			if cond(f.buf[checked]) {
				out := f.buf[: checked+1 : checked+1]
				f.buf = f.buf[checked+1:]
				f.seen = append(f.seen, out...)
				return out
			}
		}
		evs, err := f.es.Next(ctx)
		if err != nil {
			f.t.Fatalf("waiting for %s: %v; events so far:%s", what, err, describe(append(f.seen, f.buf...)))
		}
		f.buf = append(f.buf, evs...)
	}
}

// take returns exactly n more events.
func (f *follower) take(n int) []eventstream.Event {
	f.t.Helper()
	var out []eventstream.Event
	for len(out) < n {
		out = append(out, f.until(fmt.Sprintf("event %d of %d", len(out)+1, n), func(eventstream.Event) bool { return true })...)
	}
	return out
}

func describe(evs []eventstream.Event) string {
	var b strings.Builder
	for _, e := range evs {
		d, _ := json.Marshal(e.Data)
		fmt.Fprintf(&b, "\n  %s %s %s", e.ID, e.Type, d)
	}
	return b.String()
}

// runOf returns the run an event belongs to.
func runOf(e eventstream.Event) int64 {
	switch d := e.Data.(type) {
	case eventstream.RunStarted:
		return d.Run
	case eventstream.TokenDelta:
		return d.Run
	case eventstream.ToolCall:
		return d.Run
	case eventstream.ToolResult:
		return d.Run
	case eventstream.ElicitAsked:
		return d.Run
	case eventstream.ElicitAnswered:
		return d.Run
	case eventstream.ProgressEvent:
		return d.Run
	case eventstream.RunCompleted:
		return d.Run
	}
	return -1
}

func last(evs []eventstream.Event) eventstream.Event { return evs[len(evs)-1] }

func is(typ string) func(eventstream.Event) bool {
	return func(e eventstream.Event) bool { return e.Type == typ }
}

func types(evs []eventstream.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// reply applies a run's deltas as a client does: each at its offset.
func reply(t *testing.T, evs []eventstream.Event, run int64) string {
	t.Helper()
	var text string
	for _, e := range evs {
		if d, ok := e.Data.(eventstream.TokenDelta); ok && d.Run == run {
			if d.Offset > len(text) {
				t.Fatalf("a delta at %d past the %d bytes held: %s", d.Offset, len(text), describe(evs))
			}
			text = text[:d.Offset] + d.Text
		}
	}
	return text
}

// joined is a run's deltas joined, as a client that ignores offsets has it.
func joined(evs []eventstream.Event, run int64) string {
	var b strings.Builder
	for _, e := range evs {
		if d, ok := e.Data.(eventstream.TokenDelta); ok && d.Run == run {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func startConv(t *testing.T, svc *chat.Service, session, agent string) string {
	t.Helper()
	conv, err := svc.Create(t.Context(), session, agent)
	if err != nil {
		t.Fatal(err)
	}
	return conv.ID
}

func send(t *testing.T, svc *chat.Service, session, conv, text string) {
	t.Helper()
	if err := svc.Send(t.Context(), session, conv, text); err != nil {
		t.Fatal(err)
	}
}

// A run told event by event: the message, the question and its answer,
// progress, the tool's call and result, the reply as it streams, and the
// end with the tokens used.
func TestTheEventStreamTellsARunEventByEvent(t *testing.T) {
	svc, model := newEventsService(t)
	conv := startConv(t, svc, "me", "forecaster")
	f := follow(t, svc, "me", conv, "")
	send(t, svc, "me", conv, "weather please")

	asked := f.until("the question", is(eventstream.EventElicitAsked))
	if got := types(asked); !reflect.DeepEqual(got, []string{eventstream.EventRunStarted, eventstream.EventElicitAsked}) {
		t.Fatalf("events %v, want the run's start and its question:%s", got, describe(asked))
	}
	started := asked[0].Data.(eventstream.RunStarted)
	run := started.Run
	if started.Text != "weather please" || started.Node != run || started.Aside {
		t.Fatalf("run.started = %+v, want the message, its node the run", started)
	}
	q := asked[1].Data.(eventstream.ElicitAsked)
	if q.Run != run || q.Elicit == "" || q.Request.ID != q.Elicit || q.Request.Message != "Which city?" {
		t.Fatalf("elicit.asked = %+v", q)
	}
	if err := svc.Answer(t.Context(), "me", conv, q.Elicit, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"city":"Oslo"}`)}); err != nil {
		t.Fatal(err)
	}
	// The tool's events come as it finishes, before the model is called.
	f.until("the tool's result", is(eventstream.EventToolResult))

	chunks := model.stream(llm.Response{Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 4}})
	chunks <- "It is "
	f.until("the first words", is(eventstream.EventTokenDelta))
	chunks <- "clear."
	f.until("the next words", func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.TokenDelta)
		return ok && strings.HasSuffix(d.Text, "clear.")
	})
	close(chunks)
	f.until("the run's end", is(eventstream.EventRunCompleted))

	all := f.seen
	want := []string{eventstream.EventRunStarted, eventstream.EventElicitAsked, eventstream.EventElicitAnswered, eventstream.EventProgress, eventstream.EventToolCall, eventstream.EventToolResult}
	if got := types(all); !reflect.DeepEqual(got[:len(want)], want) {
		t.Fatalf("events %v, want %v first:%s", got, want, describe(all))
	}
	a := all[2].Data.(eventstream.ElicitAnswered)
	if a.Elicit != q.Elicit || a.Response.Action != elicit.Accept || string(a.Response.Content) != `{"city":"Oslo"}` {
		t.Errorf("elicit.answered = %+v", a)
	}
	if p := all[3].Data.(eventstream.ProgressEvent); p.Message != "Looking at the sky" || p.Fraction != 0.5 {
		t.Errorf("progress = %+v", p)
	}
	call, res := all[4].Data.(eventstream.ToolCall), all[5].Data.(eventstream.ToolResult)
	if call.Agent != "weather" || call.Tool != "forecast" || string(call.Input) != `{"city":"Oslo"}` || call.Call == "" {
		t.Errorf("tool.call = %+v", call)
	}
	if res.Call != call.Call || res.Node != call.Node || string(res.Output) != `{"sky":"clear over Oslo"}` || res.Error != "" {
		t.Errorf("tool.result = %+v", res)
	}
	if all[4].ID == all[5].ID {
		t.Errorf("tool.call and tool.result share the id %s: a client dropped between them could not resume", all[4].ID)
	}
	done := all[len(all)-1].Data.(eventstream.RunCompleted)
	if done.Status != tree.OutcomeReplied || done.Text != "It is clear." || done.Run != run {
		t.Errorf("run.completed = %+v", done)
	}
	if done.Usage != (eventstream.Usage{TokensIn: 12, TokensOut: 4, ModelCalls: 1}) {
		t.Errorf("usage = %+v, want the model call's", done.Usage)
	}
	for _, e := range all[6 : len(all)-1] {
		if e.Type != eventstream.EventTokenDelta {
			t.Fatalf("between the tool and the end only deltas, got:%s", describe(all))
		}
	}
	if got := joined(all, run); got != done.Text {
		t.Errorf("deltas joined = %q, want the reply %q:%s", got, done.Text, describe(all))
	}
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e.ID] {
			t.Errorf("id %s given twice:%s", e.ID, describe(all))
		}
		seen[e.ID] = true
		if r := runOf(e); r != run {
			t.Errorf("%s belongs to run %d, want %d", e.Type, r, run)
		}
	}
}

// recordedRuns records three runs of the forecaster (a question,
// progress, a tool, a model call): one replied, one stopped while its reply
// streamed, one whose model call failed. It returns the conversation.
func recordedRuns(t *testing.T, svc *chat.Service, model *paced) string {
	t.Helper()
	conv := startConv(t, svc, "me", "forecaster")
	f := follow(t, svc, "me", conv, "")
	send(t, svc, "me", conv, "weather please")
	q := last(f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked)
	model.answer(llm.Usage{PromptTokens: 7, CompletionTokens: 2}, "Clear ", "skies.")
	if err := svc.Answer(t.Context(), "me", conv, q.Elicit, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"city":"Oslo"}`)}); err != nil {
		t.Fatal(err)
	}
	f.until("the first run's end", is(eventstream.EventRunCompleted))

	send(t, svc, "me", conv, "and tomorrow?")
	if err := svc.Answer(t.Context(), "me", conv, last(f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked).Elicit,
		chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"city":"Riga"}`)}); err != nil {
		t.Fatal(err)
	}
	chunks := model.stream(llm.Response{})
	chunks <- "Rain, "
	f.until("the stopped run's words", is(eventstream.EventTokenDelta))
	if err := svc.Stop(t.Context(), "me", conv); err != nil {
		t.Fatal(err)
	}
	f.until("the stopped run's end", is(eventstream.EventRunCompleted))

	send(t, svc, "me", conv, "and the day after?")
	model.fail(&llm.Error{Provider: "paced", Status: 500, Message: "the model broke", Retryable: true})
	if err := svc.Answer(t.Context(), "me", conv, last(f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked).Elicit,
		chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"city":"Kyiv"}`)}); err != nil {
		t.Fatal(err)
	}
	f.until("the failed run's end", is(eventstream.EventRunCompleted))
	return conv
}

// From the id of any event, the stream goes on with exactly the events
// that followed it: every id of a recorded conversation is tried, the
// second of a tool call's two events and the reply sent whole included.
func TestResumingFromAnyEventMissesNothingAndRepeatsNothing(t *testing.T) {
	svc, model := newEventsService(t)
	conv := recordedRuns(t, svc, model)

	whole := follow(t, svc, "me", conv, "")
	var all []eventstream.Event
	var statuses []tree.Outcome
	for range 3 {
		all = append(all, whole.until("a run's end", is(eventstream.EventRunCompleted))...)
		statuses = append(statuses, last(all).Data.(eventstream.RunCompleted).Status)
	}
	if !reflect.DeepEqual(statuses, []tree.Outcome{tree.OutcomeReplied, tree.OutcomeStopped, tree.OutcomeFailed}) {
		t.Fatalf("runs ended %v, want replied, stopped, failed:%s", statuses, describe(all))
	}
	failed := last(all).Data.(eventstream.RunCompleted)
	if !strings.Contains(failed.Details, "the model broke") || failed.Usage.ModelCalls != 1 {
		t.Errorf("the failed run = %+v, want the model's words in its details and its one call counted", failed)
	}
	first := all[:slicesIndex(all, is(eventstream.EventRunCompleted))+1]
	if got := reply(t, first, runOf(first[0])); got != "Clear skies." || joined(first, runOf(first[0])) != got {
		t.Errorf("the replied run read from the record: deltas give %q, want the reply:%s", got, describe(first))
	}

	for i, e := range all {
		rest := all[i+1:]
		if len(rest) == 0 {
			break
		}
		r := follow(t, svc, "me", conv, e.ID)
		got := r.take(len(rest))
		r.es.Close()
		if !reflect.DeepEqual(got, rest) {
			t.Fatalf("after %s (%s) the stream sent:%s\nwant:%s", e.ID, e.Type, describe(got), describe(rest))
		}
	}

	// After the last event, the next is the next run's start, nothing
	// before it.
	r := follow(t, svc, "me", conv, last(all).ID)
	send(t, svc, "me", conv, "and next week?")
	if next := r.take(1)[0]; next.Type != eventstream.EventRunStarted || next.Data.(eventstream.RunStarted).Text != "and next week?" {
		t.Fatalf("after the last event came %s %+v, want the new run's start", next.Type, next.Data)
	}
}

func slicesIndex(evs []eventstream.Event, cond func(eventstream.Event) bool) int {
	for i, e := range evs {
		if cond(e) {
			return i
		}
	}
	return -1
}

// streamingEcho starts a conversation with echo, follows it and has the
// model stream "Hello, " and "wor"; it returns the stream, the model
// call's chunks and the run.
func streamingEcho(t *testing.T, svc *chat.Service, model *paced) (conv string, f *follower, chunks chan<- string, run int64) {
	t.Helper()
	conv = startConv(t, svc, "me", "echo")
	f = follow(t, svc, "me", conv, "")
	chunks = model.stream(llm.Response{Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 5}})
	send(t, svc, "me", conv, "say hello")
	run = runOf(f.until("the run's start", is(eventstream.EventRunStarted))[0])
	chunks <- "Hello, "
	f.until("the first words", is(eventstream.EventTokenDelta))
	chunks <- "wor"
	f.until("the next words", func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.TokenDelta)
		return ok && strings.HasSuffix(d.Text, "wor")
	})
	return conv, f, chunks, run
}

func waitDraft(t *testing.T, svc *chat.Service, conv, draft string) {
	t.Helper()
	waitView(t, svc, "me", conv, "the draft "+draft, func(v pageview.View) bool { return v.Status.Draft == draft })
}

// A client that drops mid-reply and comes back while the reply still
// streams is sent the rest of the draft from the bytes it holds, as one
// delta, and then the reply as it goes on.
func TestResumingMidReplyWhileItStreamsSendsTheRest(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, chunks, run := streamingEcho(t, svc, model)
	held := last(f.seen).ID
	f.es.Close()
	chunks <- "ld"
	waitDraft(t, svc, conv, "Hello, world")

	r := follow(t, svc, "me", conv, held)
	if got := r.take(1)[0].Data; got != (eventstream.TokenDelta{Run: run, Offset: len("Hello, wor"), Text: "ld"}) {
		t.Fatalf("first event after resuming = %+v, want the rest of the draft", got)
	}
	chunks <- "!"
	r.until("the last words", func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.TokenDelta)
		return ok && strings.HasSuffix(d.Text, "!")
	})
	close(chunks)
	done := last(r.until("the run's end", is(eventstream.EventRunCompleted))).Data.(eventstream.RunCompleted)

	all := append(append([]eventstream.Event(nil), f.seen...), r.seen...)
	if done.Text != "Hello, world!" || joined(all, run) != done.Text {
		t.Fatalf("deltas joined %q, reply %q, want both %q:%s", joined(all, run), done.Text, "Hello, world!", describe(all))
	}
	if done.Usage != (eventstream.Usage{TokensIn: 3, TokensOut: 5, ModelCalls: 1}) {
		t.Errorf("usage = %+v", done.Usage)
	}
	noneTwice(t, all)
}

// A client that comes back after the reply was recorded is sent the rest
// of the reply from the bytes it holds, then the run's end.
func TestResumingMidReplyAfterItEndedSendsTheRestBeforeTheEnd(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, chunks, run := streamingEcho(t, svc, model)
	held := last(f.seen).ID
	f.es.Close()
	chunks <- "ld."
	close(chunks)
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return !v.Status.Running })

	r := follow(t, svc, "me", conv, held)
	got := r.take(2)
	if got[0].Data != (eventstream.TokenDelta{Run: run, Offset: len("Hello, wor"), Text: "ld."}) || got[1].Type != eventstream.EventRunCompleted {
		t.Fatalf("after resuming:%s\nwant the rest of the reply, then the end", describe(got))
	}
	all := append(append([]eventstream.Event(nil), f.seen...), got...)
	if joined(all, run) != "Hello, world." || got[1].Data.(eventstream.RunCompleted).Text != "Hello, world." {
		t.Fatalf("deltas joined %q:%s", joined(all, run), describe(all))
	}
	noneTwice(t, all)
}

// When the bytes a client says it holds are not the draft's (the reply was
// asked of the model again after a restart, and came out otherwise), the
// draft is sent whole, from offset 0.
func TestResumingWithOtherBytesSendsTheDraftWhole(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, chunks, run := streamingEcho(t, svc, model)
	id := last(f.seen).ID
	other := id[:strings.LastIndex(id, ".")+1] + "1" // the same length, other bytes
	f.es.Close()

	r := follow(t, svc, "me", conv, other)
	if got := r.take(1)[0].Data; got != (eventstream.TokenDelta{Run: run, Offset: 0, Text: "Hello, wor"}) {
		t.Fatalf("first event = %+v, want the draft whole", got)
	}
	chunks <- "ld"
	close(chunks)
	evs := r.until("the end", is(eventstream.EventRunCompleted))
	if got := reply(t, r.seen, run); got != "Hello, world" {
		t.Fatalf("deltas applied at their offsets give %q:%s", got, describe(evs))
	}
	_ = conv
}

// A model call whose text is not the reply (the agent asks again, then
// words the reply itself) is replaced: a delta at offset 0 starts the
// reply over, and the client that applies deltas at their offsets holds
// the reply exactly.
func TestADraftThatIsNotTheReplyIsReplaced(t *testing.T) {
	svc, model := newEventsService(t)
	conv := startConv(t, svc, "me", "rewriter")
	f := follow(t, svc, "me", conv, "")
	first := model.stream(llm.Response{})
	send(t, svc, "me", conv, "weather?")
	first <- "Let me look"
	f.until("the first call's words", is(eventstream.EventTokenDelta))
	close(first)
	second := model.stream(llm.Response{})
	second <- "Sunny"
	f.until("the second call's words", func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.TokenDelta)
		return ok && d.Text == "Sunny"
	})
	close(second)
	evs := f.until("the end", is(eventstream.EventRunCompleted))
	run := runOf(f.seen[0])
	done := last(evs).Data.(eventstream.RunCompleted)
	if done.Text != "In short: Sunny" {
		t.Fatalf("reply %q", done.Text)
	}
	var offsets []int
	for _, e := range f.seen {
		if d, ok := e.Data.(eventstream.TokenDelta); ok {
			offsets = append(offsets, d.Offset)
		}
	}
	if !reflect.DeepEqual(offsets, []int{0, 0, 0}) {
		t.Errorf("delta offsets %v, want each call and the reply from 0:%s", offsets, describe(f.seen))
	}
	if got := reply(t, f.seen, run); got != done.Text {
		t.Errorf("deltas applied at their offsets give %q, want %q", got, done.Text)
	}
	// Read from the record, the reply is one delta.
	again := follow(t, svc, "me", conv, "")
	rec := again.until("the end", is(eventstream.EventRunCompleted))
	if got := types(rec); !reflect.DeepEqual(got, []string{eventstream.EventRunStarted, eventstream.EventTokenDelta, eventstream.EventRunCompleted}) || joined(rec, run) != done.Text {
		t.Errorf("from the record:%s", describe(rec))
	}
	if u := done.Usage; u.ModelCalls != 2 {
		t.Errorf("usage %+v, want both model calls counted", u)
	}
}

// A side question asked while the agent waits is a run of its own, marked
// aside; its reply streams as deltas marked aside too.
func TestASideQuestionIsARunAside(t *testing.T) {
	svc, model := newEventsService(t)
	conv := startConv(t, svc, "me", "forecaster")
	f := follow(t, svc, "me", conv, "")
	send(t, svc, "me", conv, "weather please")
	main := runOf(f.until("the question", is(eventstream.EventElicitAsked))[0])
	model.answer(llm.Usage{PromptTokens: 5, CompletionTokens: 3}, "It is noon.")
	send(t, svc, "me", conv, "what time is it?")
	evs := f.until("the side reply", is(eventstream.EventRunCompleted))
	if got := types(evs); !reflect.DeepEqual(got, []string{eventstream.EventRunStarted, eventstream.EventTokenDelta, eventstream.EventRunCompleted}) {
		t.Fatalf("side question events:%s", describe(evs))
	}
	q, d, a := evs[0].Data.(eventstream.RunStarted), evs[1].Data.(eventstream.TokenDelta), evs[2].Data.(eventstream.RunCompleted)
	if d != (eventstream.TokenDelta{Run: q.Run, Aside: true, Text: "It is noon."}) {
		t.Errorf("token.delta = %+v, want the side reply, aside", d)
	}
	if !q.Aside || q.Text != "what time is it?" || q.Run == main || q.Run != q.Node {
		t.Errorf("run.started = %+v, want the side question, aside, a run of its own", q)
	}
	if !a.Aside || a.Run != q.Run || a.Text != "It is noon." || a.Status != tree.OutcomeReplied || a.Usage.ModelCalls != 1 || a.Usage.TokensOut != 3 {
		t.Errorf("run.completed = %+v, want the side reply, aside", a)
	}
}

// Another session's conversation does not exist for the stream.
func TestTheEventStreamIsTheOwningSessions(t *testing.T) {
	svc, _ := newEventsService(t)
	conv := startConv(t, svc, "me", "echo")
	for _, session := range []string{"someone-else", ""} {
		if _, err := eventstream.Open(t.Context(), svc, session, conv, ""); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("session %q: err = %v, want NotFound", session, err)
		}
	}
}

// A Last-Event-ID the stream did not send is refused with a message that
// says what to send.
func TestABadLastEventIDIsRefused(t *testing.T) {
	svc, model := newEventsService(t)
	conv := startConv(t, svc, "me", "echo")
	f := follow(t, svc, "me", conv, "")
	model.answer(llm.Usage{}, "Hi.")
	send(t, svc, "me", conv, "hello")
	evs := f.until("the end", is(eventstream.EventRunCompleted))
	started := evs[0].Data.(eventstream.RunStarted).Node
	newest := last(evs).Data.(eventstream.RunCompleted).Node
	// The stream read from the record, as it was before the refusals (read
	// live, a delta's id depends on when the reader caught it).
	evs = follow(t, svc, "me", conv, "").take(len(evs))
	for _, id := range []string{"abc", "-1", "1e3", " 5", "5:0", "5.0.1", "0:1", "0.3.x", "12.3.", "5.3.ZZ",
		fmt.Sprintf("%d:1", started), fmt.Sprintf("%d", newest+1000), strings.Repeat("9", 30)} {
		_, err := eventstream.Open(t.Context(), svc, "me", conv, id)
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "Last-Event-ID") {
			t.Errorf("Last-Event-ID %q: err = %v, want Invalid naming the header", id, err)
		}
	}
	// Nothing was lost: the stream from the start is as it was.
	again := follow(t, svc, "me", conv, "")
	if got := again.take(len(evs)); !reflect.DeepEqual(got, evs) {
		t.Errorf("after refusals the record reads:%s\nwant:%s", describe(got), describe(evs))
	}
}

func noneTwice(t *testing.T, evs []eventstream.Event) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range evs {
		if seen[e.ID] {
			t.Errorf("event %s sent twice:%s", e.ID, describe(evs))
		}
		seen[e.ID] = true
	}
}

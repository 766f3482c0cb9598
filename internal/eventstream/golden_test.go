package eventstream_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden has a scripted conversation and compares its events, as a
// client following it got them and as read from the record afterwards,
// with testdata/live.golden and testdata/record.golden: every event's
// type, id and data, written as GET /c/:id/events sends them, with only
// the times recorded written as "…". The event stream is a wire protocol
// that clients parse: any change of an event's shape fails here, and
// -update accepts it.
func TestGolden(t *testing.T) {
	svc, model := newEventsService(t)
	conv, live := scriptedConversation(t, svc, model)
	whole := follow(t, svc, "me", conv, "")
	var record []eventstream.Event
	for range 4 {
		record = append(record, whole.until("a run's end", is(eventstream.EventRunCompleted))...)
	}
	for _, c := range []struct {
		name string
		evs  []eventstream.Event
	}{{"live", live}, {"record", record}} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join("testdata", c.name+".golden")
			got := wire(t, c.evs)
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s: the events differ (go test ./internal/eventstream -run Golden -update accepts them):\n%s", file, firstDifference(string(want), got))
			}
		})
	}
}

// scriptedConversation has the forecaster asked for the weather while a
// client follows: its question waits while a side question is asked and
// its reply streams; answered, it reports progress, calls its tool and
// streams its reply. A second run is stopped as its reply streams, a
// third fails on the model. It returns the conversation and the events
// the client got.
func scriptedConversation(t *testing.T, svc *chat.Service, model *paced) (string, []eventstream.Event) {
	t.Helper()
	conv := startConv(t, svc, "me", "forecaster")
	f := follow(t, svc, "me", conv, "")
	stream := func(chunks chan<- string, words ...string) {
		for _, w := range words {
			chunks <- w
			f.until(fmt.Sprintf("the words %q", w), func(e eventstream.Event) bool {
				d, ok := e.Data.(eventstream.TokenDelta)
				return ok && strings.HasSuffix(d.Text, w)
			})
		}
	}
	answer := func(eid, city string) {
		t.Helper()
		if err := svc.Answer(t.Context(), "me", conv, eid, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"city":"` + city + `"}`)}); err != nil {
			t.Fatal(err)
		}
	}

	send(t, svc, "me", conv, "weather please")
	q := last(f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked)
	side := model.stream(llm.Response{Usage: llm.Usage{PromptTokens: 4, CompletionTokens: 6}})
	send(t, svc, "me", conv, "what time is it?")
	f.until("the side question", is(eventstream.EventRunStarted))
	stream(side, "It is ", "noon.")
	close(side)
	f.until("the side run's end", is(eventstream.EventRunCompleted))
	answer(q.Elicit, "Oslo")
	f.until("the tool's result", is(eventstream.EventToolResult))
	reply := model.stream(llm.Response{Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 4}})
	stream(reply, "Clear ", "skies.")
	close(reply)
	f.until("the first run's end", is(eventstream.EventRunCompleted))

	send(t, svc, "me", conv, "and tomorrow?")
	answer(last(f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked).Elicit, "Riga")
	f.until("the tool's result", is(eventstream.EventToolResult))
	reply = model.stream(llm.Response{})
	stream(reply, "Rain, ")
	if err := svc.Stop(t.Context(), "me", conv); err != nil {
		t.Fatal(err)
	}
	f.until("the stopped run's end", is(eventstream.EventRunCompleted))

	send(t, svc, "me", conv, "and the day after?")
	model.fail(&llm.Error{Provider: "paced", Status: 500, Message: "the model broke", Retryable: true})
	answer(last(f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked).Elicit, "Kyiv")
	f.until("the failed run's end", is(eventstream.EventRunCompleted))
	return conv, f.seen
}

// recordedAt is the time a node was recorded, as its events' JSON has it.
var recordedAt = regexp.MustCompile(`"at":"[^"]*"`)

// ranFor is how long a tool call ran, as tool.result's JSON has it: a
// duration measured, which the golden files leave out (it may even be 0,
// which the wire leaves out too; audit_test.go checks it is sent).
var ranFor = regexp.MustCompile(`,"duration_us":[0-9]+`)

// wire writes evs as the event stream sends them (transport/events.go):
// type, id and one line of JSON each, with the times recorded as "…" and
// the durations measured left out.
func wire(t *testing.T, evs []eventstream.Event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		data, err := json.Marshal(e.Data)
		if err != nil {
			t.Fatalf("%s %s: %v", e.ID, e.Type, err)
		}
		if !recordedAt.Match(data) && e.Type != eventstream.EventTokenDelta {
			t.Errorf("%s %s carries no time recorded: %s", e.ID, e.Type, data)
		}
		data = ranFor.ReplaceAll(recordedAt.ReplaceAll(data, []byte(`"at":"…"`)), nil)
		fmt.Fprintf(&b, "event: %s\nid: %s\ndata: %s\n\n", e.Type, e.ID, data)
	}
	return b.String()
}

// firstDifference says where got first differs from want, by line, with
// the lines that follow there in each.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	near := func(ls []string) string {
		return strings.Join(ls[min(i, len(ls)):min(i+6, len(ls))], "\n  ")
	}
	return fmt.Sprintf("from line %d, want:\n  %s\ngot:\n  %s", i+1, near(wl), near(gl))
}

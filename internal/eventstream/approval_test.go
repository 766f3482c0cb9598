package eventstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/policy"
)

type seat struct {
	Seat string `json:"seat"`
}

var (
	travel = agents.New("travel", "Books seats.")
	book   = agents.NewTool(travel, "book", "Book a seat", func(_ context.Context, in seat) (seat, error) { return in, nil }).
		Does(policy.Writes, policy.Spends)
)

// booker books a seat: a call the permission policy asks the user to
// allow, as the tool writes and spends. It says what came of it.
func booker() agents.Assistant {
	return agents.Assistant{Name: "booker", Turn: func(ctx context.Context, msg string) (string, error) {
		out, err := book.Call(ctx, seat{Seat: "3A"})
		if _, ok := errors.AsType[*agents.DeniedError](err); ok {
			return "Not booked.", nil
		}
		if err != nil {
			return "", err
		}
		return "Booked " + out.Seat + ".", nil
	}}
}

// approve answers approval eid with content.
func approve(t *testing.T, svc *chat.Service, conv, eid, content string) {
	t.Helper()
	if err := svc.Answer(t.Context(), "me", conv, eid, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(content)}); err != nil {
		t.Fatal(err)
	}
}

// The permission policy's approval of a tool call is announced as the
// question it is (elicit.asked) and then as an approval (approval.required:
// the agent, the tool, its arguments as JSON, what it does, the elicit to
// answer); its answer as elicit.answered and then approval.resolved (the
// choice, whether the call runs, by the user, the edited arguments or the
// reason for a deny); the call's tool.result says who decided it and how
// it went. Stopped while it waits, it is resolved by the run's end.
// testdata/approval.golden holds the stream; -update rewrites it.
func TestTheEventStreamAnnouncesApprovals(t *testing.T) {
	svc, _ := newEventsService(t)
	conv := startConv(t, svc, "me", "booker")
	f := follow(t, svc, "me", conv, "")
	result := func(evs []eventstream.Event) eventstream.ToolResult {
		t.Helper()
		for _, e := range evs {
			if r, ok := e.Data.(eventstream.ToolResult); ok {
				return r
			}
		}
		t.Fatalf("no tool.result:%s", describe(evs))
		return eventstream.ToolResult{}
	}

	// Allowed once, edited.
	send(t, svc, "me", conv, "a seat")
	evs := f.until("the approval", is(eventstream.EventApprovalRequired))
	if got, want := types(evs), []string{eventstream.EventRunStarted, eventstream.EventElicitAsked, eventstream.EventApprovalRequired}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v:%s", got, want, describe(evs))
	}
	asked, req := evs[1].Data.(eventstream.ElicitAsked), evs[2].Data.(eventstream.ApprovalRequired)
	if req.Elicit != asked.Elicit || req.Agent != "travel" || req.Tool != "book" || string(req.Args) != `{"seat":"3A"}` ||
		!reflect.DeepEqual(req.Effects, []string{"writes", "spends"}) || req.Node != asked.Node {
		t.Fatalf("approval.required = %+v, want the call asked about, under the question's elicit and node", req)
	}
	approve(t, svc, conv, req.Elicit, `{"choice":"once","args":"{\"seat\": \"4C\"}"}`)
	evs = f.until("the run's end", is(eventstream.EventRunCompleted))
	if got, want := types(evs), []string{eventstream.EventElicitAnswered, eventstream.EventApprovalResolved, eventstream.EventToolCall, eventstream.EventToolResult, eventstream.EventTokenDelta, eventstream.EventRunCompleted}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v:%s", got, want, describe(evs))
	}
	if r := evs[1].Data.(eventstream.ApprovalResolved); r.Elicit != req.Elicit || r.Choice != "once" || !r.Allowed || r.By != "user" || string(r.Args) != `{"seat":"4C"}` {
		t.Fatalf("approval.resolved = %+v, want allowed once by the user, edited", r)
	}
	if r := result(evs); string(r.Output) != `{"seat":"4C"}` || r.Decision != "ask" || r.DecidedBy != "user" || r.Outcome != "ok" {
		t.Fatalf("tool.result = %+v, want the edited call, asked and allowed by the user", r)
	}

	// Denied, with a reason.
	send(t, svc, "me", conv, "another seat")
	req = last(f.until("the approval", is(eventstream.EventApprovalRequired))).Data.(eventstream.ApprovalRequired)
	approve(t, svc, conv, req.Elicit, `{"choice":"deny","reason":"too dear"}`)
	if r := last(f.until("the decision", is(eventstream.EventApprovalResolved))).Data.(eventstream.ApprovalResolved); r.Choice != "deny" || r.Allowed || r.By != "user" || r.Reason != "too dear" || r.Args != nil {
		t.Fatalf("approval.resolved = %+v, want denied by the user, with the reason", r)
	}
	if r := result(f.until("the run's end", is(eventstream.EventRunCompleted))); r.Outcome != "denied" || r.DecidedBy != "user" {
		t.Fatalf("tool.result = %+v, want denied by the user", r)
	}

	// Stopped while it waits: the run's end closes it.
	send(t, svc, "me", conv, "a third seat")
	f.until("the approval", is(eventstream.EventApprovalRequired))
	if err := svc.Stop(t.Context(), "me", conv); err != nil {
		t.Fatal(err)
	}
	if got := types(f.until("the stopped run's end", is(eventstream.EventRunCompleted))); slices.Contains(got, eventstream.EventApprovalResolved) {
		t.Fatalf("after Stop: %v, want no approval.resolved", got)
	}

	// Allowed for the conversation: the next call is not asked about.
	send(t, svc, "me", conv, "a fourth seat")
	req = last(f.until("the approval", is(eventstream.EventApprovalRequired))).Data.(eventstream.ApprovalRequired)
	approve(t, svc, conv, req.Elicit, `{"choice":"conversation"}`)
	f.until("the run's end", is(eventstream.EventRunCompleted))
	send(t, svc, "me", conv, "a fifth seat")
	evs = f.until("the run's end", is(eventstream.EventRunCompleted))
	if slices.Contains(types(evs), eventstream.EventApprovalRequired) {
		t.Fatalf("a call allowed for the conversation was asked about again:%s", describe(evs))
	}
	if r := result(evs); r.Decision != "allow" || r.DecidedBy != "remembered" || r.Outcome != "ok" {
		t.Fatalf("tool.result = %+v, want allowed by the remembered choice", r)
	}

	// Read from the record, the stream is the one the client got.
	whole := follow(t, svc, "me", conv, "")
	var record []eventstream.Event
	for range 5 {
		record = append(record, whole.until("a run's end", is(eventstream.EventRunCompleted))...)
	}
	if got, want := wire(t, record), wire(t, f.seen); got != want {
		t.Errorf("read from the record:\n%s\nwant as followed:\n%s", firstDifference(want, got), want)
	}
	file := filepath.Join("testdata", "approval.golden")
	if *update {
		if err := os.WriteFile(file, []byte(wire(t, f.seen)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := wire(t, f.seen); got != string(want) {
		t.Errorf("%s: the events differ (go test ./internal/eventstream -run Approvals -update accepts them):\n%s", file, firstDifference(string(want), got))
	}
}

// A client that left between an approval's two events comes back to the
// second: an approval's question and answer split as a tool call does,
// and no further.
func TestAClientResumesBetweenAnApprovalsEvents(t *testing.T) {
	svc, _ := newEventsService(t)
	conv := startConv(t, svc, "me", "booker")
	f := follow(t, svc, "me", conv, "")
	send(t, svc, "me", conv, "a seat")
	evs := f.until("the approval", is(eventstream.EventApprovalRequired))
	req := evs[2].Data.(eventstream.ApprovalRequired)
	approve(t, svc, conv, req.Elicit, `{"choice":"once"}`)
	evs = f.until("the run's end", is(eventstream.EventRunCompleted))

	for _, c := range []struct {
		after, next string
	}{
		{f.seen[1].ID, eventstream.EventApprovalRequired}, // after elicit.asked
		{evs[0].ID, eventstream.EventApprovalResolved},    // after elicit.answered
	} {
		again := follow(t, svc, "me", conv, c.after)
		if got := again.take(1)[0]; got.Type != c.next {
			t.Errorf("after %s: %s %s, want %s", c.after, got.ID, got.Type, c.next)
		}
	}
	for _, id := range []string{fmt.Sprintf("%d:2", req.Node), f.seen[0].ID + ":1"} {
		_, err := eventstream.Open(t.Context(), svc, "me", conv, id)
		if apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("Last-Event-ID %s: %v, want Invalid: no node gives that event", id, err)
		}
	}
}

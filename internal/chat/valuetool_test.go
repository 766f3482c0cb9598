package chat_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// skyThenAskModel calls the tool "sky", then asks the user through
// ask_user, then answers in words with the two results; it counts its
// calls.
type skyThenAskModel struct{ calls atomic.Int32 }

func (*skyThenAskModel) Name() string { return "sky-then-ask" }

func (m *skyThenAskModel) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	m.calls.Add(1)
	var results []string
	for _, msg := range req.Messages {
		if msg.Role == llm.Tool {
			results = append(results, msg.Content)
		}
	}
	switch len(results) {
	case 0:
		return llm.Response{FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "sky", Arguments: `"Lisbon"`}}}, nil
	case 1:
		return llm.Response{FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{{ID: "call_2", Name: agents.AskUserTool, Arguments: `{"question":"Go out?","kind":"confirm"}`}}}, nil
	}
	return llm.Response{Content: results[0] + " / " + results[1], FinishReason: "stop"}, nil
}

// A tool handed to a Loop as a value is recorded as an agent's tool is: a
// turn resumed after a restart answers it from the record and does not run
// it again.
func TestAValueToolIsNotRunAgainWhenATurnResumes(t *testing.T) {
	var runs atomic.Int32
	sky := agents.Func("sky", "Today's sky in a city", func(_ context.Context, city string) (string, error) {
		runs.Add(1)
		return "sunny in " + city, nil
	})
	loop := agents.Loop{System: "You tell the weather.", Tools: []agents.AnyTool{sky}, AskUser: true}
	model := &skyThenAskModel{}
	s := startServer(t, registry.New(agents.Assistant{Name: "planner", Turn: loop.Turn}), model)
	conv, _ := s.svc.Create(t.Context(), "me", "planner")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "Weather in Lisbon?"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the model's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	s.restart()
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it, want := lastItem(v), `"sunny in Lisbon" / {"action":"accept","answer":{"yes":true}}`; it.Kind != tree.AssistantMessage || it.Text != want {
		t.Fatalf("last item %+v, want the reply %s", it, want)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the tool ran %d times, want once: the resumed turn answers it from the record", n)
	}
	if n := model.calls.Load(); n != 3 {
		t.Fatalf("the model was called %d times, want 3: the replay answers the first two from the record", n)
	}
	recorded := s.nodes(conv.ID, tree.ToolCall)
	if len(recorded) != 1 {
		t.Fatalf("%d tool calls recorded, want 1", len(recorded))
	}
	rec, err := tree.Decode[tree.ToolRecord](recorded[0])
	if err != nil {
		t.Fatal(err)
	}
	if recorded[0].Agent != "planner" || rec.Agent != "planner" || rec.Tool != "sky" || string(rec.Output) != `"sunny in Lisbon"` {
		t.Fatalf("recorded %+v by %q, want sky's call by the assistant planner, with its result", rec, recorded[0].Agent)
	}
}

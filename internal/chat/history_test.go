package chat_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

type searchInput struct {
	City string `json:"city"`
}

// tripLoop is a model-driven assistant that may search flights and ask the
// user.
func tripLoop() *registry.Assistants {
	a := agents.New("flights", "Finds flights")
	agents.NewTool(a, "search", "Search flights to a city", func(_ context.Context, in searchInput) (map[string]any, error) {
		return map[string]any{"city": in.City, "flights": []string{"SK123"}}, nil
	})
	return registry.New(agents.Assistant{Name: "trips", Turn: agents.Loop{Agents: []*agents.Agent{a}, AskUser: true}.Turn})
}

// The model is given what happened in earlier turns: a turn after the user
// picked a seat and a tool returned, the model's request holds the answer
// with its value and the tool call followed by its result, paired by the
// call's id, over the real OpenAI wire. Compaction summarizes them too,
// never parting a result from its call; and a turn that waits across a
// restart is given, on replay, the very same messages.
func TestTheModelSeesEarlierAnswersAndToolResults(t *testing.T) {
	fake := llmtest.NewServer(t,
		llmtest.Call("ask_user", `{"question":"Which seat?","kind":"choice","options":["12A","14C"]}`),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_s1", Name: "search", Arguments: `{"city":"Oslo"}`}}},
		llmtest.Text("Booked seat 14C on SK123."),
		llmtest.Text("You picked 14C."),
	)
	path := filepath.Join(t.TempDir(), "history.db")
	var svc *chat.Service
	start := func(compact int) {
		db := storetest.OpenAt(t, path)
		svc = chat.New(chat.Config{Store: db, Assistants: tripLoop(), CompactTokens: compact,
			Model: openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"})})
		t.Cleanup(func() { svc.Close(); db.Close() })
	}
	start(0)
	conv, err := svc.Create(t.Context(), "me", "trips")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", conv.ID, "Book me a flight to Oslo"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the seat question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Answer(t.Context(), "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"option":"14C"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the booking", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if err := svc.Send(t.Context(), "me", conv.ID, "Which seat did I pick?"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "You picked 14C." })

	next := fake.Requests()[3].Messages
	if i := indexOf(next, func(m llmtest.Message) bool {
		return m.Role == "user" && strings.Contains(m.Content, `"option":"14C"`)
	}); i < 0 || !strings.Contains(next[i-1].Content, "Which seat?") {
		t.Errorf("the next turn's request does not hold the question and the picked seat:\n%s", dump(next))
	}
	checkPaired(t, next, "call_s1", "search", "SK123")

	// Compaction: the next turn's history is over the limit, and the
	// model is asked for a summary of its oldest part, which holds the
	// answer and the exchange; the turn then waits on a question across
	// a restart.
	svc.Close()
	start(30)
	fake.Add(
		llmtest.Text("The user booked seat 14C on SK123 to Oslo."),
		llmtest.Call("ask_user", `{"question":"Anything else?","kind":"confirm"}`),
	)
	if err := svc.Send(t.Context(), "me", conv.ID, "Tell me more about my trip."); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the last question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	reqs := fake.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6 (the summary's among them)", len(reqs))
	}
	summary := reqs[4].Messages
	if !slices.ContainsFunc(summary, func(m llmtest.Message) bool { return strings.Contains(m.Content, `"option":"14C"`) }) {
		t.Errorf("the summarized span lacks the answer:\n%s", dump(summary))
	}
	checkPaired(t, summary, "call_s1", "search", "SK123")
	waiting := reqs[5].Messages
	if !slices.ContainsFunc(waiting, func(m llmtest.Message) bool { return strings.Contains(m.Content, "booked seat 14C") }) {
		t.Errorf("the request after compaction lacks the summary:\n%s", dump(waiting))
	}
	orphans(t, waiting)

	eid := pendingElicit(v).Request.ID
	svc.Close()
	start(30)
	fake.Add(llmtest.Text("Have a good trip."))
	if err := svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"yes":false}`)); err != nil {
		t.Fatal(err)
	}
	end := waitView(t, svc, "me", conv.ID, "the end of the resumed turn", func(v pageview.View) bool {
		return lastItem(v).Kind != "" && lastItem(v).Kind != tree.ElicitRequest && lastItem(v).Kind != tree.ElicitResponse
	})
	if it := lastItem(end); it.Text != "Have a good trip." {
		t.Fatalf("the resumed turn ended with %+v, want it to go on from its record", it)
	}
	reqs = fake.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls after the restart, want one more: the recorded ones replayed, not made again", len(reqs))
	}
	before, after := mustJSON(t, reqs[5].Messages), mustJSON(t, reqs[6].Messages[:len(reqs[5].Messages)])
	if before != after {
		t.Errorf("after the restart the conversation given the model differs:\nbefore %s\nafter  %s", before, after)
	}
}

// checkPaired fails unless msgs hold an assistant message calling tool
// name as id, followed at once by the call's result, which holds want.
func checkPaired(t *testing.T, msgs []llmtest.Message, id, name, want string) {
	t.Helper()
	i := indexOf(msgs, func(m llmtest.Message) bool {
		return m.Role == "assistant" && slices.ContainsFunc(m.ToolCalls, func(c llmtest.ToolCall) bool { return c.ID == id && c.Name == name })
	})
	if i < 0 || i+1 >= len(msgs) || msgs[i+1].Role != "tool" || msgs[i+1].ToolCallID != id || !strings.Contains(msgs[i+1].Content, want) {
		t.Errorf("no call %s of %s followed by its result with %q:\n%s", id, name, want, dump(msgs))
	}
	orphans(t, msgs)
}

// orphans fails on a tool result whose call is not in the assistant
// message before it: a provider refuses such a request.
func orphans(t *testing.T, msgs []llmtest.Message) {
	t.Helper()
	calls := map[string]bool{}
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			clear(calls)
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
		case "tool":
			if !calls[m.ToolCallID] {
				t.Errorf("the result of %s is not preceded by its call:\n%s", m.ToolCallID, dump(msgs))
			}
		default:
			clear(calls)
		}
	}
}

func indexOf(msgs []llmtest.Message, f func(llmtest.Message) bool) int {
	return slices.IndexFunc(msgs, f)
}

func dump(msgs []llmtest.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(mustJSONString(m))
		b.WriteByte('\n')
	}
	return b.String()
}

func mustJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

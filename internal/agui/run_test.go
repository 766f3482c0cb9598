package agui_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/agui"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

type city struct {
	City string `json:"city" title:"City" min:"2"`
}

var (
	cityForm = elicit.Form[city]()
	weather  = agents.New("weather", "Tells the weather.")
	asked    = agents.NewState(weather, "asked", []string{})
	// forecast keeps the cities asked about in the agent's state.
	forecast = agents.NewTool(weather, "forecast", "The sky over a city", func(ctx context.Context, in city) (string, error) {
		err := asked.Update(ctx, func(cs *[]string) error { *cs = append(*cs, in.City); return nil })
		return "clear over " + in.City, err
	})
)

// forecaster asks for a city, calls a tool (which keeps the city in its
// agent's state) and has the model reply.
func forecaster() agents.Assistant {
	return agents.Assistant{Name: "forecaster", Turn: func(ctx context.Context, msg string) (string, error) {
		res, err := turn.Ask(ctx, cityForm, "Which city?", struct{}{})
		if err != nil || res.Action != elicit.Accept {
			return "No city, no forecast.", err
		}
		sky, err := forecast.Call(ctx, res.Content)
		if err != nil {
			return "", err
		}
		out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg + ": " + sky}}})
		return out.Content, err
	}}
}

func newService(t *testing.T, replies ...llmtest.Reply) *chat.Service {
	t.Helper()
	model := llmtest.NewServer(t, replies...)
	svc, _ := chattest.New(t, chat.Config{
		Assistants:   registry.New(forecaster()),
		Model:        openai.New(openai.Config{APIKey: "sk-test", BaseURL: model.URL, Model: "m"}),
		Kinds:        kindset.New(elicit.BuiltinKinds()...),
		DecideByRule: true,
	})
	return svc
}

// run runs in for session s and returns the events sent.
func run(t *testing.T, svc *chat.Service, s string, in agui.Input) []agui.Event {
	t.Helper()
	var evs []agui.Event
	err := agui.Run(t.Context(), svc, s, func() (string, error) { return s, svc.IssueSession(t.Context(), s) }, in, func(ev agui.Event) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func types(evs []agui.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func user(id, text string) agui.Message {
	c, _ := json.Marshal(text)
	return agui.Message{ID: id, Role: "user", Content: c}
}

// nodes is how many nodes the conversation recorded.
func nodes(t *testing.T, svc *chat.Service, s, conv string) int {
	t.Helper()
	f, err := svc.Follow(t.Context(), s, conv, feed.Want{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int
	f.Look(func(l feed.Live) { n = l.Index.Len() })
	return n
}

const session = "0123456789abcdef0123456789abcdef"

// A run asks (an interrupt), a refused answer is RUN_ERROR and records
// nothing, the answer resumes it: the tool call with its result, the reply
// streamed as one text message, the state as a delta, success.
func TestRunAsksAndResumes(t *testing.T) {
	svc := newService(t, llmtest.Text("Clear ", "skies ", "in Oslo."))
	first := run(t, svc, session, agui.Input{ThreadID: "new", RunID: "r1", Messages: []agui.Message{user("m1", "Weather?")}})
	if got, want := types(first), []string{agui.RunStarted, agui.StateSnapshot, agui.RunFinished}; !slices.Equal(got, want) {
		t.Fatalf("first run %v, want %v", got, want)
	}
	conv := first[0].ThreadID
	if conv == "" || conv == "new" {
		t.Fatalf("RUN_STARTED names thread %q, want the new conversation's id", conv)
	}
	end := first[2].Outcome
	if end == nil || end.Type != "interrupt" || len(end.Interrupts) != 1 || end.Interrupts[0].Message != "Which city?" || end.Interrupts[0].Reason != "form" {
		t.Fatalf("first run ended %+v, want an interrupt asking for the city", end)
	}
	q := end.Interrupts[0].ID

	before := nodes(t, svc, session, conv)
	for _, tc := range []struct {
		name   string
		resume agui.Resume
		want   string
	}{
		{"an answer the form refuses", agui.Resume{InterruptID: q, Status: "resolved", Payload: json.RawMessage(`{"city":"O"}`)}, "city"},
		{"a question not waiting", agui.Resume{InterruptID: "nope", Status: "resolved", Payload: json.RawMessage(`{"city":"Oslo"}`)}, "No question"},
		{"an unknown status", agui.Resume{InterruptID: q, Status: "maybe"}, "resolved or cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := run(t, svc, session, agui.Input{ThreadID: conv, RunID: "bad", Resume: []agui.Resume{tc.resume}})
			if len(evs) != 1 || evs[0].Type != agui.RunError || !strings.Contains(evs[0].Message, tc.want) {
				t.Errorf("events %+v, want RUN_ERROR alone, saying %q", evs, tc.want)
			}
			if got := nodes(t, svc, session, conv); got != before {
				t.Errorf("%d nodes after, %d before: a refused resume recorded something", got, before)
			}
		})
	}
	// Another session does not see the thread.
	other := run(t, svc, "fedcba9876543210fedcba9876543210", agui.Input{ThreadID: conv, RunID: "r", Resume: []agui.Resume{{InterruptID: q, Status: "resolved"}}})
	if len(other) != 1 || other[0].Type != agui.RunError || other[0].Code != "not_found" {
		t.Errorf("another session's resume: %+v, want RUN_ERROR not_found", other)
	}

	second := run(t, svc, session, agui.Input{ThreadID: conv, RunID: "r2", Resume: []agui.Resume{{InterruptID: q, Status: "resolved", Payload: json.RawMessage(`{"city":"Oslo"}`)}}})
	// The state may move between the run's snapshot and its first event
	// (the answer being written while the run starts, on a busy machine):
	// a STATE_DELTA then says so, where it falls. The rest is in order.
	var patches [][]agui.PatchOp
	for _, e := range second {
		if e.Type == agui.StateDelta {
			patches = append(patches, e.Delta.([]agui.PatchOp))
		}
	}
	second = slices.DeleteFunc(second, func(e agui.Event) bool { return e.Type == agui.StateDelta })
	want := []string{agui.RunStarted, agui.StateSnapshot, agui.ToolCallStart, agui.ToolCallArgs, agui.ToolCallEnd, agui.ToolCallResult}
	if got := types(second); len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("resumed run %v (%+v), want it to begin %v", got, second[len(second)-1], want)
	}
	if c := second[5].Content; c == nil || *c != `"clear over Oslo"` || second[5].ToolCallID != second[2].ToolCallID || second[2].ToolCallName != "forecast" {
		t.Errorf("tool call %+v, result %+v", second[2], second[5])
	}
	var text strings.Builder
	for _, e := range second[6:] {
		if e.Type == agui.TextMessageContent {
			text.WriteString(e.Delta.(string))
		}
	}
	if text.String() != "Clear skies in Oslo." {
		t.Errorf("the text streamed %q", text.String())
	}
	if len(patches) != 1 || len(patches[0]) != 1 || patches[0][0].Op != "add" || patches[0][0].Path != "/weather" || string(patches[0][0].Value) != `{"asked":["Oslo"]}` {
		t.Errorf("state deltas %+v, want /weather added with the city asked", patches)
	}
	last := second[len(second)-1]
	if last.Type != agui.RunFinished || last.Outcome.Type != "success" || last.Result != "Clear skies in Oslo." {
		t.Errorf("the run ended %+v", last)
	}

	// The first message changed: a new branch, where the form asks again
	// and the state is that branch's (no city asked yet).
	edit := run(t, svc, session, agui.Input{ThreadID: conv, RunID: "r3", Messages: []agui.Message{user("m1b", "Weather tomorrow?")}})
	if got := types(edit); got[len(got)-1] != agui.RunFinished || edit[len(edit)-1].Outcome.Type != "interrupt" {
		t.Fatalf("after the edit %v, want the question again", got)
	}
	if edit[1].Type != agui.StateSnapshot || string(edit[1].Snapshot) != `{"weather":{"asked":["Oslo"]}}` || edit[2].Type != agui.StateDelta {
		t.Errorf("after the edit: %+v %+v, want the snapshot before it, then the delta that takes it back", edit[1], edit[2])
	}

	// Messages that differ before the last one cannot be one edit.
	n := nodes(t, svc, session, conv)
	evs := run(t, svc, session, agui.Input{ThreadID: conv, RunID: "r4", Messages: []agui.Message{user("x", "Something else"), user("y", "And then?")}})
	if len(evs) != 1 || evs[0].Type != agui.RunError || !strings.Contains(evs[0].Message, "differ") {
		t.Errorf("differing messages: %+v, want RUN_ERROR", evs)
	}
	// A new message while a question waits must resume it first.
	evs = run(t, svc, session, agui.Input{ThreadID: conv, RunID: "r5", Messages: []agui.Message{user("m1b", "Weather tomorrow?"), user("z", "Hello?")}})
	if len(evs) != 1 || evs[0].Type != agui.RunError || evs[0].Code != "conflict" {
		t.Errorf("a message while a question waits: %+v, want RUN_ERROR conflict", evs)
	}
	if got := nodes(t, svc, session, conv); got != n {
		t.Errorf("refused runs recorded %d nodes", got-n)
	}
}

// A new thread whose input cannot run leaves no conversation behind.
func TestARefusedNewThreadRecordsNothing(t *testing.T) {
	svc := newService(t)
	for _, tc := range []struct {
		name string
		msgs []agui.Message
		want string
	}{
		{"no message", nil, "nothing to run"},
		{"an empty message", []agui.Message{user("m", "  ")}, "type a message"},
		{"a history the thread does not have", []agui.Message{user("a", "Hi"), user("b", "Weather?")}, "differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := run(t, svc, session, agui.Input{ThreadID: "new", RunID: "r", Messages: tc.msgs})
			if len(evs) != 1 || evs[0].Type != agui.RunError || !strings.Contains(strings.ToLower(evs[0].Message), tc.want) {
				t.Errorf("events %+v, want RUN_ERROR saying %q", evs, tc.want)
			}
			if convs, err := svc.Conversations(t.Context(), session); err != nil || len(convs) != 0 {
				t.Errorf("conversations %v (%v), want none", convs, err)
			}
		})
	}
}

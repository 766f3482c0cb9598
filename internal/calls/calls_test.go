package calls_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The forecaster: a model-driven loop with one tool, logging as it goes,
// under a middleware that refuses an answer that shouts.
var (
	forecasts = agents.New("forecasts", "Knows the weather")
	_         = agents.NewTool(forecasts, "get_weather", "The weather in a city", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		turn.Log(ctx, slog.LevelInfo, "looking up the weather", "city", in.City)
		return "sunny in " + in.City, nil
	})
	forecaster = agents.Assistant{Name: "forecaster", Turn: func(ctx context.Context, msg string) (string, error) {
		turn.Log(ctx, slog.LevelInfo, "turn starts", "message", msg)
		ctx = middleware.SampleOutput.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
			return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
				if strings.Contains(s.Response.Content, "!") {
					return s, middleware.Retry("no-shouting", "the answer shouts")
				}
				return next(ctx, s)
			}
		}, middleware.Max)
		reply, err := agents.Loop{System: "You answer about the weather.", Agents: []*agents.Agent{forecasts}}.Turn(ctx, msg)
		if err != nil {
			turn.Log(ctx, slog.LevelWarn, "turn failed", "err", err)
			return "", err
		}
		turn.Log(ctx, slog.LevelInfo, "turn ends")
		return reply, nil
	}}
)

func usage(in, out int) *llmtest.Usage {
	return &llmtest.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
}

func withUsage(r llmtest.Reply, in, out int) llmtest.Reply {
	r.Usage = usage(in, out)
	return r
}

// forecastConversation runs three turns of the forecaster: one that calls
// the tool and has an answer refused once, one whose model call fails, and
// one that answers at once.
func forecastConversation(t *testing.T) (*chat.Service, *calls.Service, tree.Conversation) {
	t.Helper()
	fake := llmtest.NewServer(t,
		withUsage(llmtest.Call("get_weather", `{"city":"Oslo"}`), 11, 3),
		withUsage(llmtest.Text("Sunny!"), 17, 2),
		withUsage(llmtest.Text("Sunny."), 19, 2),
		llmtest.Fail(400, "the model does not talk about Mondays"),
		withUsage(llmtest.Text("Fine."), 7, 1),
	)
	svc, book := newServiceWith(t, chat.Config{Assistants: registry.New(forecaster),
		Model: openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "gpt-test"})})
	conv, err := svc.Create(t.Context(), "me", "forecaster")
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"weather in Oslo?", "and on Monday?", "thanks"} {
		if err := svc.Send(t.Context(), "me", conv.ID, msg); err != nil {
			t.Fatal(err)
		}
		waitView(t, svc, "me", conv.ID, "the end of the turn", func(v pageview.View) bool { return !v.Status.Running })
	}
	return svc, book, conv
}

// entry words an entry of the listing for comparison.
func entry(e calls.Entry) string {
	if l := e.Log; l != nil {
		var attrs []string
		for _, a := range l.Record.Attrs {
			attrs = append(attrs, a.Key+"="+a.Value)
		}
		return fmt.Sprintf("log %s %s %s", l.Record.Level, l.Record.Message, strings.Join(attrs, " "))
	}
	c := e.Call
	s := fmt.Sprintf("call attempt %d", c.Attempt)
	if c.Record.Response != nil {
		s += fmt.Sprintf(" %q %d/%d", c.Record.Response.Content, c.Record.Response.Usage.PromptTokens, c.Record.Response.Usage.CompletionTokens)
	}
	if c.Record.Error != "" {
		s += " failed"
	}
	for _, tool := range c.Tools {
		s += fmt.Sprintf(" tool %s %s ran %v → %s", tool.Call.Name, tool.Call.Arguments, tool.Node != 0, tool.Output)
	}
	if c.After != nil {
		s += " after " + c.After.By
	}
	if c.Refused != nil {
		s += fmt.Sprintf(" refused by %s: %s", c.Refused.By, c.Refused.Reason)
	}
	return s
}

func entries(turn calls.Turn) []string {
	var out []string
	for _, e := range turn.Entries {
		out = append(out, entry(e))
	}
	return out
}

func TestTheListingShowsEachCallInItsTurn(t *testing.T) {
	svc, book, conv := forecastConversation(t)
	d, err := book.List(t.Context(), "me", calls.Filter{Conversation: conv.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Conversations) != 1 || len(d.Conversations[0].Turns) != 3 {
		t.Fatalf("listing = %+v, want one conversation of three turns", d)
	}
	dc := d.Conversations[0]
	turns := dc.Turns
	sameLines(t, "the first turn", entries(turns[0]), []string{
		"log INFO turn starts message=weather in Oslo?",
		`call attempt 1 "" 11/3 tool get_weather {"city":"Oslo"} ran true → "sunny in Oslo"`,
		"log INFO looking up the weather city=Oslo",
		`call attempt 1 "Sunny!" 17/2 refused by no-shouting: the answer shouts`,
		`call attempt 2 "Sunny." 19/2 after no-shouting`,
		"log INFO turn ends ",
	})
	sameLines(t, "the second turn", entries(turns[1]), []string{
		"log INFO turn starts message=and on Monday?",
		"call attempt 1 failed",
		"log WARN turn failed err=" + turns[1].Entries[1].Call.Record.Error,
	})
	sameLines(t, "the third turn", entries(turns[2]), []string{
		"log INFO turn starts message=thanks",
		`call attempt 1 "Fine." 7/1`,
		"log INFO turn ends ",
	})
	if turns[0].Text != "weather in Oslo?" || turns[2].Text != "thanks" {
		t.Errorf("turns are headed %q, %q, %q; want the messages that started them", turns[0].Text, turns[1].Text, turns[2].Text)
	}

	// The calls are as sent: the system prompt first, the tools offered.
	first := turns[0].Entries[1].Call.Record
	if m := first.Request.Messages; len(m) != 2 || m[0].Role != "system" || m[0].Content != "You answer about the weather." || m[1].Content != "weather in Oslo?" {
		t.Errorf("the first call's messages = %+v, want the system prompt and the message", m)
	}
	if tools := first.Request.Tools; len(tools) != 1 || tools[0].Name != "get_weather" {
		t.Errorf("the first call offered %+v, want get_weather", tools)
	}
	if r := first.Response; r == nil || r.Model != "gpt-test" || r.Provider != "openai" {
		t.Errorf("the first call's answer = %+v, want gpt-test from openai", r)
	}
	// The calls after it, recorded as what was new in their requests, are
	// listed with the whole of them.
	for _, i := range []int{3, 4} {
		rec := turns[0].Entries[i].Call.Record
		m := rec.Request.Messages
		if len(m) != 4 || m[0].Content != "You answer about the weather." || len(m[2].ToolCalls) != 1 || m[3].Content != `"sunny in Oslo"` {
			t.Errorf("call %d lists the messages %+v, want the system prompt, the message, the tool call and its result", i, m)
		}
		if len(rec.Request.Tools) != 1 || rec.Request.Tools[0].Name != "get_weather" {
			t.Errorf("call %d lists the tools %+v, want get_weather", i, rec.Request.Tools)
		}
	}

	latency := func(turn calls.Turn) float64 {
		sum := 0.0
		for _, e := range turn.Entries {
			if e.Call != nil {
				if e.Call.Record.LatencyMS <= 0 {
					t.Errorf("call %d has no latency", e.Call.Node)
				}
				sum += e.Call.Record.LatencyMS
			}
		}
		return sum
	}
	wantTurns := []calls.Totals{
		{Calls: 3, Refused: 1, TokensIn: 47, TokensOut: 7, LatencyMS: latency(turns[0])},
		{Calls: 1, Failed: 1, LatencyMS: latency(turns[1])},
		{Calls: 1, TokensIn: 7, TokensOut: 1, LatencyMS: latency(turns[2])},
	}
	var wantConv calls.Totals
	for i, want := range wantTurns {
		if got := turns[i].Totals; got != want {
			t.Errorf("turn %d totals = %+v, want %+v", i+1, got, want)
		}
		wantConv.Calls += want.Calls
		wantConv.Failed += want.Failed
		wantConv.Refused += want.Refused
		wantConv.TokensIn += want.TokensIn
		wantConv.TokensOut += want.TokensOut
		wantConv.LatencyMS += want.LatencyMS
	}
	if dc.Totals != wantConv || d.Totals != wantConv {
		t.Errorf("conversation totals = %+v, page totals %+v; want %+v", dc.Totals, d.Totals, wantConv)
	}

	t.Run("failed and retried only", func(t *testing.T) {
		d, err := book.List(t.Context(), "me", calls.Filter{Conversation: conv.ID, Trouble: true})
		if err != nil {
			t.Fatal(err)
		}
		turns := d.Conversations[0].Turns
		if len(turns) != 2 {
			t.Fatalf("%d turns shown, want the two with trouble", len(turns))
		}
		sameLines(t, "the first turn", entries(turns[0]), []string{
			`call attempt 1 "Sunny!" 17/2 refused by no-shouting: the answer shouts`,
			`call attempt 2 "Sunny." 19/2 after no-shouting`,
		})
		sameLines(t, "the second turn", entries(turns[1]), []string{
			"call attempt 1 failed",
			"log WARN turn failed err=" + turns[1].Entries[0].Call.Record.Error,
		})
		if d.Conversations[0].Totals != wantConv {
			t.Errorf("filtered totals = %+v, want every call counted: %+v", d.Conversations[0].Totals, wantConv)
		}
	})

	t.Run("the session's conversations", func(t *testing.T) {
		other, err := svc.Create(t.Context(), "me", "forecaster")
		if err != nil {
			t.Fatal(err)
		}
		d, err := book.List(t.Context(), "me", calls.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Conversations) != 2 || d.Conversations[0].Conversation.ID != other.ID || d.Conversations[1].Conversation.ID != conv.ID {
			t.Errorf("the session's listing has %d conversations, want the new one first, then the first", len(d.Conversations))
		}
		if len(d.All) != 2 || d.Totals != wantConv {
			t.Errorf("all = %d conversations, totals %+v; want 2 and %+v", len(d.All), d.Totals, wantConv)
		}
	})
}

// Another session sees none of a session's calls, and cannot follow them.
func TestAnotherSessionSeesNoneOfTheCalls(t *testing.T) {
	_, book, conv := forecastConversation(t)
	d, err := book.List(t.Context(), "intruder", calls.Filter{})
	if err != nil || len(d.Conversations) != 0 || len(d.All) != 0 {
		t.Errorf("another session's listing = %+v, %v; want nothing", d, err)
	}
	if _, err := book.List(t.Context(), "intruder", calls.Filter{Conversation: conv.ID}); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session's listing of the conversation: %v, want NotFound", err)
	}
	if _, err := book.Watch(t.Context(), "intruder", calls.Filter{Conversation: conv.ID}); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session following the conversation: %v, want NotFound", err)
	}
}

// waitCalls waits for the change that brings the watch's page to n model
// calls.
func waitCalls(t *testing.T, w *calls.Watch, n int) calls.Change {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		if err := w.Wait(ctx); err != nil {
			t.Fatalf("no change to %d calls: %v", n, err)
		}
		ch, err := w.Changes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Totals.Calls >= n {
			return ch
		}
	}
}

// A calls page is told of each call its session's conversations record,
// as the turns that changed; another session's page is told nothing.
func TestAWatchFollowsItsSessionsCalls(t *testing.T) {
	svc, book := newService(t, offline.New())
	conv, err := svc.Create(t.Context(), "me", "concierge")
	if err != nil {
		t.Fatal(err)
	}
	w, err := book.Watch(t.Context(), "me", calls.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	other, err := book.Watch(t.Context(), "someone else", calls.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, w := range []*calls.Watch{w, other} {
		if ch, err := w.Changes(t.Context()); err != nil || ch.Full == nil {
			t.Fatalf("first changes = %+v, %v; want the whole page", ch, err)
		}
	}

	if err := svc.Send(t.Context(), "me", conv.ID, "Plan a trip to Oslo"); err != nil {
		t.Fatal(err)
	}
	ch := waitCalls(t, w, 1)
	if len(ch.Conversations) != 1 || ch.Conversations[0].Conversation.Conversation.ID != conv.ID {
		t.Fatalf("change = %+v, want the conversation", ch)
	}
	cc := ch.Conversations[0]
	if !cc.Whole || len(cc.Conversation.Turns) != 1 || ch.Totals.Calls != 1 {
		t.Errorf("the first call: whole %v, %d turns, %d calls; want the conversation drawn whole with its first turn and call", cc.Whole, len(cc.Conversation.Turns), ch.Totals.Calls)
	}

	v := waitView(t, svc, "me", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Answer(t.Context(), "me", conv.ID, pendingElicit(v).Request.ID, chat.Answer{Action: elicit.Accept,
		Content: []byte(`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":false}`)}); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	ch = waitCalls(t, w, 2)
	if cc := ch.Conversations[0]; cc.Whole || len(cc.Changed) != 1 || cc.Changed[0] != 0 || len(cc.Added) != 0 {
		t.Errorf("the second call: %+v, want the first turn drawn again", cc)
	}

	if err := svc.Send(t.Context(), "me", conv.ID, "Plan a trip to Riga"); err != nil {
		t.Fatal(err)
	}
	ch = waitCalls(t, w, 3)
	if cc := ch.Conversations[0]; cc.Whole || len(cc.Added) != 1 || cc.Added[0] != 1 {
		t.Errorf("a call of a new turn: %+v, want the turn added", cc)
	}

	if ch, err := other.Changes(t.Context()); err != nil || !ch.Empty() {
		t.Errorf("another session's page was told %+v, %v; want nothing", ch, err)
	}
}

// A calls page keeps following its session's conversations when the
// session is rotated (a conversation started in another tab): their calls
// still reach it, read as the new session's.
func TestAWatchFollowsItsSessionWhenItIsRotated(t *testing.T) {
	svc, book := newService(t, offline.New())
	const client = "192.0.2.7"
	first, err := svc.RotateSession(t.Context(), "", client)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := svc.Create(t.Context(), first, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	w, err := book.Watch(t.Context(), first, calls.Filter{Conversation: conv.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if ch, err := w.Changes(t.Context()); err != nil || ch.Full == nil {
		t.Fatalf("first changes = %+v, %v; want the whole page", ch, err)
	}

	next, err := svc.RotateSession(t.Context(), first, client)
	if err != nil || next == first {
		t.Fatalf("rotated to %q, %v; want a new session", next, err)
	}
	if err := svc.Send(t.Context(), next, conv.ID, "Plan a trip to Oslo"); err != nil {
		t.Fatal(err)
	}
	ch := waitCalls(t, w, 1)
	if ch.Full != nil || len(ch.Conversations) != 1 || ch.Conversations[0].Conversation.Conversation.ID != conv.ID {
		t.Errorf("change after the rotation = %+v, want the conversation's first call as a change of it", ch)
	}
}

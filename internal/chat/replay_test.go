package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// server is one run of the service on a database file; restart simulates the
// process ending with a turn suspended and a new one starting.
type server struct {
	t    *testing.T
	path string
	reg  *registry.Assistants
	llm  llm.Provider
	svc  *chat.Service
	db   *store.DB
	// scope is the program's root scope for every turn (Config.Scope).
	scope func(context.Context) context.Context
	// kinds are the program's kinds besides the demo's (Config.Kinds).
	kinds []elicit.Registered
}

func startServer(t *testing.T, reg *registry.Assistants, model llm.Provider) *server {
	s := &server{t: t, path: filepath.Join(t.TempDir(), "replay.db"), reg: reg, llm: model}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *server) start() {
	db := storetest.OpenAt(s.t, s.path)
	_, isOffline := s.llm.(*offline.Provider)
	s.db, s.svc = db, chat.New(chat.Config{Store: db, Assistants: s.reg, Model: s.llm, Kinds: kindset.New(append(demo.Kinds(), s.kinds...)...), DecideByRule: isOffline, Scope: s.scope})
}

func (s *server) stop() {
	if s.svc != nil {
		s.svc.Close()
		s.db.Close()
		s.svc, s.db = nil, nil
	}
}

func (s *server) restart() { s.stop(); s.start() }

func (s *server) nodes(conv string, kind tree.Kind) []tree.Node {
	all, err := s.db.Nodes(s.t.Context(), conv)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []tree.Node
	for _, n := range all {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// samples returns the records of conv's model calls, oldest first, each
// with its whole request rebuilt (tree.Requests).
func (s *server) samples(conv string) []tree.SampleRecord {
	all, err := s.db.Nodes(s.t.Context(), conv)
	if err != nil {
		s.t.Fatal(err)
	}
	path := tree.Path(all) // ids increase, as along a path
	var reqs tree.Requests
	var out []tree.SampleRecord
	for _, n := range all {
		if n.Kind == tree.Sample {
			rec, err := reqs.Whole(n, path.Node)
			if err != nil {
				s.t.Fatal(err)
			}
			out = append(out, rec)
		}
	}
	return out
}

func accept(content string) chat.Answer {
	return chat.Answer{Action: elicit.Accept, Content: json.RawMessage(content)}
}

func TestSuspendedQuestionSurvivesARestart(t *testing.T) {
	s := startServer(t, registry.New(demo.Agents(demo.Options{})...), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "survey")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "3"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "question 1", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := s.svc.Answer(t.Context(), "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"answer":"one"}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "question 2", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && strings.HasPrefix(e.Request.Message, "Question 2")
	})
	q2 := pendingElicit(v).Request.ID

	s.restart()

	v, err := s.svc.View(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e := pendingElicit(v); e == nil || e.Request.ID != q2 {
		t.Fatalf("after the restart the pending question is %+v, want %s still pending", e, q2)
	}
	if err := s.svc.Answer(t.Context(), "me", conv.ID, q2, accept(`{"answer":"two"}`)); err != nil {
		t.Fatalf("answering the resumed question: %v", err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "question 3", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && strings.HasPrefix(e.Request.Message, "Question 3")
	})
	if err := s.svc.Answer(t.Context(), "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"answer":"three"}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the end", func(v pageview.View) bool { return !v.Status.Running })
	if got := lastItem(v).Text; got != "Thanks — all 3 answers recorded." {
		t.Errorf("reply = %q", got)
	}
	if n := len(s.nodes(conv.ID, tree.ElicitRequest)); n != 3 {
		t.Errorf("%d questions recorded, want 3: the replay must not ask again", n)
	}
}

// oneTimeTool counts how often its body really runs.
var (
	sideEffects atomic.Int32
	booking     = agents.New("booking", "Books things")
	book        = agents.NewTool(booking, "book", "Makes a booking", func(ctx context.Context, in struct {
		What string `json:"what"`
	}) (string, error) {
		sideEffects.Add(1)
		return "booking-" + in.What, nil
	})
)

func bookingAgent(question func() string) agents.Assistant {
	return agents.Assistant{Name: "booker", Turn: func(ctx context.Context, msg string) (string, error) {
		ref, err := book.Call(ctx, struct {
			What string `json:"what"`
		}{msg})
		if err != nil {
			return "", err
		}
		out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Summarize " + ref}}})
		if err != nil {
			return "", err
		}
		res, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), question(), struct{}{})
		if err != nil {
			return "", err
		}
		return ref + " / " + out.Content + " / " + string(res.Action), nil
	}}
}

func TestResumedTurnRunsNothingTwice(t *testing.T) {
	sideEffects.Store(0)
	fake := llmtest.NewServer(t, llmtest.Text("a fine booking")) // a second model call would find no reply
	model := openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"})
	s := startServer(t, registry.New(bookingAgent(func() string { return "Confirm?" })), model)
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "hotel"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	s.restart()
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if got, want := lastItem(v).Text, "booking-hotel / a fine booking / accept"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	if n := sideEffects.Load(); n != 1 {
		t.Errorf("the tool's body ran %d times, want once", n)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("the model was called %d times, want once", n)
	}
	if n := len(s.nodes(conv.ID, tree.ToolCall)); n != 1 {
		t.Errorf("%d tool calls recorded, want 1", n)
	}
}

func TestReplayThatDivergesFailsLoudly(t *testing.T) {
	question := "Confirm?"
	fake := llmtest.NewServer(t, llmtest.Text("ok"))
	model := openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"})
	s := startServer(t, registry.New(bookingAgent(func() string { return question })), model)
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "car"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	question = "Are you really sure?" // the agent's code changed while the turn was suspended
	s.restart()
	v = waitView(t, s.svc, "me", conv.ID, "the turn to fail", func(v pageview.View) bool { return !v.Status.Running })
	it := lastItem(v)
	if it.Kind != tree.TurnError || it.Text != words.DivergedText || !it.Diverged || !strings.Contains(it.Details, "replay diverged at call "+eid) ||
		!strings.Contains(it.Details, `elicit form "Confirm?"`) || !strings.Contains(it.Details, `"Are you really sure?"`) {
		t.Errorf("last item = %+v, want a short sentence, with details naming call %s and both calls", it, eid)
	}
}

func TestResumedTurnReadsTheSameTimeAndChance(t *testing.T) {
	var seen []string
	dice := agents.Assistant{Name: "dice", Turn: func(ctx context.Context, msg string) (string, error) {
		roll := turn.Random(ctx) % 6
		at := turn.Now(ctx).UnixNano()
		seen = append(seen, fmt.Sprint(roll, at))
		if _, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Keep it?", struct{}{}); err != nil {
			return "", err
		}
		return fmt.Sprint(roll, at), nil
	}}
	s := startServer(t, registry.New(dice), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "roll"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	s.restart()
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if len(seen) != 2 || seen[0] != seen[1] || lastItem(v).Text != seen[0] {
		t.Errorf("first run saw %v; the resumed run must see the same, and reply with it (got %q)", seen, lastItem(v).Text)
	}
}

// toolModel calls the tool "book" until it has the tool's result, then
// answers in words; it counts its calls.
type toolModel struct{ calls atomic.Int32 }

func (*toolModel) Name() string { return "tool-model" }

func (m *toolModel) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	m.calls.Add(1)
	if last := req.Messages[len(req.Messages)-1]; last.Role == llm.Tool {
		return llm.Response{Content: "Booked: " + last.Content, FinishReason: "stop"}, nil
	}
	return llm.Response{FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "book", Arguments: `{"flight":"SK 4035"}`}}}, nil
}

func TestALoopWaitingInAToolSurvivesARestartAndFinishesOnce(t *testing.T) {
	type flight struct {
		Flight string `json:"flight"`
	}
	var bookings atomic.Int32
	travel := agents.New("travel", "Books flights")
	agents.NewTool(travel, "book", "Book a flight", func(ctx context.Context, in flight) (string, error) {
		ok, err := turn.Ask(ctx, elicit.Confirm, "Book "+in.Flight+"?", elicit.ConfirmInput{})
		if err != nil {
			return "", err
		}
		if !ok.Content.Yes {
			return "not booked", nil
		}
		bookings.Add(1) // the effect, after every recorded question
		return "booked " + in.Flight, nil
	})
	loop := agents.Loop{System: "You book flights.", Agents: []*agents.Agent{travel}}
	model := &toolModel{}
	s := startServer(t, registry.New(agents.Assistant{Name: "booker", Turn: loop.Turn}), model)
	conv, _ := s.svc.Create(t.Context(), "me", "booker")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "Book SK 4035"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the tool's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	s.restart()
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.AssistantMessage || it.Text != `Booked: "booked SK 4035"` {
		t.Fatalf("last item %+v, want the loop's answer from the tool's result", it)
	}
	if n := bookings.Load(); n != 1 {
		t.Fatalf("booked %d times, want once", n)
	}
	if n := model.calls.Load(); n != 2 {
		t.Fatalf("the model was called %d times, want 2: the replay answers the first from the record", n)
	}
	if got := len(s.nodes(conv.ID, tree.Sample)); got != 2 {
		t.Fatalf("%d model calls recorded, want 2", got)
	}
	if got := len(s.nodes(conv.ID, tree.ToolCall)); got != 1 {
		t.Fatalf("%d tool calls recorded, want 1", got)
	}
}

// countingModel answers "maybe" to its first call and "yes" to the others,
// counting them.
type countingModel struct{ calls atomic.Int32 }

func (*countingModel) Name() string { return "counting" }

func (m *countingModel) Complete(context.Context, llm.Request, func(string)) (llm.Response, error) {
	if m.calls.Add(1) == 1 {
		return llm.Response{Content: "maybe"}, nil
	}
	return llm.Response{Content: "yes"}, nil
}

func TestRefusedAttemptsAreRecordedAndReplayedAfterARestart(t *testing.T) {
	sure := func(ctx context.Context) context.Context {
		return middleware.SampleConfidence.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
			return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
				if s.Response.Content != "yes" {
					return s, middleware.Retry("sure-or-nothing", "the answer hedges")
				}
				return next(ctx, s)
			}
		}, middleware.Min)
	}
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		if err != nil {
			return "", err
		}
		ok, err := turn.Ask(ctx, elicit.Confirm, "The model says "+resp.Content+". Fine?", elicit.ConfirmInput{})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s, and you said %v", resp.Content, ok.Content.Yes), nil
	}}
	model := &countingModel{}
	s := startServer(t, registry.New(asker), model)
	s.stop()
	start := func() {
		db := storetest.OpenAt(s.t, s.path)
		s.db, s.svc = db, chat.New(chat.Config{Store: db, Assistants: s.reg, Model: s.llm, Scope: sure})
	}
	start()
	conv, _ := s.svc.Create(t.Context(), "me", "asker")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "sure?"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if msg := pendingElicit(v).Request.Message; msg != "The model says yes. Fine?" {
		t.Fatalf("asked %q, want the second attempt's answer", msg)
	}
	retries := s.nodes(conv.ID, tree.SampleRetry)
	if len(retries) != 1 {
		t.Fatalf("%d refusals recorded, want 1", len(retries))
	}
	if note, _ := tree.Decode[primitive.RetryNote](retries[0]); note != (primitive.RetryNote{Attempt: 1, By: "sure-or-nothing", Reason: "the answer hedges"}) {
		t.Fatalf("recorded %+v", note)
	}

	eid := pendingElicit(v).Request.ID
	s.stop()
	start()
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Text != "yes, and you said true" {
		t.Fatalf("last item %+v", it)
	}
	if n := model.calls.Load(); n != 2 {
		t.Fatalf("the model was called %d times, want 2: the replay answers both attempts from the record", n)
	}
	if n := len(s.nodes(conv.ID, tree.SampleRetry)); n != 1 {
		t.Fatalf("%d refusals recorded after the replay, want still 1", n)
	}
}

// A scope can choose its own model: the turn's calls go to it, not to the
// service's.
func TestAScopeChoosesItsModel(t *testing.T) {
	own := &countingModel{}
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		resp, err := turn.Sample(middleware.Model.With(ctx, own), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		return resp.Content, err
	}}
	service := &countingModel{}
	s := startServer(t, registry.New(asker), service)
	conv, _ := s.svc.Create(t.Context(), "me", "asker")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if own.calls.Load() != 1 || service.calls.Load() != 0 {
		t.Fatalf("the scope's model got %d calls and the service's %d; want 1 and 0", own.calls.Load(), service.calls.Load())
	}
}

// The general assistant, against the OpenAI wire: the model asks the user
// through ask_user, the question is a form on the page, and the answer goes
// back to the model, which replies.
func TestTheAssistantAsksTheUserThroughAskUser(t *testing.T) {
	fake := llmtest.NewServer(t,
		llmtest.Call(agents.AskUserTool, `{"question":"Which city?","kind":"form","fields":[{"name":"city","label":"City","type":"string"}]}`),
		llmtest.Text("Lovely, ", "Porto it is."))
	s := startServer(t, registry.New(demo.Agents(demo.Options{AssistantFirst: true})...), openai.New(openai.Config{APIKey: "test", BaseURL: fake.URL, Model: "gpt-test"}))
	conv, err := s.svc.Create(t.Context(), "me", "assistant")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Send(t.Context(), "me", conv.ID, "Plan me a weekend"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the model's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	q := pendingElicit(v)
	if q.Request.Message != "Which city?" || q.Request.Schema.Properties["city"] == nil {
		t.Fatalf("asked %+v", q.Request)
	}
	if err := s.svc.Answer(t.Context(), "me", conv.ID, q.Request.ID, accept(`{"city":"Porto"}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Text != "Lovely, Porto it is." {
		t.Fatalf("last item %+v", it)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1]; got.Role != "tool" || !strings.Contains(got.Content, `"city":"Porto"`) {
		t.Fatalf("the model was told %+v, want the user's answer as the tool's result", got)
	}
	if len(reqs[0].Tools) == 0 || !reqs[0].Stream {
		t.Fatalf("the first request offered %d tools, streamed %v; want tools and a streamed reply", len(reqs[0].Tools), reqs[0].Stream)
	}
}

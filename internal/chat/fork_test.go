package chat_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

var keepIt = elicit.Form[struct {
	OK bool `json:"ok"`
}]()

// tryer is an assistant that plans a trip: it adds each message to its
// plan, then tries a cheaper flight on a child branch (a tool, counted,
// adds it to the plan, and the user is asked whether to keep it), and
// keeps it or goes back as the user says. A message that starts "check"
// asks once more after the decision, so that a turn can wait past it.
// The reply is the plan.
func tryer(runs *atomic.Int32) *registry.Assistants { return tryerOf(runs, "a cheaper flight") }

// tryerOf is tryer trying what label says.
func tryerOf(runs *atomic.Int32, label string) *registry.Assistants {
	agent := agents.New("trips", "Plans trips.")
	plan := agents.NewState(agent, "plan", []string{})
	cheaper := agents.NewTool(agent, "cheaper", "Find a cheaper flight", func(ctx context.Context, _ struct{}) (string, error) {
		runs.Add(1)
		return "SK99", plan.Update(ctx, func(p *[]string) error { *p = append(*p, "SK99"); return nil })
	})
	return registry.New(agents.Assistant{Name: "trips", Description: "Plans trips.", Turn: func(ctx context.Context, message string) (string, error) {
		if err := plan.Update(ctx, func(p *[]string) error { *p = append(*p, message); return nil }); err != nil {
			return "", err
		}
		tried, err := agents.Fork(ctx, label, func(ctx context.Context) (bool, error) {
			flight, err := cheaper.Call(ctx, struct{}{})
			if err != nil {
				return false, err
			}
			got, err := turn.Ask(ctx, keepIt, "Keep "+flight+"?", struct{}{})
			return got.Content.OK, err
		})
		if err != nil {
			return "", err
		}
		if tried.Value {
			err = tried.Forward(ctx)
		} else {
			err = tried.Back(ctx)
		}
		if err != nil {
			return "", err
		}
		p, err := plan.Get(ctx)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(message, "check") {
			if _, err := turn.Ask(ctx, keepIt, "Is "+strings.Join(p, ", ")+" right?", struct{}{}); err != nil {
				return "", err
			}
		}
		return strings.Join(p, ", "), nil
	}})
}

// waitQuestion waits for the question conv waits on and checks its words.
func waitQuestion(t *testing.T, s *server, conv, want string) elicit.Request {
	t.Helper()
	v := waitView(t, s.svc, "me", conv, "the question "+want, func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Message == want
	})
	return pendingElicit(v).Request
}

// Kept, a tried block's work and state are the flow's; gone back from,
// the flow goes on from where the block began, with the state as it was
// there, while the tried branch stays in the tree, closed, named by a
// "back" entry of the reflog, and recoverable.
func TestATriedBlockIsKeptOrGoneBackFrom(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, tryer(&runs), offline.New())
	c, err := s.svc.Create(t.Context(), "me", "trips")
	if err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, "Oslo")
	q := waitQuestion(t, s, c.ID, "Keep SK99?")
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "Oslo, SK99" {
		t.Fatalf("kept, the plan is %q; want the tried block's change in it", got)
	}

	s.send("me", c.ID, "Rome")
	q = waitQuestion(t, s, c.ID, "Keep SK99?")
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":false}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "Oslo, SK99, Rome" {
		t.Fatalf("gone back, the plan is %q; want it as it was where the block began", got)
	}
	v, err := s.svc.View(t.Context(), "me", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.Request.ID == q.ID {
			t.Errorf("the question of the block gone back from is still shown on the flow")
		}
	}
	if !hasItem(v, tree.ForkEnd, "Tried a cheaper flight, then went back.") || !hasItem(v, tree.ForkEnd, "Tried a cheaper flight and kept it.") {
		t.Errorf("the flow does not say what was tried and decided: %+v", v.Items)
	}

	ends := s.nodes(c.ID, tree.ForkEnd)
	if len(ends) != 2 {
		t.Fatalf("%d decisions recorded, want 2", len(ends))
	}
	back, _ := tree.Decode[tree.ForkEndRecord](ends[1])
	fork := s.node(c.ID, back.Fork)
	if back.Forward || fork.Kind != tree.Fork || ends[1].Parent != fork.Parent {
		t.Fatalf("the going back is %+v beside %+v; want it beside its fork", ends[1], fork)
	}
	closed := s.node(c.ID, s.reflogPrev(c.ID, tree.ActBack))
	if m, _ := tree.Decode[tree.Message](closed); closed.Kind != tree.Stopped || m.Text != "Went back from trying a cheaper flight." {
		t.Fatalf("the reflog's back entry leaves %+v; want the tried branch's closing stop", closed)
	}

	// Recovered, the tried branch is as it was left: its question
	// answered, its plan with the cheaper flight, and nothing runs again.
	if err := s.svc.Recover(t.Context(), "me", c.ID, s.reflogEntry(c.ID, fork.ID)); err != nil {
		t.Fatal(err)
	}
	v, err = s.svc.View(t.Context(), "me", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status.Running || lastItem(v).Kind != tree.Stopped {
		t.Fatalf("recovered, the tried branch ends with %+v (running %v); want its closing stop, nothing resumed", lastItem(v), v.Status.Running)
	}
	s.send("me", c.ID, "Faro")
	q = waitQuestion(t, s, c.ID, "Keep SK99?")
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":false}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "Oslo, SK99, Rome, SK99, Faro" {
		t.Errorf("on the recovered tried branch the plan reads %q; want that branch's", got)
	}
	if got := runs.Load(); got != 3 {
		t.Errorf("the tool ran %d times, want 3 (once a try)", got)
	}
}

// A turn that waits after going back, across a restart, replays the tried
// block from the tried branch's record (its tool not run again, its
// question not asked again), takes the same decision without recording it
// again, and reads the state as it was before the block.
func TestATurnThatWentBackReplaysTheTriedBlock(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, tryer(&runs), offline.New())
	c, err := s.svc.Create(t.Context(), "me", "trips")
	if err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, "check Oslo")
	q := waitQuestion(t, s, c.ID, "Keep SK99?")
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":false}`)); err != nil {
		t.Fatal(err)
	}
	last := waitQuestion(t, s, c.ID, "Is check Oslo right?")
	before := len(s.all(c.ID))

	s.restart()
	if err := s.svc.Answer(t.Context(), "me", c.ID, last.ID, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "check Oslo" {
		t.Errorf("the resumed turn's plan is %q; want it without the tried block's change", got)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("the tool ran %d times, want once: the replay finds it on the tried branch", got)
	}
	if got := len(s.all(c.ID)); got != before+2 { // the answer and the reply
		t.Errorf("%d nodes recorded by the resumed turn, want 2: nothing of the block again", got-before)
	}
}

// A block that waits on a question when the server dies waits there
// again: the answer finishes the turn once, on the child branch.
func TestATriedBlockWaitingOnAQuestionSurvivesARestart(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, tryer(&runs), offline.New())
	c, err := s.svc.Create(t.Context(), "me", "trips")
	if err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, "Oslo")
	q := waitQuestion(t, s, c.ID, "Keep SK99?")

	s.restart()
	if got := waitQuestion(t, s, c.ID, "Keep SK99?"); got.ID != q.ID {
		t.Fatalf("after the restart the block waits on %s, want %s", got.ID, q.ID)
	}
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "Oslo, SK99" {
		t.Errorf("the plan is %q, want the kept block's", got)
	}
	if runs.Load() != 1 || len(s.nodes(c.ID, tree.Fork)) != 1 || len(s.nodes(c.ID, tree.ForkEnd)) != 1 {
		t.Errorf("tool runs %d, forks %d, decisions %d; want one each", runs.Load(), len(s.nodes(c.ID, tree.Fork)), len(s.nodes(c.ID, tree.ForkEnd)))
	}
}

// The check before a deploy replays a turn that went back as the turn
// will: through the tried block, from the tried branch's record, to the
// question it waits on; code that tries something else diverges there.
func TestTheCheckReplaysATriedBlock(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, tryer(&runs), offline.New())
	c, err := s.svc.Create(t.Context(), "me", "trips")
	if err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, "check Oslo")
	q := waitQuestion(t, s, c.ID, "Keep SK99?")
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":false}`)); err != nil {
		t.Fatal(err)
	}
	waitQuestion(t, s, c.ID, "Is check Oslo right?")
	if got := checkWith(t, s, tryer(&runs)); got.Turns != 1 || len(got.Diverged) != 0 {
		t.Errorf("unchanged code: %+v, want the turn to resume", got)
	}
	if got := checkWith(t, s, tryerOf(&runs, "a later train")); len(got.Diverged) != 1 || !strings.Contains(got.Diverged[0].Made, "a later train") {
		t.Errorf("code trying something else: %+v, want it to diverge at the fork", got)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("the tool ran %d times, want once: never in the check", got)
	}
}

func hasItem(v pageview.View, kind tree.Kind, text string) bool {
	for _, it := range v.Items {
		if it.Kind == kind && it.Text == text {
			return true
		}
	}
	return false
}

func (s *server) all(conv string) []tree.Node {
	s.t.Helper()
	all, err := s.db.Nodes(s.t.Context(), conv)
	if err != nil {
		s.t.Fatal(err)
	}
	return all
}

func (s *server) node(conv string, id int64) tree.Node {
	s.t.Helper()
	for _, n := range s.all(conv) {
		if n.ID == id {
			return n
		}
	}
	s.t.Fatalf("no node %d", id)
	return tree.Node{}
}

// reflogPrev returns the HEAD the last entry of action a moved from.
func (s *server) reflogPrev(conv string, a tree.Action) int64 {
	s.t.Helper()
	entries, err := s.db.Reflog(s.t.Context(), conv)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, e := range slices.Backward(entries) {
		if e.Action == a {
			return e.Prev
		}
	}
	s.t.Fatalf("no reflog entry %s", a)
	return 0
}

// A tool that tried a block and went back is, once finished, not run again
// on replay: the turn still reads the state as the going back left it,
// known from the record.
func TestAFinishedToolThatWentBackIsReplayedAsItsRecord(t *testing.T) {
	var runs atomic.Int32
	agent := agents.New("trips", "Plans trips.")
	plan := agents.NewState(agent, "plan", "economy")
	upgrade := agents.NewTool(agent, "upgrade", "Try an upgrade", func(ctx context.Context, _ struct{}) (bool, error) {
		runs.Add(1)
		tried, err := agents.Fork(ctx, "business class", func(ctx context.Context) (bool, error) {
			return false, plan.Set(ctx, "business")
		})
		if err != nil {
			return false, err
		}
		return false, tried.Back(ctx)
	})
	reg := registry.New(agents.Assistant{Name: "trips", Description: "Plans trips.", Turn: func(ctx context.Context, message string) (string, error) {
		if _, err := upgrade.Call(ctx, struct{}{}); err != nil {
			return "", err
		}
		p, err := plan.Get(ctx)
		if err != nil {
			return "", err
		}
		if _, err := turn.Ask(ctx, keepIt, "Fly "+p+"?", struct{}{}); err != nil {
			return "", err
		}
		p, err = plan.Get(ctx)
		return p, err
	}})
	s := startServer(t, reg, offline.New())
	c, err := s.svc.Create(t.Context(), "me", "trips")
	if err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, "Oslo")
	q := waitQuestion(t, s, c.ID, "Fly economy?")
	s.restart()
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "economy" {
		t.Errorf("after the replay the plan reads %q, want the state the going back left", got)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("the tool ran %d times, want once", got)
	}
}

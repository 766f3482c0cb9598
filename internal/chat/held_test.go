package chat_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// An answer is handed to its turn before it is written, and written with
// what the turn records next. These tests hold the service to what that
// must not change: an answer the user was told was accepted is on disk,
// whatever the turn does next.

// writeCounter is the real store, counting the commits that record nodes
// and failing those that fail says to.
type writeCounter struct {
	*store.DB
	mu      sync.Mutex
	commits int
	fail    func(nodes []tree.Node) bool
}

func (w *writeCounter) count(nodes []tree.Node) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil && w.fail(nodes) {
		return errors.New("disk says no")
	}
	w.commits++
	return nil
}

func (w *writeCounter) Append(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	if err := w.count([]tree.Node{n}); err != nil {
		return tree.Node{}, err
	}
	return w.DB.Append(ctx, n, opts)
}

func (w *writeCounter) AppendChain(ctx context.Context, nodes []tree.Node) ([]tree.Node, error) {
	if err := w.count(nodes); err != nil {
		return nil, err
	}
	return w.DB.AppendChain(ctx, nodes)
}

func (w *writeCounter) reset() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.commits
	w.commits = 0
	return n
}

// patientHold is an answer hold for tests that count commits: long enough
// that a turn slowed down by the race detector on a busy machine still
// reaches its next record while the answer waits, as it does in far less
// than the default hold when nothing else runs.
const patientHold = time.Minute

// newCountedService starts a service configured by cfg on a fresh
// database, counted, which it sets as cfg's Store.
func newCountedService(t *testing.T, cfg chat.Config) (*chat.Service, *writeCounter) {
	t.Helper()
	svc, w, stop := openCountedService(t, filepath.Join(t.TempDir(), "held.db"), cfg)
	t.Cleanup(stop)
	return svc, w
}

// openCountedService starts a service configured by cfg on the database at
// path, counted, which it sets as cfg's Store. It returns the service with
// its counter and what stops both, which may be called twice.
func openCountedService(t *testing.T, path string, cfg chat.Config) (*chat.Service, *writeCounter, func()) {
	t.Helper()
	db := storetest.OpenAt(t, path)
	w := &writeCounter{DB: db}
	cfg.Store = w
	svc := chat.New(cfg)
	var once sync.Once
	return svc, w, func() { once.Do(func() { svc.Close(); db.Close() }) }
}

// answered returns the recorded answers to elicit eid.
func answered(t *testing.T, db *store.DB, conv, eid string) []tree.Node {
	t.Helper()
	nodes, err := db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []tree.Node
	for _, n := range nodes {
		if n.Kind == tree.ElicitResponse && n.Ref == eid {
			out = append(out, n)
		}
	}
	return out
}

// startSurvey starts the survey agent on n questions and returns the
// conversation and the first question's id.
func startSurvey(t *testing.T, svc *chat.Service, n string) (conv, eid string) {
	t.Helper()
	return startAsked(t, svc, "survey", n)
}

// startAsked starts a conversation with agent, sends it message and waits
// for its first question; it returns the conversation and the question's id.
func startAsked(t *testing.T, svc *chat.Service, agent, message string) (conv, eid string) {
	t.Helper()
	c, err := svc.Create(t.Context(), "me", agent)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", c.ID, message); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", c.ID, "the first question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	return c.ID, pendingElicit(v).Request.ID
}

func TestAResumeIsOneCommitAndTheAnswerIsOnDiskWhenAccepted(t *testing.T) {
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(demo.Survey()), Model: offline.New(), AnswerHold: patientHold})
	conv, first := startSurvey(t, svc, "3")
	w.reset()

	if err := svc.Answer(t.Context(), "me", conv, first, accept(`{"answer":"blue"}`)); err != nil {
		t.Fatal(err)
	}
	if got := answered(t, w.DB, conv, first); len(got) != 1 {
		t.Fatalf("Answer returned with %d answers on disk, want 1", len(got))
	}
	v := waitView(t, svc, "me", conv, "the second question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != first
	})
	if n := w.reset(); n != 1 {
		t.Errorf("the answer and the next question took %d commits, want 1", n)
	}
	// The page shows the first question answered and the second waiting.
	var answeredShown bool
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.Request.ID == first && it.Elicit.State == pageview.Answered {
			answeredShown = true
		}
	}
	if !answeredShown {
		t.Errorf("the first question is not shown answered: %+v", v.Items)
	}
}

func TestAnAnswerIsWrittenWhenTheTurnRecordsNothingSoon(t *testing.T) {
	release := make(chan struct{})
	thinker := agents.Assistant{
		Name: "thinker", Description: "Asks, then thinks without recording anything.",
		Turn: func(ctx context.Context, message string) (string, error) {
			if _, err := turn.Ask(ctx, benchForm, "What comes to mind?", struct{}{}); err != nil {
				return "", err
			}
			select { // plain Go, no primitive: nothing for the answer to ride with
			case <-release:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return "Done thinking.", nil
		},
	}
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(thinker), Model: offline.New()})
	conv, eid := startAsked(t, svc, "thinker", "go")

	if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"answer":"tea"}`)); err != nil {
		t.Fatal(err)
	}
	if got := answered(t, w.DB, conv, eid); len(got) != 1 {
		t.Fatalf("Answer returned with %d answers on disk while the turn thinks, want 1", len(got))
	}
	waitView(t, svc, "me", conv, "the question shown answered while the turn thinks", func(v pageview.View) bool {
		for _, it := range v.Items {
			if it.Elicit != nil && it.Elicit.Request.ID == eid {
				return it.Elicit.State == pageview.Answered
			}
		}
		return false
	})
	close(release)
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "Done thinking." })
}

// answerChecker is a model that, when called, notes whether the answer the
// call follows is on disk already.
type answerChecker struct {
	db        *store.DB
	conv, eid string
	mu        sync.Mutex
	onDisk    []bool
}

func (m *answerChecker) Name() string { return "checker" }

func (m *answerChecker) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	nodes, err := m.db.Nodes(ctx, m.conv)
	if err != nil {
		return llm.Response{}, err
	}
	found := false
	for _, n := range nodes {
		found = found || (n.Kind == tree.ElicitResponse && n.Ref == m.eid)
	}
	m.mu.Lock()
	m.onDisk = append(m.onDisk, found)
	m.mu.Unlock()
	return llm.Response{Content: "Noted."}, nil
}

func TestAnAnswerIsWrittenBeforeTheModelIsCalled(t *testing.T) {
	asker := agents.Assistant{
		Name: "asker", Description: "Asks, then has the model reply.",
		Turn: func(ctx context.Context, message string) (string, error) {
			if _, err := turn.Ask(ctx, benchForm, "What comes to mind?", struct{}{}); err != nil {
				return "", err
			}
			resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: message}}})
			return resp.Content, err
		},
	}
	model := &answerChecker{}
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(asker), Model: model})
	conv, eid := startAsked(t, svc, "asker", "go")
	model.db, model.conv, model.eid = w.DB, conv, eid

	if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"answer":"tea"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "Noted." })
	model.mu.Lock()
	defer model.mu.Unlock()
	if len(model.onDisk) != 1 || !model.onDisk[0] {
		t.Errorf("answer on disk when the model was called: %v, want [true]", model.onDisk)
	}
}

func TestAnAnswerWhoseSharedCommitFailsIsWrittenAlone(t *testing.T) {
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(demo.Survey()), Model: offline.New()})
	w.fail = func(nodes []tree.Node) bool { return len(nodes) > 1 } // every shared commit
	conv, first := startSurvey(t, svc, "2")

	if err := svc.Answer(t.Context(), "me", conv, first, accept(`{"answer":"blue"}`)); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv, "the second question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != first
	})
	if got := answered(t, w.DB, conv, first); len(got) != 1 {
		t.Errorf("%d answers recorded, want 1", len(got))
	}
	second := pendingElicit(v).Request.ID
	if err := svc.Answer(t.Context(), "me", conv, second, accept(`{"answer":"green"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return strings.HasPrefix(lastItem(v).Text, "Thanks") })
}

func TestAnAnswerThatCannotBeWrittenIsRefusedAndEndsTheTurn(t *testing.T) {
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(demo.Survey()), Model: offline.New()})
	conv, first := startSurvey(t, svc, "2")
	w.mu.Lock()
	w.fail = func(nodes []tree.Node) bool { return nodes[0].Kind == tree.ElicitResponse }
	w.mu.Unlock()

	err := svc.Answer(t.Context(), "me", conv, first, accept(`{"answer":"blue"}`))
	if err == nil {
		t.Fatal("Answer accepted an answer that was not written")
	}
	w.mu.Lock()
	w.fail = nil
	w.mu.Unlock()
	v := waitView(t, svc, "me", conv, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	if got := answered(t, w.DB, conv, first); len(got) != 0 {
		t.Errorf("%d answers recorded, want none", len(got))
	}
	if it := lastItem(v); it.Kind != tree.TurnError {
		t.Errorf("last item = %+v, want the turn's failure shown", it)
	}
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.Request.ID != first {
			t.Errorf("the turn went on to ask %q with its answer unrecorded", it.Elicit.Request.Message)
		}
	}
}

func TestAnAnswerIsWrittenBeforeAToolRuns(t *testing.T) {
	// The tool looks for the answer on disk, as a tool that books a flight
	// must be able to count on what it was asked to book being recorded.
	var db *store.DB
	var conv, eid string
	onDisk := make(chan bool, 1)
	booker := agents.New("booker", "Books what it was told to.")
	book := agents.NewTool(booker, "book", "Books it", func(ctx context.Context, what string) (string, error) {
		onDisk <- len(answered(t, db, conv, eid)) == 1
		return "booked " + what, nil
	})
	asker := agents.Assistant{
		Name: "asker", Description: "Asks, then calls a tool at once.",
		Turn: func(ctx context.Context, message string) (string, error) {
			res, err := turn.Ask(ctx, benchForm, "What shall I book?", struct{}{})
			if err != nil {
				return "", err
			}
			return book.Call(ctx, res.Content.Answer)
		},
	}
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(asker), Model: offline.New()})
	db = w.DB
	conv, eid = startAsked(t, svc, "asker", "go")

	if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"answer":"a flight"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "booked a flight" })
	if !<-onDisk {
		t.Error("the tool ran before the answer it follows was on disk")
	}
}

func TestTheFirstAnswerAfterARestartIsOneCommit(t *testing.T) {
	// The answer loads the conversation and reaches the turn before its
	// replay does: it still goes with the next question.
	path := filepath.Join(t.TempDir(), "restart.db")
	reg := registry.New(demo.Survey())
	svc, _, stop := openCountedService(t, path, chat.Config{Assistants: reg, Model: offline.New()})
	conv, first := startSurvey(t, svc, "3")
	if err := svc.Answer(t.Context(), "me", conv, first, accept(`{"answer":"blue"}`)); err != nil {
		t.Fatal(err)
	}
	second := pendingElicit(waitView(t, svc, "me", conv, "the second question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != first
	})).Request.ID
	stop()

	svc, w, stop := openCountedService(t, path, chat.Config{Assistants: reg, Model: offline.New(), AnswerHold: patientHold})
	defer stop()
	if err := svc.Answer(t.Context(), "me", conv, second, accept(`{"answer":"green"}`)); err != nil {
		t.Fatal(err)
	}
	if got := answered(t, w.DB, conv, second); len(got) != 1 {
		t.Fatalf("Answer returned with %d answers on disk, want 1", len(got))
	}
	third := pendingElicit(waitView(t, svc, "me", conv, "the third question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != second
	}))
	if n := w.reset(); n != 1 {
		t.Errorf("the answer and the next question took %d commits after a restart, want 1", n)
	}
	if got := third.Request.Message; !strings.HasPrefix(got, "Question 3 of 3") {
		t.Errorf("the question after the restart is %q, want the survey's third", got)
	}
}

package chat_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

// sleeper sleeps ten minutes when told "wait", then says when it woke;
// asked "ask", it asks a question that expires in five minutes.
var sleeper = agents.Assistant{Name: "sleeper", Turn: func(ctx context.Context, msg string) (string, error) {
	switch msg {
	case "wait":
		if err := turn.Sleep(ctx, 10*time.Minute); err != nil {
			return "", err
		}
		return "woke at " + turn.Now(ctx).UTC().Format(time.TimeOnly), nil
	case "ask":
		res, err := turn.Ask(turn.ExpiresIn(ctx, 5*time.Minute), elicit.Confirm, "Still there?", elicit.ConfirmInput{})
		if err != nil {
			return "", err
		}
		return "answer: " + string(res.Action), nil
	}
	return "said " + msg, nil
}}

// openClocked opens the database file at path and a service on it, both
// reading clk, with turns suspended as soon as nobody watches.
func openClocked(t *testing.T, path string, clk *clock) (*chat.Service, *store.DB) {
	t.Helper()
	db, err := store.Open(t.Context(), path, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(sleeper), Model: offline.New(), Now: clk.Now,
		SuspendAfter: new(time.Duration(0))})
	t.Cleanup(func() { svc.Close(); db.Close() })
	return svc, db
}

// fireDue fires what is due on svc's clock now.
func fireDue(t *testing.T, svc *chat.Service) {
	t.Helper()
	if _, err := svc.Timers().FireDue(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// responses are the recorded answers to the conversation's questions, by
// action.
func responses(t *testing.T, db *store.DB, conv string) map[elicit.Action]int {
	t.Helper()
	nodes, err := db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[elicit.Action]int{}
	for _, n := range nodes {
		if n.Kind == tree.ElicitResponse {
			r, _ := tree.Decode[elicit.Response](n)
			got[r.Action]++
		}
	}
	return got
}

// A durable sleep waits with nothing in memory, is not over before its
// time, ends once at it (the clock answers its wait Expired, recorded),
// and the turn goes on; no user can end it with an answer of their own.
func TestADurableSleepEndsOnceAtItsTime(t *testing.T) {
	start := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	clk := &clock{t: start}
	svc, db := openClocked(t, filepath.Join(t.TempDir(), "data", "t.db"), clk)
	conv, _ := svc.Create(t.Context(), "me", "sleeper")
	if err := svc.Send(t.Context(), "me", conv.ID, "wait"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the wait", func(v pageview.View) bool { return pendingElicit(v) != nil })
	w := pendingElicit(v)
	if w.Request.Kind != elicit.Wait.Name || w.Request.Expires == nil || !w.Request.Expires.Equal(start.Add(10*time.Minute)) {
		t.Fatalf("the wait shows as %+v, want a wait until %v", w.Request, start.Add(10*time.Minute))
	}
	for _, a := range []elicit.Action{elicit.Expired, elicit.Accept, elicit.Cancel} {
		err := svc.Answer(t.Context(), "me", conv.ID, w.Request.ID, chat.Answer{Action: a})
		if apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("a user's answer %q to a wait: %v, want it refused as invalid", a, err)
		}
	}

	clk.add(9 * time.Minute)
	fireDue(t, svc)
	if v, _ := svc.View(t.Context(), "me", conv.ID); pendingElicit(v) == nil {
		t.Fatal("the wait ended a minute early")
	}
	clk.add(time.Minute)
	fireDue(t, svc)
	v = waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; got != "woke at 09:10:00" {
		t.Errorf("reply = %q, want it woken at its time", got)
	}
	clk.add(time.Hour)
	fireDue(t, svc)
	if got := responses(t, db, conv.ID); got[elicit.Expired] != 1 || len(got) != 1 {
		t.Errorf("recorded answers = %v, want the wait ended once", got)
	}
	if left, _ := svc.Timers().Of(t.Context(), conv.ID); len(left) != 0 {
		t.Errorf("timers left after the wait: %v", left)
	}
}

// A sleep outlives the program: a service that starts after its time
// (another process, the first one gone) ends it at once, once.
func TestADurableSleepEndsAfterARestart(t *testing.T) {
	start := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "data", "t.db")
	clk := &clock{t: start}
	first, _ := openClocked(t, path, clk)
	conv, _ := first.Create(t.Context(), "me", "sleeper")
	if err := first.Send(t.Context(), "me", conv.ID, "wait"); err != nil {
		t.Fatal(err)
	}
	waitView(t, first, "me", conv.ID, "the wait", func(v pageview.View) bool { return pendingElicit(v) != nil })
	first.Close()

	clk.add(3 * time.Hour) // down past the time
	second, db := openClocked(t, path, clk)
	v := waitView(t, second, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; got != "woke at 12:00:00" {
		t.Errorf("reply = %q, want it woken at once, at the restart", got)
	}
	if got := responses(t, db, conv.ID); got[elicit.Expired] != 1 {
		t.Errorf("recorded answers = %v, want the wait ended once", got)
	}
}

// Stop ends a sleep and its timer; an edit to before it abandons it (its
// time comes and goes, nothing fires), and recovering its branch from the
// reflog brings it back, ending at once since its time has passed.
func TestAStoppedOrAbandonedSleepDoesNotFireAndTheReflogBringsItBack(t *testing.T) {
	start := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	clk := &clock{t: start}
	svc, db := openClocked(t, filepath.Join(t.TempDir(), "data", "t.db"), clk)

	stopped, _ := svc.Create(t.Context(), "me", "sleeper")
	if err := svc.Send(t.Context(), "me", stopped.ID, "wait"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", stopped.ID, "the wait", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Stop(t.Context(), "me", stopped.ID); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", stopped.ID, "the stop", func(v pageview.View) bool { return !v.Status.Running })
	if left, _ := svc.Timers().Of(t.Context(), stopped.ID); len(left) != 0 {
		t.Errorf("a stopped sleep left its timer: %v", left)
	}

	conv, _ := svc.Create(t.Context(), "me", "sleeper")
	if err := svc.Send(t.Context(), "me", conv.ID, "wait"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the wait", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Edit(t.Context(), "me", conv.ID, v.Items[0].ID, inbound.Message{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the edited reply", func(v pageview.View) bool { return lastItem(v).Text == "said hello" })
	clk.add(time.Hour)
	fireDue(t, svc)
	for _, id := range []string{stopped.ID, conv.ID} {
		if got := responses(t, db, id); got[elicit.Expired] != 0 {
			t.Errorf("conversation %s: a stopped or abandoned sleep fired: %v", id, got)
		}
	}
	if v, _ := svc.View(t.Context(), "me", conv.ID); lastItem(v).Text != "said hello" {
		t.Errorf("after the abandoned sleep's time the conversation shows %q", lastItem(v).Text)
	}

	reflog, err := db.Reflog(t.Context(), conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sent tree.RefEntry
	for _, e := range reflog {
		if e.Action != tree.ActEdit {
			sent = e
			break
		}
	}
	if err := svc.Recover(t.Context(), "me", conv.ID, sent.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the recovered sleep's end", func(v pageview.View) bool {
		return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage && lastItem(v).Text != "said hello"
	})
	if got := lastItem(v).Text; got != "woke at 10:00:00" {
		t.Errorf("the recovered branch replied %q, want it woken once recovered", got)
	}
}

// A question that expires is withdrawn at its time, and the asker hears
// Expired; answered before, its timer goes and it never expires.
func TestAQuestionExpiresAtItsTime(t *testing.T) {
	start := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	clk := &clock{t: start}
	svc, db := openClocked(t, filepath.Join(t.TempDir(), "data", "t.db"), clk)

	conv, _ := svc.Create(t.Context(), "me", "sleeper")
	if err := svc.Send(t.Context(), "me", conv.ID, "ask"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if e := pendingElicit(v).Request.Expires; e == nil || !e.Equal(start.Add(5*time.Minute)) {
		t.Fatalf("the question expires at %v, want %v", e, start.Add(5*time.Minute))
	}
	clk.add(5 * time.Minute)
	fireDue(t, svc)
	v = waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; got != "answer: expired" {
		t.Errorf("reply = %q, want the question expired", got)
	}

	answered, _ := svc.Create(t.Context(), "me", "sleeper")
	if err := svc.Send(t.Context(), "me", answered.ID, "ask"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", answered.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Answer(t.Context(), "me", answered.ID, pendingElicit(v).Request.ID, chat.Answer{Action: elicit.Decline}); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", answered.ID, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "answer: decline" })
	if left, _ := svc.Timers().Of(t.Context(), answered.ID); len(left) != 0 {
		t.Errorf("an answered question left its timer: %v", left)
	}
	clk.add(time.Hour)
	fireDue(t, svc)
	if got := responses(t, db, answered.ID); got[elicit.Expired] != 0 || got[elicit.Decline] != 1 {
		t.Errorf("recorded answers = %v, want the decline alone", got)
	}
}

// A turn past its assistant's deadline ends timed out, a stop told apart
// from the user's: the question it waited on is withdrawn, and the
// deadline holds while the turn is suspended and the program is down.
func TestATurnPastItsDeadlineEndsTimedOut(t *testing.T) {
	start := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "data", "t.db")
	clk := &clock{t: start}
	slow := agents.Assistant{Name: "slow", Deadline: 10 * time.Minute, Turn: func(ctx context.Context, msg string) (string, error) {
		res, err := turn.Ask(ctx, elicit.Confirm, "Shall I go on?", elicit.ConfirmInput{})
		if err != nil {
			return "", err
		}
		return "went on: " + string(res.Action), nil
	}}
	open := func() (*chat.Service, *store.DB) {
		db, err := store.Open(t.Context(), path, store.Options{Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		svc := chat.New(chat.Config{Store: db, Assistants: registry.New(slow), Model: offline.New(), Now: clk.Now, SuspendAfter: new(time.Duration(0))})
		t.Cleanup(func() { svc.Close(); db.Close() })
		return svc, db
	}
	first, _ := open()
	conv, _ := first.Create(t.Context(), "me", "slow")
	if err := first.Send(t.Context(), "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	asked := waitView(t, first, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(asked).Request.ID
	clk.add(9 * time.Minute)
	fireDue(t, first)
	if v, _ := first.View(t.Context(), "me", conv.ID); pendingElicit(v) == nil || !v.Status.Running {
		t.Fatal("the turn ended before its deadline")
	}
	first.Close()

	clk.add(5 * time.Minute) // the deadline passes while the program is down
	second, db := open()
	v := waitView(t, second, "me", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.Stopped })
	if pendingElicit(v) != nil {
		t.Error("the timed-out turn's question still waits")
	}
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	var ends []tree.Outcome
	for _, n := range nodes {
		m, _ := tree.Decode[tree.Message](n)
		if o := tree.Ended(n.Kind, m); o != "" {
			ends = append(ends, o)
		}
	}
	if len(ends) != 1 || ends[0] != tree.OutcomeTimedOut {
		t.Errorf("the turn's recorded ends = %v, want one, timed_out", ends)
	}
	if left, _ := second.Timers().Of(t.Context(), conv.ID); len(left) != 0 {
		t.Errorf("timers left after the turn's end: %v", left)
	}
	if err := second.Answer(t.Context(), "me", conv.ID, eid, chat.Answer{Action: elicit.Accept}); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("an answer to the timed-out turn's question: %v, want Conflict (no longer waiting)", err)
	}
}

// A turn whose deadline comes while its reply streams keeps what streamed,
// as a stop does, and ends timed out.
func TestADeadlineKeepsThePartialReply(t *testing.T) {
	clk := &clock{t: time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)}
	fake := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true})
	teller := agents.Assistant{Name: "teller", Deadline: time.Minute, Turn: func(ctx context.Context, msg string) (string, error) {
		out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		return out.Content, err
	}}
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "data", "t.db"), store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(teller), Model: openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}), Now: clk.Now})
	t.Cleanup(func() { svc.Close(); db.Close() })
	conv, _ := svc.Create(t.Context(), "me", "teller")
	if err := svc.Send(t.Context(), "me", conv.ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the reply streaming", func(v pageview.View) bool { return v.Status.Draft == "Once upon a time, " })
	clk.add(time.Minute)
	fireDue(t, svc)
	v := waitView(t, svc, "me", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.Stopped || it.Partial != "Once upon a time, " || it.Text != "Timed out." {
		t.Fatalf("last item = %+v, want the timed-out turn with its partial reply", it)
	}
}

package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
	"github.com/sweatpants-go/sweatpants/internal/timers"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var start = time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)

// planner schedules what it is told: "in 2m: <message>", "every 1m:
// <message>", "cron <expr>: <message>", "ask then in 2m: <message>" (which
// asks a question after scheduling, so a restart replays the schedule);
// "list" says what is scheduled, "cancel all" cancels it all; anything
// else it answers "heard <msg>".
var planner = agents.Assistant{Name: "planner", Turn: func(ctx context.Context, msg string) (string, error) {
	how, text, ok := strings.Cut(msg, ": ")
	if msg == "list" {
		list, err := turn.Schedules(ctx)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, s := range list {
			b.WriteString(s.Message + " at " + s.Next.UTC().Format(time.TimeOnly) + ";")
		}
		return b.String(), nil
	}
	if msg == "cancel all" {
		list, err := turn.Schedules(ctx)
		if err != nil {
			return "", err
		}
		for _, s := range list {
			if err := turn.Unschedule(ctx, s.ID); err != nil {
				return "", err
			}
		}
		if err := turn.Unschedule(ctx, "nosuch"); err == nil {
			return "", errors.New("cancelled a schedule that is not")
		}
		return fmt.Sprintf("cancelled %d", len(list)), nil
	}
	if !ok || strings.HasPrefix(msg, "Reminder") {
		return "heard " + msg, nil
	}
	ask := strings.HasPrefix(how, "ask then ")
	how = strings.TrimPrefix(how, "ask then ")
	s := turn.Scheduled{Message: text}
	switch {
	case strings.HasPrefix(how, "in "):
		d, _ := time.ParseDuration(strings.TrimPrefix(how, "in "))
		s.At = turn.Now(ctx).Add(d)
	case strings.HasPrefix(how, "every "):
		s.Every, _ = time.ParseDuration(strings.TrimPrefix(how, "every "))
	case strings.HasPrefix(how, "cron "):
		s.Cron = strings.TrimPrefix(how, "cron ")
	}
	got, err := turn.Schedule(ctx, s)
	if err != nil {
		return "not scheduled: " + err.Error(), nil
	}
	if ask {
		if _, err := turn.Ask(ctx, elicit.Confirm, "Scheduled. Anything else?", elicit.ConfirmInput{}); err != nil {
			return "", err
		}
	}
	return "scheduled " + got.ID + " for " + got.Next.UTC().Format(time.TimeOnly), nil
}}

// node is one program on the database: its chat service and schedules.
type node struct {
	svc   *chat.Service
	db    *store.DB
	sched *schedule.Service
}

// open starts a node on the database at target (a SQLite path or a
// PostgreSQL URL) reading clk; send, when set, wraps how it sends.
func open(t *testing.T, target string, clk *clock, wrap func(schedule.Sender) schedule.Sender) *node {
	t.Helper()
	db, err := store.Open(t.Context(), target, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	n := &node{db: db}
	var mu sync.Mutex
	n.svc = chat.New(chat.Config{Store: db, Assistants: registry.New(planner), Model: offline.New(), Now: clk.Now,
		SuspendAfter: new(time.Duration(0)),
		Scope: func(ctx context.Context) context.Context {
			mu.Lock()
			defer mu.Unlock()
			return primitive.Schedules.With(ctx, n.sched)
		},
		Clocked: func(svc *chat.Service) {
			var send schedule.Sender = func(ctx context.Context, owner, conv, id, text string) error {
				_, err := svc.SendMessage(ctx, owner, conv, inbound.Message{ID: id, Text: text, Limit: schedule.MaxMessageLen})
				return err
			}
			if wrap != nil {
				send = wrap(send)
			}
			mu.Lock()
			defer mu.Unlock()
			n.sched = schedule.New(db, svc.Timers(), send, clk.Now, nil)
		}})
	closed := false
	t.Cleanup(func() { n.close(&closed) })
	return n
}

func (n *node) close(done *bool) {
	if !*done {
		*done = true
		n.svc.Close()
		n.db.Close()
	}
}

func contract(t *testing.T, test func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) { test(t, filepath.Join(t.TempDir(), "data", "t.db")) })
	t.Run("postgres", func(t *testing.T) { test(t, pgtest.Schema(t)) })
}

func say(t *testing.T, n *node, conv, msg string) pageview.View {
	t.Helper()
	if err := n.svc.Send(t.Context(), "me", conv, msg); err != nil {
		t.Fatal(err)
	}
	return waitIdle(t, n, conv)
}

// waitIdle waits until no turn of conv runs, its last item the agent's.
func waitIdle(t *testing.T, n *node, conv string) pageview.View {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := n.svc.View(t.Context(), "me", conv)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Status.Running && len(v.Items) > 0 && v.Items[len(v.Items)-1].Kind == tree.AssistantMessage {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("the conversation did not settle: %+v", v.Items)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func fireDue(t *testing.T, n *node) {
	t.Helper()
	if _, err := n.svc.Timers().FireDue(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// sent counts the user messages of conv by text, on every branch.
func sent(t *testing.T, db *store.DB, conv string) map[string]int {
	t.Helper()
	nodes, err := db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range nodes {
		if n.Kind == tree.UserMessage {
			m, _ := tree.Decode[tree.Message](n)
			got[m.Text]++
		}
	}
	return got
}

func lastText(v pageview.View) string { return v.Items[len(v.Items)-1].Text }

// A message scheduled by a turn is sent at its time, once, as the
// conversation's own message (its id marks it scheduled), and the agent
// answers it; it is listed until then and not after.
func TestAScheduledMessageIsSentOnceAtItsTime(t *testing.T) {
	contract(t, func(t *testing.T, target string) {
		clk := &clock{t: start}
		n := open(t, target, clk, nil)
		conv, _ := n.svc.Create(t.Context(), "me", "planner")
		v := say(t, n, conv.ID, "in 2m: Reminder: call Ann")
		if got := lastText(v); !strings.HasSuffix(got, "for 09:02:00") {
			t.Fatalf("reply = %q, want it scheduled for 09:02:00", got)
		}
		if got := lastText(say(t, n, conv.ID, "list")); got != "Reminder: call Ann at 09:02:00;" {
			t.Errorf("list = %q", got)
		}
		clk.add(time.Minute)
		fireDue(t, n)
		if got := sent(t, n.db, conv.ID)["Reminder: call Ann"]; got != 0 {
			t.Fatalf("sent %d times a minute early", got)
		}
		clk.add(time.Minute)
		fireDue(t, n)
		v = waitIdle(t, n, conv.ID)
		if got := lastText(v); got != "heard Reminder: call Ann" {
			t.Errorf("the agent's answer = %q", got)
		}
		u := v.Items[len(v.Items)-2]
		if !u.Scheduled {
			t.Errorf("the sent message is not marked scheduled: %+v", u)
		}
		clk.add(time.Hour)
		fireDue(t, n)
		if got := sent(t, n.db, conv.ID)["Reminder: call Ann"]; got != 1 {
			t.Errorf("sent %d times, want once", got)
		}
		if list, _ := n.sched.Of(t.Context(), conv.ID); len(list) != 0 {
			t.Errorf("still scheduled after it was sent: %+v", list)
		}
		if left, _ := n.svc.Timers().Of(t.Context(), conv.ID); len(left) != 0 {
			t.Errorf("timers left: %+v", left)
		}
	})
}

// Two nodes on one PostgreSQL that find the same schedule due at once send
// its message once; so does a node that sent it and died before moving its
// timer, with another node firing it after its claim lapsed.
func TestAnOccurrenceIsSentOnceOnAnyNode(t *testing.T) {
	t.Run("two nodes at once", func(t *testing.T) {
		target := pgtest.Schema(t)
		clk := &clock{t: start}
		a, b := open(t, target, clk, nil), open(t, target, clk, nil)
		conv, _ := a.svc.Create(t.Context(), "me", "planner")
		say(t, a, conv.ID, "every 1m: Reminder: stretch")
		for range 3 {
			clk.add(time.Minute)
			var wg sync.WaitGroup
			for _, n := range []*node{a, b, a, b} {
				wg.Go(func() { n.svc.Timers().FireDue(t.Context()) })
			}
			wg.Wait()
			waitIdle(t, a, conv.ID)
		}
		if got := sent(t, a.db, conv.ID)["Reminder: stretch"]; got != 3 {
			t.Errorf("three occurrences sent %d messages, want 3", got)
		}
	})
	contract(t, func(t *testing.T, target string) {
		clk := &clock{t: start}
		a := open(t, target, clk, nil)
		conv, _ := a.svc.Create(t.Context(), "me", "planner")
		say(t, a, conv.ID, "in 1m: Reminder: call Ann")
		list, _ := a.sched.Of(t.Context(), conv.ID)
		clk.add(time.Minute)
		// Node a's clock claims the timer and sends the message, as Fire
		// does, and a is killed before it moves the timer.
		if claimed, err := a.db.ClaimDue(t.Context(), clk.Now(), timers.Hold, 10); err != nil || len(claimed) != 1 {
			t.Fatalf("claimed %+v, %v", claimed, err)
		}
		id := schedule.MessageID(list[0].ID, list[0].Next)
		if _, err := a.svc.SendMessage(t.Context(), "me", conv.ID, inbound.Message{ID: id, Text: list[0].Message}); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, a, conv.ID)
		var doneA bool
		a.close(&doneA)

		b := open(t, target, clk, nil)
		fireDue(t, b) // the dead node's claim holds yet
		clk.add(timers.Hold)
		fireDue(t, b)
		waitIdle(t, b, conv.ID)
		if got := sent(t, b.db, conv.ID)["Reminder: call Ann"]; got != 1 {
			t.Errorf("after the second node fired it: sent %d times, want once", got)
		}
		if left, _ := b.svc.Timers().Of(t.Context(), conv.ID); len(left) != 0 {
			t.Errorf("timers left: %+v", left)
		}
		if list, _ := b.sched.Of(t.Context(), conv.ID); len(list) != 0 {
			t.Errorf("still scheduled: %+v", list)
		}
	})
}

// A send that fails is tried again soon, the same occurrence: when it had
// gone through (it failed after), the second send is known and not
// recorded again; when it had not, the second sends it.
func TestAFailedSendIsTriedAgainAsTheSameOccurrence(t *testing.T) {
	for name, after := range map[string]bool{"failed after it went": true, "failed before it went": false} {
		t.Run(name, func(t *testing.T) {
			clk := &clock{t: start}
			var mu sync.Mutex
			fails := 1
			n := open(t, filepath.Join(t.TempDir(), "data", "t.db"), clk, func(send schedule.Sender) schedule.Sender {
				return func(ctx context.Context, owner, conv, id, text string) error {
					mu.Lock()
					fail := fails > 0
					fails--
					mu.Unlock()
					if fail && !after {
						return errors.New("the conversation is held elsewhere")
					}
					if err := send(ctx, owner, conv, id, text); err != nil || !fail {
						return err
					}
					return errors.New("the answer was lost")
				}
			})
			conv, _ := n.svc.Create(t.Context(), "me", "planner")
			say(t, n, conv.ID, "every 10m: Reminder: drink")
			clk.add(10 * time.Minute)
			fireDue(t, n)
			clk.add(schedule.RetryEvery)
			fireDue(t, n)
			waitIdle(t, n, conv.ID)
			if got := sent(t, n.db, conv.ID)["Reminder: drink"]; got != 1 {
				t.Errorf("sent %d times, want once", got)
			}
			if list, _ := n.sched.Of(t.Context(), conv.ID); len(list) != 1 || !list[0].Next.Equal(start.Add(20*time.Minute)) {
				t.Errorf("next: %+v, want the occurrence after the one sent", list)
			}
		})
	}
}

// A turn replayed after a restart schedules once: the schedule's id is
// drawn as turn.Random draws, and recorded.
func TestAReplayedTurnSchedulesOnce(t *testing.T) {
	clk := &clock{t: start}
	path := filepath.Join(t.TempDir(), "data", "t.db")
	a := open(t, path, clk, nil)
	conv, _ := a.svc.Create(t.Context(), "me", "planner")
	if err := a.svc.Send(t.Context(), "me", conv.ID, "ask then in 5m: Reminder: tea"); err != nil {
		t.Fatal(err)
	}
	v := waitPending(t, a, conv.ID)
	var doneA bool
	a.close(&doneA)

	b := open(t, path, clk, nil)
	eid := pending(v).Request.ID
	if err := b.svc.Answer(t.Context(), "me", conv.ID, eid, chat.Answer{Action: elicit.Accept, Content: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, b, conv.ID)
	list, err := b.sched.Of(t.Context(), conv.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("schedules after the replay = %+v, %v; want one", list, err)
	}
	clk.add(5 * time.Minute)
	fireDue(t, b)
	waitIdle(t, b, conv.ID)
	if got := sent(t, b.db, conv.ID)["Reminder: tea"]; got != 1 {
		t.Errorf("sent %d times, want once", got)
	}
}

func pending(v pageview.View) *pageview.ElicitView {
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.State == pageview.Pending {
			return it.Elicit
		}
	}
	return nil
}

func waitPending(t *testing.T, n *node, conv string) pageview.View {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := n.svc.View(t.Context(), "me", conv)
		if err != nil {
			t.Fatal(err)
		}
		if pending(v) != nil {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question came: %+v", v.Items)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A recurring schedule is sent at each occurrence, and, missed while every
// node was down, once on the way up, then on its recurrence; a cron
// expression recurs at its times.
func TestARecurringScheduleIsSentAtEachOccurrence(t *testing.T) {
	clk := &clock{t: start}
	n := open(t, filepath.Join(t.TempDir(), "data", "t.db"), clk, nil)
	conv, _ := n.svc.Create(t.Context(), "me", "planner")
	say(t, n, conv.ID, "every 10m: Reminder: drink")
	say(t, n, conv.ID, "cron 30 9 * * *: Reminder: standup")
	for range 2 {
		clk.add(10 * time.Minute)
		fireDue(t, n)
		waitIdle(t, n, conv.ID)
	}
	clk.add(time.Hour) // 10:20: five occurrences of drink missed, standup's at 9:30
	fireDue(t, n)
	waitIdle(t, n, conv.ID)
	got := sent(t, n.db, conv.ID)
	if got["Reminder: drink"] != 3 || got["Reminder: standup"] != 1 {
		t.Errorf("sent %v, want drink 3 times (twice, then once for those missed), standup once", got)
	}
	list, _ := n.sched.Of(t.Context(), conv.ID)
	if len(list) != 2 || !list[0].Next.Equal(start.Add(90*time.Minute)) || !list[1].Next.Equal(start.Add(24*time.Hour+30*time.Minute)) {
		t.Errorf("next occurrences: %+v, want drink at 10:30 and standup tomorrow 9:30", list)
	}
}

// What cannot be scheduled is refused clearly and schedules nothing: a
// cron expression that is not one, both recurrences, no words, a time
// missing, and a conversation at its most schedules.
func TestWhatCannotBeScheduledIsRefused(t *testing.T) {
	clk := &clock{t: start}
	n := open(t, filepath.Join(t.TempDir(), "data", "t.db"), clk, nil)
	conv, _ := n.svc.Create(t.Context(), "me", "planner")
	for msg, want := range map[string]string{
		"cron 61 * * * *: x":  "is not a cron expression of five fields",
		"cron * * * * * *: x": "is not a cron expression of five fields",
		"every 100ms: x":      "at most every 1s",
		"at: x":               "needs a time, an interval or a cron expression",
	} {
		if got := lastText(say(t, n, conv.ID, msg)); !strings.Contains(got, want) {
			t.Errorf("%q: reply %q, want it refused with %q", msg, got, want)
		}
	}
	if _, err := n.sched.Add(t.Context(), conv.ID, "x", schedule.Request{Message: "  ", At: start}, start); err == nil || !strings.Contains(err.Error(), "needs words") {
		t.Errorf("a message without words: %v", err)
	}
	if _, err := n.sched.Add(t.Context(), "", "x", schedule.Request{Message: "hi", At: start}, start); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("outside a conversation: %v", err)
	}
	if list, _ := n.sched.Of(t.Context(), conv.ID); len(list) != 0 {
		t.Fatalf("refused schedules recorded: %+v", list)
	}
	for i := range schedule.MaxActive {
		say(t, n, conv.ID, fmt.Sprintf("in %dm: Reminder %d", i+1, i))
	}
	if got := lastText(say(t, n, conv.ID, "in 1h: one too many")); !strings.Contains(got, "the most it may have") {
		t.Errorf("past the bound: %q", got)
	}
	if list, _ := n.sched.Of(t.Context(), conv.ID); len(list) != schedule.MaxActive {
		t.Errorf("%d schedules, want %d", len(list), schedule.MaxActive)
	}
}

// A schedule is cancelled by its conversation's owner only, or by a turn
// of the conversation, and then sent no more; it goes with its
// conversation.
func TestASchedulesIsCancelledByItsOwnerAndGoesWithItsConversation(t *testing.T) {
	clk := &clock{t: start}
	n := open(t, filepath.Join(t.TempDir(), "data", "t.db"), clk, nil)
	conv, _ := n.svc.Create(t.Context(), "me", "planner")
	say(t, n, conv.ID, "in 1m: Reminder: one")
	list, _ := n.sched.Of(t.Context(), conv.ID)
	if len(list) != 1 || list[0].Owner != "me" {
		t.Fatalf("schedules = %+v", list)
	}
	id := list[0].ID
	for _, other := range []string{"someone-else", ""} {
		if err := n.sched.Cancel(t.Context(), other, conv.ID, id); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("a cancel by %q: %v, want NotFound", other, err)
		}
	}
	if err := n.sched.Cancel(t.Context(), "me", conv.ID, id); err != nil {
		t.Fatal(err)
	}
	clk.add(time.Hour)
	fireDue(t, n)
	if got := sent(t, n.db, conv.ID)["Reminder: one"]; got != 0 {
		t.Errorf("a cancelled schedule sent %d times", got)
	}

	say(t, n, conv.ID, "in 1m: Reminder: two")
	say(t, n, conv.ID, "every 1h: Reminder: three")
	if got := lastText(say(t, n, conv.ID, "cancel all")); got != "cancelled 2" {
		t.Errorf("a turn's cancel: %q", got)
	}
	clk.add(2 * time.Hour)
	fireDue(t, n)
	if got := sent(t, n.db, conv.ID); got["Reminder: two"]+got["Reminder: three"] != 0 {
		t.Errorf("schedules the turn cancelled were sent: %v", got)
	}
	say(t, n, conv.ID, "in 1m: Reminder: four")
	if err := n.svc.Delete(t.Context(), "me", conv.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := n.db.ScheduleByID(t.Context(), id); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("a deleted conversation's schedule is still kept: %v", err)
	}
	if left, _ := n.svc.Timers().Of(t.Context(), conv.ID); len(left) != 0 {
		t.Errorf("a deleted conversation's timers are kept: %+v", left)
	}
}

// A dry run (sweatpants check) finds what a turn scheduled, checks what it
// would schedule anew, and records and cancels nothing.
func TestADryRunRecordsNothing(t *testing.T) {
	clk := &clock{t: start}
	n := open(t, filepath.Join(t.TempDir(), "data", "t.db"), clk, nil)
	conv, _ := n.svc.Create(t.Context(), "me", "planner")
	say(t, n, conv.ID, "in 1m: Reminder: one")
	list, _ := n.sched.Of(t.Context(), conv.ID)
	dry := schedule.Dry{Store: n.db}
	got, err := dry.Add(t.Context(), conv.ID, list[0].ID, schedule.Request{Message: "other words", At: start}, start)
	if err != nil || got.Message != "Reminder: one" {
		t.Errorf("a replayed schedule: %+v, %v; want the one recorded", got, err)
	}
	if _, err := dry.Add(t.Context(), conv.ID, "00000000000000ff", schedule.Request{Message: "new", Cron: "61 * * * *"}, start); err == nil {
		t.Error("a dry run took a bad cron expression")
	}
	if _, err := dry.Add(t.Context(), conv.ID, "00000000000000ff", schedule.Request{Message: "new", At: start.Add(time.Hour)}, start); err != nil {
		t.Error(err)
	}
	if err := dry.Unschedule(t.Context(), conv.ID, list[0].ID); err != nil {
		t.Error(err)
	}
	if after, _ := n.sched.Of(t.Context(), conv.ID); len(after) != 1 || after[0].ID != list[0].ID {
		t.Errorf("after the dry run: %+v, want what was there", after)
	}
}

// A scheduled message that comes while a question waits is no answer to
// it: it is taken as a side question, and the question still waits.
func TestAScheduledMessageIsNoAnswerToAWaitingQuestion(t *testing.T) {
	clk := &clock{t: start}
	n := open(t, filepath.Join(t.TempDir(), "data", "t.db"), clk, nil)
	conv, _ := n.svc.Create(t.Context(), "me", "planner")
	if err := n.svc.Send(t.Context(), "me", conv.ID, "ask then in 5m: Reminder: tea"); err != nil {
		t.Fatal(err)
	}
	eid := pending(waitPending(t, n, conv.ID)).Request.ID
	clk.add(5 * time.Minute)
	fireDue(t, n)
	deadline := time.Now().Add(10 * time.Second)
	var d tree.DecisionRecord
	for d.Choice == "" {
		nodes, err := n.db.Nodes(t.Context(), conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, nd := range nodes {
			if nd.Kind == tree.Decision {
				d, _ = tree.Decode[tree.DecisionRecord](nd)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the scheduled message was not taken")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d.Choice != "side" || d.By != "schedule" || d.Text != "Reminder: tea" {
		t.Errorf("the scheduled message was taken as %+v, want a side question, by the schedule", d)
	}
	v, err := n.svc.View(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := pending(v); p == nil || p.Request.ID != eid {
		t.Errorf("the question no longer waits after the scheduled message")
	}
}

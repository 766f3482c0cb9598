package chat_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// sideRig is a model-driven assistant whose side turns may ask the user
// too, served from one SQLite file that restart closes and opens again.
type sideRig struct {
	t    *testing.T
	fake *llmtest.Server
	path string
	svc  *chat.Service
	db   *store.DB
	conv string
}

func newSideRig(t *testing.T, replies ...llmtest.Reply) *sideRig {
	r := &sideRig{t: t, fake: llmtest.NewServer(t, replies...), path: filepath.Join(t.TempDir(), "side.db")}
	r.start()
	conv, err := r.svc.Create(t.Context(), "s", "trips")
	if err != nil {
		t.Fatal(err)
	}
	r.conv = conv.ID
	return r
}

// start opens the service on the rig's file.
func (r *sideRig) start() {
	db := storetest.OpenAt(r.t, r.path)
	svc := chat.New(chat.Config{Store: db, Model: openai.New(openai.Config{APIKey: "k", BaseURL: r.fake.URL, Model: "m"}),
		Assistants: registry.New(agents.Assistant{Name: "trips", Turn: agents.Loop{AskUser: true}.Turn, Side: agents.Loop{AskUser: true}.Turn})})
	r.svc, r.db = svc, db
	r.t.Cleanup(func() { svc.Close(); db.Close() })
}

// restart closes the service and opens it again on the same file, as a
// server stopped and started.
func (r *sideRig) restart() {
	r.svc.Close()
	r.db.Close()
	r.start()
}

func (r *sideRig) wait(what string, cond func(pageview.View) bool) pageview.View {
	r.t.Helper()
	return waitView(r.t, r.svc, "s", r.conv, what, cond)
}

// reflog returns the conversation's reflog, newest first.
func (r *sideRig) reflog() []tree.RefEntry {
	r.t.Helper()
	log, err := r.db.Reflog(r.t.Context(), r.conv)
	if err != nil {
		r.t.Fatal(err)
	}
	return log
}

func wantCode(t *testing.T, what string, err error, code apperr.Code) {
	t.Helper()
	if apperr.CodeOf(err) != code {
		t.Errorf("%s: err %v, want %s", what, err, code)
	}
}

// A side thread continued as the flow: the question that waited is
// withdrawn and recorded so, HEAD goes on from the thread, and the next
// turn's model is given the side exchange as the conversation's. Back to
// the flow: the question waits again, is answered, and its turn finishes
// once. Each step survives a restart.
func TestASideThreadContinuedAsTheFlowAndBack(t *testing.T) {
	r := newSideRig(t,
		llmtest.Call("ask_user", `{"question":"Which seat?","kind":"choice","options":["12A","14C"]}`),
		llmtest.Call("ask_user", `{"question":"Winter or summer?","kind":"choice","options":["winter","summer"]}`),
		llmtest.Text("Oslo is cold in winter."),
		llmtest.Text("Train booked."),
		llmtest.Text("Milder."),
		llmtest.Text("Booked seat 14C."),
	)
	ctx := t.Context()
	wantCode(t, "back to the flow before any continue", r.svc.BackToFlow(ctx, "s", r.conv), apperr.Conflict)
	if err := r.svc.Send(ctx, "s", r.conv, "Book me a flight to Oslo"); err != nil {
		t.Fatal(err)
	}
	v := r.wait("the seat question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	seat, waited := pendingElicit(v).Request.ID, v.Conversation.Head
	if err := r.svc.AskAside(ctx, "s", r.conv, waited, "Is Oslo cold?"); err != nil {
		t.Fatal(err)
	}
	v = r.wait("the side turn's question", func(v pageview.View) bool {
		s := sideItems(v)
		return len(s) == 1 && len(s[0].Asks) == 1 && s[0].Asks[0].Elicit.State == pageview.Pending
	})
	q := sideItems(v)[0]
	if q.Continuable {
		t.Errorf("a side question still being answered is offered to continue from")
	}
	wantCode(t, "continue from a side question still being answered", r.svc.ContinueHere(ctx, "s", r.conv, q.ID), apperr.Conflict)
	if err := r.svc.Answer(ctx, "s", r.conv, q.Asks[0].Elicit.Request.ID, accept(`{"option":"winter"}`)); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, r.svc, r.conv, 1)
	if !sideItems(v)[0].Continuable {
		t.Errorf("an answered side question while the flow waits is not offered to continue from: %+v", sideItems(v)[0])
	}
	r.restart()

	if err := r.svc.ContinueHere(ctx, "s", r.conv, q.ID); err != nil {
		t.Fatal(err)
	}
	v = r.wait("the continued thread", func(v pageview.View) bool { return lastItem(v).Continued })
	if e := pendingElicit(v); e != nil {
		t.Errorf("after continue here, %q still waits", e.Request.Message)
	}
	if n := len(sideItems(v)); n != 0 {
		t.Errorf("the continued thread is still shown as %d side questions", n)
	}
	var said []string
	for _, it := range v.Items {
		if it.Kind == tree.UserMessage || it.Kind == tree.AssistantMessage {
			said = append(said, it.Text)
		}
	}
	if got, want := strings.Join(said, " | "), "Book me a flight to Oslo | Is Oslo cold? | Oslo is cold in winter."; got != want {
		t.Errorf("the messages shown = %q, want %q", got, want)
	}
	stop := lastItem(v)
	if stop.Kind != tree.Stopped || stop.ID != v.Conversation.Head || !strings.Contains(stop.Text, "“Which seat?” was withdrawn") {
		t.Errorf("the end of the flow's turn = %+v (HEAD %d), want the withdrawn seat question at HEAD", stop, v.Conversation.Head)
	}
	if e := r.reflog()[0]; e.Action != tree.ActContinue || e.Head != stop.ID || e.Prev != waited {
		t.Errorf("the reflog's newest entry = %+v, want continue from %d to %d", e, waited, stop.ID)
	}
	wantCode(t, "continue again, with no question waiting", r.svc.ContinueHere(ctx, "s", r.conv, q.ID), apperr.Conflict)
	// The side turn's answer is the flow's record now: changing it would
	// resume the flow's withdrawn turn from the side thread's record.
	wantCode(t, "change the continued thread's answer", r.svc.ChangeAnswer(ctx, "s", r.conv, q.Asks[0].Elicit.Request.ID, accept(`{"option":"summer"}`)), apperr.Conflict)
	r.restart()

	v, _ = r.svc.View(ctx, "s", r.conv)
	if v.Conversation.Head != stop.ID || pendingElicit(v) != nil {
		t.Fatalf("after a restart: HEAD %d, pending %+v; want HEAD %d and nothing waiting", v.Conversation.Head, pendingElicit(v), stop.ID)
	}
	if err := r.svc.Send(ctx, "s", r.conv, "Then book me a train"); err != nil {
		t.Fatal(err)
	}
	v = r.wait("the train", func(v pageview.View) bool { return lastItem(v).Text == "Train booked." })
	next := r.fake.Requests()[3].Messages
	count := func(role, content string) int {
		n := 0
		for _, m := range next {
			if m.Role == role && m.Content == content {
				n++
			}
		}
		return n
	}
	if count("user", "Is Oslo cold?") != 1 || count("assistant", "Oslo is cold in winter.") != 1 ||
		strings.Contains(dump(next), "Asked on the side") {
		t.Errorf("the next turn's model is not given the side exchange once, as the conversation's:\n%s", dump(next))
	}
	// Asked aside from the continued reply, a side question is a thread of
	// its own beside the flow, not a follow-up of the continued thread.
	var continued int64 // the side reply, now the flow's
	for _, it := range v.Items {
		if it.Text == "Oslo is cold in winter." {
			continued = it.ID
		}
	}
	if err := r.svc.AskAside(ctx, "s", r.conv, continued, "And in summer?"); err != nil {
		t.Fatal(err)
	}
	later := sideItems(repliedSides(t, r.svc, r.conv, 1))[0]
	if later.Anchor != stop.ID || later.WhileWaiting {
		t.Errorf("the side question asked from the continued reply hangs from %d (while waiting: %v), want %d beside the flow", later.Anchor, later.WhileWaiting, stop.ID)
	}
	if asked := dump(r.fake.Requests()[4].Messages); strings.Contains(asked, "waits for their answer") || !strings.Contains(asked, "in a thread beside the conversation") {
		t.Errorf("the later side question's model is told a question waits, not that it is asked beside the reply:\n%s", asked)
	}
	r.restart()

	if err := r.svc.BackToFlow(ctx, "s", r.conv); err != nil {
		t.Fatal(err)
	}
	v = r.wait("the seat question again", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if e := pendingElicit(v); e.Request.ID != seat || v.Conversation.Head != waited {
		t.Errorf("back to the flow: pending %s at HEAD %d, want %s at %d", e.Request.ID, v.Conversation.Head, seat, waited)
	}
	if s := sideItems(v); len(s) != 1 || s[0].Reply != "Oslo is cold in winter." {
		t.Errorf("back in the flow, the side thread shown = %+v, want it beside the question", s)
	}
	if e := r.reflog()[0]; e.Action != tree.ActToFlow || e.Head != waited {
		t.Errorf("the reflog's newest entry = %+v, want to-flow to %d", e, waited)
	}
	wantCode(t, "back to the flow twice", r.svc.BackToFlow(ctx, "s", r.conv), apperr.Conflict)
	r.restart()

	if err := r.svc.Answer(ctx, "s", r.conv, seat, accept(`{"option":"14C"}`)); err != nil {
		t.Fatal(err)
	}
	v = r.wait("the booking", func(v pageview.View) bool { return lastItem(v).Text == "Booked seat 14C." })
	if got := len(nodesOf(t, r.db, r.conv, tree.AssistantMessage)); got != 2 {
		t.Errorf("%d replies recorded, want the train's and the seat's, once each", got)
	}
	if got := len(nodesOf(t, r.db, r.conv, tree.SideReply)); got != 2 {
		t.Errorf("%d side replies recorded, want 2: the continued thread's turn and the later one's ended once", got)
	}
	if got := len(r.fake.Requests()); got != 6 {
		t.Errorf("%d model calls, want 6: the resumed turn replays its question", got)
	}
}

// Recovering a side question's reflog entries (its asking, "fork", and its
// reply, "return") brings back the flow it was asked beside, with the
// question that waited waiting again and the thread beside it, not HEAD
// under the side reply; so does switching back to that flow's version.
func TestRecoveringASideEntryBringsBackTheFlowBesideIt(t *testing.T) {
	r := newSideRig(t,
		llmtest.Call("ask_user", `{"question":"Which seat?","kind":"choice","options":["12A","14C"]}`),
		llmtest.Text("Oslo is cold in winter."),
		llmtest.Call("ask_user", `{"question":"Which train?","kind":"choice","options":["IC","R"]}`),
	)
	ctx := t.Context()
	if err := r.svc.Send(ctx, "s", r.conv, "Book me a flight to Oslo"); err != nil {
		t.Fatal(err)
	}
	v := r.wait("the seat question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	seat, waited, first := pendingElicit(v).Request.ID, v.Conversation.Head, v.Items[0].ID
	if err := r.svc.AskAside(ctx, "s", r.conv, waited, "Is Oslo cold?"); err != nil {
		t.Fatal(err)
	}
	repliedSides(t, r.svc, r.conv, 1)
	if err := r.svc.Edit(ctx, "s", r.conv, first, inbound.Message{Text: "Book me a train to Oslo"}); err != nil {
		t.Fatal(err)
	}
	v = r.wait("the train question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Message == "Which train?"
	})
	edited := v.Items[0].ID
	// Switching back to the first version goes to where its flow got, the
	// question that waits, not into the side thread answered last.
	if err := r.svc.Switch(ctx, "s", r.conv, first); err != nil {
		t.Fatal(err)
	}
	seatWaits := func(v pageview.View) bool { e := pendingElicit(v); return e != nil && e.Request.ID == seat }
	if v = r.wait("the seat question", seatWaits); v.Conversation.Head != waited {
		t.Errorf("switched back: HEAD %d, want %d where the seat question waits", v.Conversation.Head, waited)
	}
	if err := r.svc.Switch(ctx, "s", r.conv, edited); err != nil {
		t.Fatal(err)
	}
	for _, action := range []tree.Action{tree.ActFork, tree.ActReturn} {
		var entry int64
		for _, e := range r.reflog() {
			if e.Action == action {
				entry = e.ID
			}
		}
		if err := r.svc.Recover(ctx, "s", r.conv, entry); err != nil {
			t.Fatal(err)
		}
		if v = r.wait("the seat question", seatWaits); v.Conversation.Head != waited {
			t.Errorf("recovering the %s entry: HEAD %d, want %d where the seat question waits", action, v.Conversation.Head, waited)
		}
		if s := sideItems(v); len(s) != 1 || s[0].Reply != "Oslo is cold in winter." {
			t.Errorf("recovering the %s entry: side questions shown %+v, want the thread beside the question", action, s)
		}
		// Away again, to the edited message's branch.
		if err := r.svc.Switch(ctx, "s", r.conv, edited); err != nil {
			t.Fatal(err)
		}
		r.wait("the train question", func(v pageview.View) bool { return v.Conversation.Head != waited && pendingElicit(v) != nil })
	}
}

package chat_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

var askNotes = policy.Rule{Action: policy.Ask, Tool: noteTool}

// An approval shows the call as the model made it, with the model's
// reason; the user may edit the arguments, and the edited call is the one
// that runs and is recorded. A denial goes back to the model, which goes
// on; every call's record says what was decided, by whom, on which
// approval, and how it ended, in the order the calls were made.
func TestAnApprovalDecidesTheCallAndTheRecordSaysSo(t *testing.T) {
	s, book := consentServer(t, &noteModel{}, askNotes)
	conv, _ := s.svc.Create(t.Context(), "me", "keeper")
	s.send("me", conv.ID, "milk")
	first := s.approval("me", conv.ID)
	var in elicit.ApprovalInput
	if err := json.Unmarshal(first.Input, &in); err != nil {
		t.Fatal(err)
	}
	if in.Agent != "notes" || in.Tool != "remember_note" || in.Description != "Keeps a note for later" ||
		in.Args != "{\n  \"text\": \"milk\"\n}" || in.Reason != "I'll note that." || !strings.Contains(string(in.Schema), `"text"`) {
		t.Errorf("the approval shows %+v; want the notes agent's tool, its arguments indented, the model's reason and the tool's schema", in)
	}
	s.approve("me", conv.ID, first.ID, elicit.Approval{Choice: elicit.AllowOnce, Args: `{"text": "oat milk"}`})
	if got, want := s.reply("me", conv.ID), "noted: oat milk"; got != want {
		t.Errorf("reply %q, want %q: the edited call ran", got, want)
	}

	s.send("me", conv.ID, "eggs") // allowed once only: asked again
	second := s.approval("me", conv.ID)
	s.approve("me", conv.ID, second.ID, elicit.Approval{Choice: elicit.DenyCall, Reason: "we have eggs"})
	if got, want := s.reply("me", conv.ID), "the call of remember_note was denied: the user denied it: we have eggs"; got != want {
		t.Errorf("reply %q, want the model to have been told %q", got, want)
	}
	if got, want := book.notes(), []string{"oat milk"}; !slices.Equal(got, want) {
		t.Errorf("the tool ran with %q, want %q", got, want)
	}
	recs := s.audits(conv.ID)
	want := []audit{
		{Input: noteInput("oat milk"), Decision: "ask", DecidedBy: "user", Approval: first.ID, Outcome: "ok", Ran: true},
		{Input: noteInput("eggs"), Decision: "ask", DecidedBy: "user", Approval: second.ID, Outcome: "denied"},
	}
	if got := auditsOf(recs); !slices.Equal(got, want) {
		t.Fatalf("the audit:\n%+v\nwant\n%+v", got, want)
	}
	if !strings.Contains(recs[0].Rule, noteTool) || string(recs[0].Output) != `"noted: oat milk"` {
		t.Errorf("the first call's rule %q and output %s; want the rule that asked, and what the tool returned", recs[0].Rule, recs[0].Output)
	}
}

// "Allow for this conversation" is a choice of the branch it was made on:
// the next call there runs without asking; a branch made by editing a
// message from before the choice asks again, and so does a switch to it;
// recovering the old branch from the reflog brings the choice back.
func TestAllowingForTheConversationFollowsTheBranch(t *testing.T) {
	ctx := t.Context()
	s, book := consentServer(t, &noteModel{}, askNotes)
	conv, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", conv.ID, "milk")
	chosen := s.approval("me", conv.ID)
	s.approve("me", conv.ID, chosen.ID, elicit.Approval{Choice: elicit.AllowConversation})
	s.reply("me", conv.ID)
	s.send("me", conv.ID, "eggs")
	if got := s.reply("me", conv.ID); got != "noted: eggs" {
		t.Fatalf("reply %q: the call after the choice should run without asking", got)
	}
	if got, want := auditOf(s.audits(conv.ID)[1]), (audit{Input: noteInput("eggs"), Decision: "allow", DecidedBy: "remembered", Approval: chosen.ID, Outcome: "ok", Ran: true}); got != want {
		t.Errorf("the remembered call's audit %+v, want %+v", got, want)
	}
	eggs := s.message(conv.ID, "eggs")

	// Edited before the choice: the new branch does not have it.
	if err := s.svc.Edit(ctx, "me", conv.ID, s.message(conv.ID, "milk").ID, inbound.Message{Text: "bread"}); err != nil {
		t.Fatal(err)
	}
	again := s.approval("me", conv.ID)
	s.approve("me", conv.ID, again.ID, elicit.Approval{Choice: elicit.AllowOnce})
	s.reply("me", conv.ID)

	// Recovered from the reflog: the old branch, and its choice, are back.
	if err := s.svc.Recover(ctx, "me", conv.ID, s.reflogEntry(conv.ID, eggs.ID)); err != nil {
		t.Fatal(err)
	}
	s.send("me", conv.ID, "tea")
	if got := s.reply("me", conv.ID); got != "noted: tea" {
		t.Fatalf("reply %q on the recovered branch: the call should run without asking", got)
	}

	// Switched to the edited branch: asked again there.
	if err := s.svc.Switch(ctx, "me", conv.ID, s.message(conv.ID, "bread").ID); err != nil {
		t.Fatal(err)
	}
	s.send("me", conv.ID, "jam")
	jam := s.approval("me", conv.ID)
	s.approve("me", conv.ID, jam.ID, elicit.Approval{Choice: elicit.AllowOnce})
	s.reply("me", conv.ID)
	if got, want := book.notes(), []string{"milk", "eggs", "bread", "tea", "jam"}; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}

// "Always allow" is kept for the session: after a restart, another
// conversation's call runs without asking, until the user revokes the
// rule, which only they can.
func TestAlwaysAllowingOutlivesARestartAndIsRevocable(t *testing.T) {
	ctx := t.Context()
	s, book := consentServer(t, &noteModel{}, askNotes)
	first, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", first.ID, "milk")
	s.approve("me", first.ID, s.approval("me", first.ID).ID, elicit.Approval{Choice: elicit.AllowAlways})
	s.reply("me", first.ID)
	rules, err := s.svc.AlwaysAllowed(ctx, "me")
	if err != nil || len(rules) != 1 || rules[0].Agent != "notes" || rules[0].Tool != "remember_note" {
		t.Fatalf("always rules %+v, %v; want notes' remember_note", rules, err)
	}

	s.restart()
	other, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", other.ID, "eggs")
	if got := s.reply("me", other.ID); got != "noted: eggs" {
		t.Fatalf("reply %q: always allowed, the call should run without asking", got)
	}
	rec := s.audits(other.ID)[0]
	if rec.DecidedBy != "remembered" || rec.Decision != "allow" || !strings.Contains(rec.Rule, "always") {
		t.Errorf("the call's audit: decision %q by %q, rule %q; want an allow remembered from the always rule", rec.Decision, rec.DecidedBy, rec.Rule)
	}

	if err := s.svc.RevokeAlways(ctx, "you", rules[0].ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("revoked by another session: %v, want NotFound", err)
	}
	if err := s.svc.RevokeAlways(ctx, "me", rules[0].ID); err != nil {
		t.Fatal(err)
	}
	s.send("me", other.ID, "tea")
	s.approve("me", other.ID, s.approval("me", other.ID).ID, elicit.Approval{Choice: elicit.AllowOnce})
	s.reply("me", other.ID)
	if got, want := book.notes(), []string{"milk", "eggs", "tea"}; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}

// An approval that waits when the server dies still waits after the
// restart; once approved the call runs exactly once, and the replays that
// follow (another restart while the turn waits on its next question)
// never ask again, nor keep again an "Always allow" revoked meanwhile.
func TestAnApprovalWaitsThroughARestartAndTheCallRunsOnce(t *testing.T) {
	ctx := t.Context()
	model := &noteModel{askAfter: true}
	s, book := consentServer(t, model, askNotes)
	conv, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", conv.ID, "milk")
	asked := s.approval("me", conv.ID)

	s.restart()
	if got := s.approval("me", conv.ID); got.ID != asked.ID {
		t.Fatalf("after the restart %s waits, want the approval %s", got.ID, asked.ID)
	}
	s.approve("me", conv.ID, asked.ID, elicit.Approval{Choice: elicit.AllowAlways})
	v := waitView(t, s.svc, "me", conv.ID, "the model's question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Kind == elicit.Confirm.Name
	})
	rules, _ := s.svc.AlwaysAllowed(ctx, "me")
	if len(rules) != 1 {
		t.Fatalf("always rules %+v, want the one just given", rules)
	}
	if err := s.svc.RevokeAlways(ctx, "me", rules[0].ID); err != nil {
		t.Fatal(err)
	}

	s.restart()
	if err := s.svc.Answer(ctx, "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"yes":false}`)); err != nil {
		t.Fatal(err)
	}
	s.reply("me", conv.ID)
	if got := book.notes(); !slices.Equal(got, []string{"milk"}) {
		t.Errorf("the tool ran with %q, want once with milk", got)
	}
	if n := model.calls.Load(); n != 3 {
		t.Errorf("the model was called %d times, want 3: the replays answer from the record", n)
	}
	if got := len(s.nodes(conv.ID, tree.ElicitRequest)); got != 2 {
		t.Errorf("%d questions recorded, want 2: the approval was not asked again", got)
	}
	if rules, _ := s.svc.AlwaysAllowed(ctx, "me"); len(rules) != 0 {
		t.Errorf("always rules %+v after the replay, want none: a replayed answer keeps no rule again", rules)
	}
}

// An approval of a turn that stopped, or that an edit left behind, can no
// longer be answered: the answer is refused, clearly, and the call does
// not run. The stopped call is recorded as cancelled, by nobody.
func TestAStaleApprovalIsRefused(t *testing.T) {
	ctx := t.Context()
	s, book := consentServer(t, &noteModel{}, askNotes)
	conv, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", conv.ID, "milk")
	stopped := s.approval("me", conv.ID)
	if err := s.svc.Stop(ctx, "me", conv.ID); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "me", conv.ID, "the stop", func(v pageview.View) bool { return !v.Status.Running })
	once := accept(`{"choice":"once"}`)
	if err := s.svc.Answer(ctx, "me", conv.ID, stopped.ID, once); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("answering the stopped turn's approval: %v, want a Conflict", err)
	}

	s.send("me", conv.ID, "eggs")
	superseded := s.approval("me", conv.ID)
	// The next turn's model is told the user stopped the call, which did
	// not run, not the stop's internal error.
	samples := s.samples(conv.ID)
	told := samples[len(samples)-1].Request.Messages
	if i := slices.IndexFunc(told, func(m llm.Message) bool { return m.Role == llm.Tool }); i < 0 ||
		told[i].Content != "the user stopped the call of remember_note before it ran: it did not run" {
		t.Errorf("the next turn's model was told %+v; want the stopped call said to be stopped by the user, not run", told)
	}
	if err := s.svc.Edit(ctx, "me", conv.ID, s.message(conv.ID, "eggs").ID, inbound.Message{Text: "tea"}); err != nil {
		t.Fatal(err)
	}
	current := s.approval("me", conv.ID)
	if err := s.svc.Answer(ctx, "me", conv.ID, superseded.ID, once); apperr.CodeOf(err) != apperr.Conflict || current.ID == superseded.ID {
		t.Errorf("answering the approval an edit left behind: %v, want a Conflict", err)
	}
	if got := book.notes(); len(got) != 0 {
		t.Errorf("the tool ran with %q, want not at all", got)
	}
	if got, want := auditOf(s.audits(conv.ID)[0]), (audit{Input: noteInput("milk"), Decision: "ask", DecidedBy: "unattended", Approval: stopped.ID, Outcome: "cancelled"}); got != want {
		t.Errorf("the stopped call's audit %+v, want %+v", got, want)
	}
	if got, want := s.audits(conv.ID)[0].Error, "stopped by the user"; got != want {
		t.Errorf("the stopped call's audit says %q, want %q", got, want)
	}
}

// With nothing that can approve — the Automatic implementation of an
// unattended run — an ask is a denial, never a hang: the model is told
// and goes on.
func TestAnUnattendedRunDeniesWhatWouldAsk(t *testing.T) {
	kinds := kindset.New(elicit.BuiltinKinds()...)
	s, book := consentServer(t, &noteModel{}, askNotes)
	rules := s.scope
	s.scope = func(ctx context.Context) context.Context {
		ctx = middleware.Elicit.Around(rules(ctx), func(middleware.Handler[elicit.Request, elicit.Response]) middleware.Handler[elicit.Request, elicit.Response] {
			return func(_ context.Context, req elicit.Request) (elicit.Response, error) { return kinds.Automatic(req), nil }
		}, middleware.Max)
		return ctx
	}
	s.restart()
	conv, _ := s.svc.Create(t.Context(), "me", "keeper")
	s.send("me", conv.ID, "milk")
	if got, want := s.reply("me", conv.ID), "the call of remember_note was denied: nobody was there to approve it"; got != want {
		t.Errorf("reply %q, want the model told %q", got, want)
	}
	if got := book.notes(); len(got) != 0 {
		t.Errorf("the tool ran with %q", got)
	}
	if got, want := auditOf(s.audits(conv.ID)[0]), (audit{Input: noteInput("milk"), Decision: "ask", DecidedBy: "unattended", Approval: "", Outcome: "denied"}); got.Decision != want.Decision || got.DecidedBy != want.DecidedBy || got.Outcome != want.Outcome {
		t.Errorf("the audit %+v, want %+v", got, want)
	}
}

// A denying rule's call does not run and the model is told why, each time
// it tries; a finalDeny's tool is not offered again in the turn.
func TestDenyingRulesAndFinalDenials(t *testing.T) {
	for _, c := range []struct {
		action policy.Action
		calls  int // recorded calls: the model tries twice if it may
	}{
		{policy.Deny, 2},
		{policy.FinalDeny, 1},
	} {
		t.Run(string(c.action), func(t *testing.T) {
			s, book := consentServer(t, &noteModel{tries: 2}, policy.Rule{Action: c.action, Tool: noteTool})
			conv, _ := s.svc.Create(t.Context(), "me", "keeper")
			s.send("me", conv.ID, "milk")
			reply := s.reply("me", conv.ID)
			if !strings.HasPrefix(reply, "the call of remember_note was denied: a rule forbids it: "+string(c.action)) {
				t.Errorf("reply %q, want the model told which rule denied the call", reply)
			}
			if got := book.notes(); len(got) != 0 {
				t.Errorf("the tool ran with %q", got)
			}
			recs := s.audits(conv.ID)
			if len(recs) != c.calls {
				t.Fatalf("%d calls recorded, want %d", len(recs), c.calls)
			}
			for _, r := range recs {
				if r.Decision != string(c.action) || r.DecidedBy != "rule" || r.Outcome != "denied" || r.Started != 0 {
					t.Errorf("audit %+v, want %s by rule, denied, never started", auditOf(r), c.action)
				}
			}
			samples := s.samples(conv.ID)
			last := samples[len(samples)-1]
			offeredNote := slices.ContainsFunc(last.Request.Tools, func(sp llm.ToolSpec) bool { return sp.Name == "remember_note" })
			if offeredNote == (c.action == policy.FinalDeny) {
				t.Errorf("the last model call offered remember_note: %v", offeredNote)
			}
		})
	}
}

// A rule that says not to keep a call's arguments has the record keep a
// digest of them instead, and a turn replayed after a restart still
// finds the call by it.
func TestARedactingRuleKeepsADigest(t *testing.T) {
	ctx := t.Context()
	s, book := consentServer(t, &noteModel{askAfter: true}, policy.Rule{Action: policy.Ask, Tool: noteTool, Redact: true})
	conv, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", conv.ID, "my PIN is 1234")
	s.approve("me", conv.ID, s.approval("me", conv.ID).ID, elicit.Approval{Choice: elicit.AllowOnce})
	v := waitView(t, s.svc, "me", conv.ID, "the model's question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Kind == elicit.Confirm.Name
	})
	rec := s.audits(conv.ID)[0]
	if string(rec.Input) != "null" || !strings.HasPrefix(rec.Digest, "sha256:") || len(rec.Digest) != len("sha256:")+64 {
		t.Errorf("recorded input %s, digest %q; want no input and a sha256 digest", rec.Input, rec.Digest)
	}
	s.restart()
	if err := s.svc.Answer(ctx, "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"yes":false}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", conv.ID); !strings.HasPrefix(got, "noted: my PIN is 1234") {
		t.Errorf("reply %q after the replay, want the recorded result", got)
	}
	if got := book.notes(); len(got) != 1 {
		t.Errorf("the tool ran %d times, want once", len(got))
	}
}

// A check before a deploy replays a turn that waits on an approval up to
// it, as the live turn would resume, and runs nothing: the waiting
// approval is reached, not taken for a divergence.
func TestTheCheckReachesAWaitingApproval(t *testing.T) {
	model := &noteModel{}
	s, book := consentServer(t, model, askNotes)
	conv, _ := s.svc.Create(t.Context(), "me", "keeper")
	s.send("me", conv.ID, "milk")
	s.approval("me", conv.ID)
	got := checkWith(t, s, s.reg)
	if got.Turns != 1 || len(got.Diverged) != 0 {
		t.Errorf("checked %+v, want the one turn to resume", got)
	}
	if n := len(book.notes()); n != 0 || model.calls.Load() != 1 {
		t.Errorf("the check ran the tool %d times and the model %d times, want neither", n, model.calls.Load()-1)
	}
}

// A call that had begun when the server stopped — allowed, and waiting on
// a question of its own — goes on as it began after the restart, though
// the rule that allowed it was revoked meanwhile: what a replayed turn
// does is what its record says, not what the rules say now.
func TestACallThatHadBegunGoesOnAsItBegan(t *testing.T) {
	ctx := t.Context()
	s, book := consentServer(t, &noteModel{}, askNotes)
	first, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", first.ID, "milk")
	s.approve("me", first.ID, s.approval("me", first.ID).ID, elicit.Approval{Choice: elicit.AllowAlways})
	s.reply("me", first.ID)

	book.confirm = true
	conv, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", conv.ID, "eggs")
	v := waitView(t, s.svc, "me", conv.ID, "the tool's own question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Kind == elicit.Confirm.Name
	})
	rules, _ := s.svc.AlwaysAllowed(ctx, "me")
	if err := s.svc.RevokeAlways(ctx, "me", rules[0].ID); err != nil {
		t.Fatal(err)
	}
	s.restart()
	if err := s.svc.Answer(ctx, "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", conv.ID); got != "noted: eggs" {
		t.Errorf("reply %q, want the call to have gone on", got)
	}
	if rec := s.audits(conv.ID)[0]; rec.Decision != "allow" || rec.DecidedBy != "resumed" || rec.Outcome != "ok" {
		t.Errorf("the audit %+v, want an allow the resumed call went on under", auditOf(rec))
	}
}

// With no rule about it, a tool that only reads runs and one that writes
// asks (the default); an assistant's own policy narrows the program's for
// its turns.
func TestTheDefaultAndTheAssistantsPolicy(t *testing.T) {
	for _, c := range []struct {
		name      string
		effects   policy.Effect
		assistant []policy.Rule
		want      string // the first call's decision by whom
	}{
		{"a tool that reads", 0, nil, "allow by default"},
		{"a tool that writes", policy.Writes, nil, "ask by user"},
		{"the assistant's deny", 0, []policy.Rule{{Action: policy.Deny, Tool: noteTool}}, "deny by rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			book := &notebook{effects: c.effects}
			s := keeperServer(t, &noteModel{}, book, c.assistant)
			conv, _ := s.svc.Create(t.Context(), "me", "keeper")
			s.send("me", conv.ID, "milk")
			if c.effects != 0 {
				s.approve("me", conv.ID, s.approval("me", conv.ID).ID, elicit.Approval{Choice: elicit.AllowOnce})
			}
			s.reply("me", conv.ID)
			if rec := s.audits(conv.ID)[0]; rec.Decision+" by "+rec.DecidedBy != c.want {
				t.Errorf("audit %+v, want %s", auditOf(rec), c.want)
			}
		})
	}
}

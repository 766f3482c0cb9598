package chat_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Arguments the user edits on an approval are decided by the rules that
// rank above the user's choice, as the model's are: an edit that a
// finalDeny or a deny forbids is refused when it is answered, naming the
// rule, with nothing recorded and the question still waiting — after a
// restart as well, when the answer comes before the turn's replay reaches
// its question — and the user can then fix the arguments or deny the call.
func TestAnEditedApprovalIsDecidedByTheRulesAgain(t *testing.T) {
	for _, c := range []struct {
		name    string
		action  policy.Action
		restart bool
	}{
		{"finalDeny", policy.FinalDeny, false},
		{"deny, answered after a restart", policy.Deny, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			forbid := policy.Rule{Action: c.action, Tool: noteTool, When: policy.If("text", "~", "*password*")}
			s, book := consentServer(t, &noteModel{}, askNotes, forbid)
			conv, _ := s.svc.Create(ctx, "me", "keeper")
			s.send("me", conv.ID, "buy milk")
			asked := s.approval("me", conv.ID)
			if c.restart {
				s.restart()
			}
			content, _ := json.Marshal(elicit.Approval{Choice: elicit.AllowOnce, Args: `{"text": "my password is hunter2"}`})
			err := s.svc.Answer(ctx, "me", conv.ID, asked.ID, accept(string(content)))
			fields, _ := errors.AsType[elicit.FieldErrors](err)
			if apperr.CodeOf(err) != apperr.Invalid || len(fields) != 1 || fields[0].Field != "args" ||
				!strings.Contains(fields[0].Message, forbid.String()) {
				t.Fatalf("the forbidden edit was answered with %v; want it refused on its args, naming the rule %q", err, forbid)
			}
			v, err := s.svc.View(ctx, "me", conv.ID)
			if err != nil {
				t.Fatal(err)
			}
			waiting := pendingElicit(v)
			if waiting == nil || waiting.Request.ID != asked.ID || len(waiting.Errors) != 1 || !strings.Contains(waiting.Errors[0].Message, forbid.String()) {
				t.Fatalf("after the refusal the page shows %+v; want the approval waiting, its args refused naming the rule", waiting)
			}
			if recs := s.audits(conv.ID); len(recs) != 0 {
				t.Errorf("the refused edit left the tool calls %+v recorded", auditsOf(recs))
			}

			// Fixed, the edit runs; the record holds the fixed arguments.
			s.approve("me", conv.ID, asked.ID, elicit.Approval{Choice: elicit.AllowOnce, Args: `{"text": "buy oat milk"}`})
			if got, want := s.reply("me", conv.ID), "noted: buy oat milk"; got != want {
				t.Errorf("reply %q, want %q", got, want)
			}
			if got := book.notes(); len(got) != 1 || got[0] != "buy oat milk" {
				t.Errorf("the tool ran with %q, want the fixed edit alone", got)
			}
			want := audit{Input: noteInput("buy oat milk"), Decision: "ask", DecidedBy: "user", Approval: asked.ID, Outcome: "ok", Ran: true}
			if recs := s.audits(conv.ID); len(recs) != 1 || auditOf(recs[0]) != want {
				t.Errorf("the audit %+v, want %+v", auditsOf(recs), want)
			}
		})
	}
}

// An edit into arguments a rule redacts is recorded as a digest, as the
// model's call with them would be; an ask whose condition the edit meets
// is the one the user just answered, so the call runs without a second
// question.
func TestAnEditedApprovalIsRedactedByTheRules(t *testing.T) {
	ctx := t.Context()
	secret := policy.Rule{Action: policy.Ask, Tool: noteTool, When: policy.If("text", "~", "*PIN*"), Redact: true}
	s, book := consentServer(t, &noteModel{}, askNotes, secret)
	conv, _ := s.svc.Create(ctx, "me", "keeper")
	s.send("me", conv.ID, "buy milk")
	asked := s.approval("me", conv.ID)
	s.approve("me", conv.ID, asked.ID, elicit.Approval{Choice: elicit.AllowOnce, Args: `{"text":"my PIN is 1234"}`})
	if got, want := s.reply("me", conv.ID), "noted: my PIN is 1234"; got != want {
		t.Errorf("reply %q, want %q: the edit ran without a second question", got, want)
	}
	if got := book.notes(); len(got) != 1 {
		t.Errorf("the tool ran %d times, want once", len(got))
	}
	recs := s.audits(conv.ID)
	if len(recs) != 1 {
		t.Fatalf("%d tool calls recorded, want 1", len(recs))
	}
	if rec := recs[0]; string(rec.Input) != "null" || rec.Digest != consent.Digest(json.RawMessage(noteInput("my PIN is 1234"))) {
		t.Errorf("recorded input %s, digest %q; want no input and the edited arguments' digest", rec.Input, rec.Digest)
	}
}

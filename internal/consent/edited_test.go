package consent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// The rules of the tests: every note asks; one about a password may not
// be kept, one about a PIN is kept as a digest.
var (
	askNotes = policy.Rule{Action: policy.Ask, Tool: "notes/remember_note"}
	password = policy.Rule{Action: policy.FinalDeny, Tool: "notes/remember_note", When: policy.If("text", "~", "*password*"), Source: "policy.rules:2"}
	pin      = policy.Rule{Action: policy.Deny, Tool: "notes/*", When: policy.If("text", "~", "*PIN*"), Redact: true}
	secret   = policy.Rule{Action: policy.Ask, Tool: "notes/*", When: policy.If("text", "~", "*secret*"), Redact: true}
)

// call is the model's call of the notes agent's tool, with text.
func call(text string) agents.ToolCall {
	in, _ := json.Marshal(map[string]string{"text": text})
	return agents.ToolCall{Agent: "notes", Tool: "remember_note", Input: in, Info: agents.ToolInfo{Effects: policy.Writes}}
}

// answering is ctx within tool call id, whose approval the user answers
// allowing once with args as they edited them.
func answering(ctx context.Context, id, args string) context.Context {
	content, _ := json.Marshal(elicit.Approval{Choice: elicit.AllowOnce, Args: args})
	ctx = durable.WithScope(ctx, id)
	return primitive.Provide(ctx, middleware.Elicit, func(context.Context, elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Accept, Content: content}, nil
	})
}

// The guard decides edited arguments again by the rules above the user's
// choice, however the answer reached it: a finalDeny or deny of the edit
// denies the call, naming the rule (the answer's check refuses it first
// where it can see the rule; the guard sees every level of the tool's
// scope); a redacting rule of the edit redacts the record; an ask of the
// edit is the one the user answered.
func TestTheGuardDecidesEditedArgumentsAgain(t *testing.T) {
	for _, c := range []struct {
		name, edit      string
		rules           []policy.Rule
		denied          policy.Action // "" for a call that runs
		final, redacted bool
	}{
		{name: "finalDeny", edit: `{"text": "my password is hunter2"}`, rules: []policy.Rule{askNotes, password}, denied: policy.FinalDeny, final: true},
		{name: "deny, redacting", edit: `{"text":"my PIN is 1234"}`, rules: []policy.Rule{askNotes, pin}, denied: policy.Deny, redacted: true},
		{name: "an ask, redacting", edit: `{"text":"a secret"}`, rules: []policy.Rule{askNotes, secret}, redacted: true},
		{name: "allowed", edit: `{"text":"buy oat milk"}`, rules: []policy.Rule{askNotes, password, pin}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := answering(policy.Narrow(policy.Program(t.Context()), c.rules...), "7-1", c.edit)
			cons, err := consent.Guard{}.Decide(ctx, "7-1", call("buy milk"))
			if err != nil {
				t.Fatal(err)
			}
			if !durable.SameJSON(cons.Call.Input, json.RawMessage(c.edit)) || cons.Approval != "7-1.1" {
				t.Errorf("the call to run has %s on approval %q; want the edit, on the approval asked", cons.Call.Input, cons.Approval)
			}
			if cons.Decision.Redact != c.redacted {
				t.Errorf("redact = %v, want %v", cons.Decision.Redact, c.redacted)
			}
			if c.denied == "" {
				if cons.Denied != nil || cons.By != consent.ByUser || cons.Decision.Action != policy.Ask {
					t.Errorf("the edit was decided %+v by %q, denied %v; want it run, allowed by the user on the ask", cons.Decision, cons.By, cons.Denied)
				}
				return
			}
			var rule string
			for _, r := range c.rules {
				if r.Action == c.denied {
					rule = r.String()
				}
			}
			if cons.Denied == nil || cons.Denied.Final != c.final || !strings.Contains(cons.Denied.Why, rule) ||
				cons.Decision.Action != c.denied || cons.By != "rule" || cons.Decision.Rule != rule {
				t.Fatalf("the forbidden edit was decided %+v by %q, denied %+v; want it denied by %q", cons.Decision, cons.By, cons.Denied, rule)
			}
			rec := consent.Audit(cons, nil, cons.Denied, consent.OutcomeDenied)
			if c.redacted && (rec.Input != nil || rec.Digest != consent.Digest(json.RawMessage(c.edit))) {
				t.Errorf("the record keeps %s, digest %q; want the edit's digest alone", rec.Input, rec.Digest)
			}
		})
	}
}

// A call that began with its edited arguments before a restart goes on
// as it began when its turn is replayed, whatever rule forbids them now:
// its approval and its own first call are in the record.
func TestAnEditedCallThatBeganGoesOnAsItBegan(t *testing.T) {
	edit := `{"text":"my password is hunter2"}`
	asked, err := elicit.Approve.Request("Allow notes to use remember_note?", elicit.ApprovalInput{Agent: "notes", Tool: "remember_note", Args: "{\n  \"text\": \"buy milk\"\n}"})
	if err != nil {
		t.Fatal(err)
	}
	asked.ID = "7-1.1"
	record := durable.NewJournal([]tree.Node{
		{Kind: tree.ElicitRequest, Ref: "7-1.1", Payload: tree.MustEncode(asked)},
		{Kind: tree.ElicitResponse, Ref: "7-1.1", Payload: tree.MustEncode(elicit.Response{Action: elicit.Accept})},
		{Kind: tree.Notify, Ref: "7-1.2", Payload: tree.MustEncode(middleware.Progress{Message: "keeping it"})},
	})
	ctx := answering(policy.Program(t.Context(), askNotes, password), "7-1", edit)
	cons, err := consent.Guard{Record: record}.Decide(ctx, "7-1", call("buy milk"))
	if err != nil {
		t.Fatal(err)
	}
	if cons.Denied != nil || !durable.SameJSON(cons.Call.Input, json.RawMessage(edit)) {
		t.Errorf("the call that began was decided %+v, denied %+v, to run with %s; want it to go on with its edit", cons.Decision, cons.Denied, cons.Call.Input)
	}
}

package consent

import (
	"context"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Edited arguments. The user who allows a call may edit its arguments on
// the approval, and the call that runs is then the edited one, which the
// policy has not seen. The user's answer stands where a remembered choice
// does in the policy's order (policy.Decide): it lifts the ask it answers
// — an ask rule whose condition the edited arguments meet asks nothing
// more, since the user who typed them is the one answering — but not a
// finalDeny or deny, which apply to what the user typed as to what the
// model asked; and a rule that redacts applies to the edited arguments
// too. The conversation refuses such an edit when it is answered
// (EditRefusal), so that nothing it forbids is recorded and the question
// keeps waiting for a fix or a deny; the guard decides the edit again
// before the call runs (Guard.Decide), for what the answer's check could
// not see: a level the tool's own code narrowed, a rule added since.

// decideEdit decides call c again under ctx's rules, its arguments being
// those the user edited on its approval. refused says a rule forbids
// them: anything but an allow or an ask fails closed.
func decideEdit(ctx context.Context, c policy.Call) (d policy.Decision, refused bool) {
	d = policy.Decide(ctx, c, nil) // the user's answer stands for the remembered choices
	return d, d.Action != policy.Allow && d.Action != policy.Ask
}

// EditRefusal says why the rules of ctx refuse a, an answer to the
// approval asked with in: the arguments it edits would be denied by a
// rule, which the refusal names, as a problem with the answer's args for
// the user to fix (or deny the call instead). It is nil when a edits
// nothing, denies the call, or edits it into arguments the rules let run.
func EditRefusal(ctx context.Context, in elicit.ApprovalInput, a elicit.Approval) elicit.FieldErrors {
	if a.Args == "" || !a.Allowed() {
		return nil
	}
	args, err := in.Edit(a.Args)
	if err != nil {
		return elicit.FieldErrors{{Field: "args", Message: err.Error()}}
	}
	effects, _ := policy.ParseEffect(in.Effects...) // only the default reads them, and it never denies
	d, refused := decideEdit(ctx, policy.Call{Agent: in.Agent, Tool: in.Tool, Args: args, Effects: effects})
	if !refused {
		return nil
	}
	return elicit.FieldErrors{{Field: "args", Message: "are forbidden by a rule: " + ruleOf(d) + ". Change them, or deny the call."}}
}

// ruleOf names the rule that made d, for a person.
func ruleOf(d policy.Decision) string {
	if d.Rule == "" {
		return "a rule that cannot be read"
	}
	return d.Rule
}

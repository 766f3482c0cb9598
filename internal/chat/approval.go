package chat

import (
	"context"
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/consent"
)

// checkEditLocked checks the arguments resp, an answer to the approval
// req, edits, against the rules the conversation's turns run under — the
// program's, its assistant's inside them — as the guard decides an edited
// call (consent.EditRefusal): arguments a rule forbids are refused, naming
// the rule, and the approval keeps waiting for a fix or a deny. The guard
// decides the edit again before the call runs, under the levels of the
// tool's own scope besides. c.mu is held.
func (qs *questions) checkEditLocked(ctx context.Context, req elicit.Request, resp elicit.Response) error {
	var a elicit.Approval
	if json.Unmarshal(resp.Content, &a) != nil || a.Args == "" {
		return nil // nothing edited: the kind's check read the answer already
	}
	var in elicit.ApprovalInput
	if json.Unmarshal(req.Input, &in) != nil {
		return elicit.FieldErrors{{Field: "args", Message: "cannot be checked: the approval does not say which tool it is about"}}
	}
	asst, _ := qs.c.svc.agents.Get(qs.c.conv.Agent) // none: the program's rules alone
	if refused := consent.EditRefusal(qs.c.svc.ruled(ctx, asst), in, a); refused != nil {
		return refused
	}
	return nil
}

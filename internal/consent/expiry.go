package consent

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Approvals expire. An approval waits as long as the ask rule that asks it
// says (policy.Rule.Expires), else as long as the program's default set in
// the turn's scope (WithApprovalExpiry, from serve's --approval-expiry),
// else for ever. Unanswered by then, the clock answers it elicit.Expired
// and the call is denied, decided by ByExpired: it fails closed, as an
// approval nobody could answer does.

// approvalExpiry is the program's default expiry of an approval; 0 for
// none.
var approvalExpiry = middleware.NewValue[time.Duration]("approval-expiry", time.Duration(0))

// WithApprovalExpiry returns ctx in which an approval whose rule says no
// expiry of its own waits at most d; d <= 0 leaves ctx as it is.
func WithApprovalExpiry(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return approvalExpiry.With(ctx, d)
}

// expiryOf is how long an approval asked on decision rule expiry waits in
// ctx: the rule's own, else the program's default; 0 for ever.
func expiryOf(ctx context.Context, rule time.Duration) time.Duration {
	if rule > 0 {
		return rule
	}
	return approvalExpiry.Get(ctx)
}

// expired is cons denied because its approval expired unanswered.
func expired(cons Consent) Consent {
	cons.By = ByExpired
	cons.Denied = &agents.DeniedError{Tool: cons.Call.Tool, Why: WhyExpired, Expired: true}
	return cons
}

// WhyExpired is why a call whose approval expired was denied, as the
// model is told and the audit keeps it.
const WhyExpired = "nobody approved it in time: the approval expired"

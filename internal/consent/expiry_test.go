package consent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// expiring is ctx within tool call id, whose approval nobody answers: the
// clock answers it Expired. asked gets how long the approval was asked to
// wait.
func expiring(ctx context.Context, id string, asked *time.Duration) context.Context {
	ctx = durable.WithScope(ctx, id)
	return primitive.Provide(ctx, middleware.Elicit, func(ctx context.Context, req elicit.Request) (elicit.Response, error) {
		*asked = primitive.ExpiresIn.Get(ctx)
		return elicit.Response{Action: elicit.Expired}, nil
	})
}

// An approval waits as long as its ask rule says, else as long as the
// program's default, else for ever; one that expires unanswered fails
// closed: the call is denied, decided by "expired", and the model is told
// nobody approved it in time — as the audit keeps it.
func TestAnExpiredApprovalIsDenied(t *testing.T) {
	for _, c := range []struct {
		name       string
		rule       policy.Rule
		defaultExp time.Duration
		want       time.Duration
	}{
		{name: "the rule's expiry", rule: policy.Rule{Action: policy.Ask, Tool: "notes/*", Expires: 90 * time.Second}, defaultExp: time.Hour, want: 90 * time.Second},
		{name: "the program's default", rule: askNotes, defaultExp: 3 * time.Minute, want: 3 * time.Minute},
		{name: "no expiry", rule: askNotes},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked time.Duration
			ctx := consent.WithApprovalExpiry(policy.Program(t.Context()), c.defaultExp)
			ctx = expiring(policy.Narrow(ctx, c.rule), "3-1", &asked)
			cons, err := consent.Guard{}.Decide(ctx, "3-1", call("buy milk"))
			if err != nil {
				t.Fatal(err)
			}
			if asked != c.want {
				t.Errorf("the approval was asked to wait %v, want %v", asked, c.want)
			}
			if cons.Denied == nil || cons.By != consent.ByExpired || cons.Denied.Final {
				t.Fatalf("an expired approval decided %+v by %q, denied %v; want it denied by %q", cons.Decision, cons.By, cons.Denied, consent.ByExpired)
			}
			rec := consent.Audit(cons, nil, cons.Denied, consent.OutcomeDenied)
			if rec.Outcome != consent.OutcomeDenied || rec.DecidedBy != consent.ByExpired || rec.Error != consent.WhyExpired {
				t.Errorf("the audit says %s by %q: %q; want denied by expired, saying why", rec.Outcome, rec.DecidedBy, rec.Error)
			}
			var denied *agents.DeniedError
			if err := error(cons.Denied); !errors.As(err, &denied) || err.Error() != "the call of remember_note was denied: nobody approved it in time: the approval expired" {
				t.Errorf("the model is told %q", err)
			}
			if !cons.Denied.Expired {
				t.Error("the denial does not say the approval expired")
			}
			if out, err := consent.Recorded(rec); out != nil || !errors.As(err, &denied) || !denied.Expired || err.Error() != cons.Denied.Error() {
				t.Errorf("replayed from the record: %s, %v; want the same denial", out, err)
			}
		})
	}
}

package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sweatpants-go/sweatpants/policy"
)

// BenchmarkDecide decides a tool call under 100 rules over 3 scope levels
// (the program's 60, an agent's 30, a conversation's 10), a quarter of
// them with a condition on the arguments, and a remembered-choices lookup
// that finds nothing: the policy's share of the budget of 5 µs a
// tool call, with its audit record. A call that rules with conditions
// cover has its arguments decoded; one that none covers allocates nothing.
func BenchmarkDecide(b *testing.B) {
	actions := []policy.Action{policy.Allow, policy.Ask, policy.Deny, policy.Allow}
	level := func(name string, n int) []policy.Rule {
		rs := make([]policy.Rule, n)
		for i := range rs {
			r := policy.Rule{Action: actions[i%len(actions)], Source: fmt.Sprintf("%s:%d", name, i+1)}
			switch i % 4 {
			case 0:
				r.Tool = fmt.Sprintf("agent%d/tool%d", i, i)
			case 1:
				r.Tool = fmt.Sprintf("tool%d*", i)
			case 2:
				r.Tool = fmt.Sprintf("*/delete%d*", i)
			case 3:
				r.Tool = "flights/book"
				r.When = policy.If("price", ">", 500+i)
			}
			rs[i] = r
		}
		return rs
	}
	ctx := policy.Program(context.Background(), level("policy.rules", 60)...)
	ctx = policy.Narrow(ctx, level("agent concierge", 30)...)
	ctx = policy.Narrow(ctx, level("conversation", 10)...)
	remembered := func(policy.Call) (policy.Decision, bool) { return policy.Decision{}, false }
	calls := []struct {
		name string
		call policy.Call
		want policy.Action
	}{
		// Rules with conditions cover the call: its arguments are decoded.
		{"conditional", policy.Call{Agent: "flights", Tool: "book", Effects: policy.Writes | policy.Spends,
			Args: json.RawMessage(`{"price":420,"to":"LIS","passenger":{"name":"Ann Lee"}}`)}, policy.Ask},
		// No rule with a condition covers the call.
		{"unconditional", policy.Call{Agent: "weather", Tool: "now", Args: json.RawMessage(`{"city":"Lisbon"}`)}, policy.Allow},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var d policy.Decision
			for b.Loop() {
				d = policy.Decide(ctx, c.call, remembered)
			}
			if d.Action != c.want {
				b.Fatalf("decided %+v", d)
			}
		})
	}
}

package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/policy"
)

// TestConditions: a rule with a condition applies when it is met and not
// when it is missed; one that cannot be evaluated (a missing field, a
// value of another type, arguments that are no JSON, a field named twice
// in two cases, of which a tool's Go input takes the last) fails closed: a
// finalDeny, deny or ask rule with it applies, an allow rule does not.
func TestConditions(t *testing.T) {
	const (
		applies = "applies"
		not     = "does not apply"
	)
	tests := []struct {
		name string
		cond string // the rule's condition, as a file writes it
		args string
		want string // for each of finalDeny, deny, ask and allow
		// wantAllow, when set, is what the allow rule does instead.
		wantAllow string
	}{
		{"a number above", "price > 500", `{"price":600}`, applies, ""},
		{"a number below", "price > 500", `{"price":400}`, not, ""},
		{"a number at the bound", "price >= 500", `{"price":500}`, applies, ""},
		{"a number at the bound, strictly", "price < 500", `{"price":500}`, not, ""},
		{"at most", "price <= 500", `{"price":500}`, applies, ""},
		{"a number equal", "seats = 2", `{"seats":2.0}`, applies, ""},
		{"a number unequal", "seats != 2", `{"seats":3}`, applies, ""},
		{"a bare string", "class = business", `{"class":"business"}`, applies, ""},
		{"a quoted string", `name = "Ann Lee"`, `{"name":"Ann Lee"}`, applies, ""},
		{"another string", "class = business", `{"class":"economy"}`, not, ""},
		{"a string unequal", "class != business", `{"class":"economy"}`, applies, ""},
		{"a boolean", "refundable = false", `{"refundable":false}`, applies, ""},
		{"another boolean", "refundable != false", `{"refundable":false}`, not, ""},
		{"a glob", "to ~ *@example.com", `{"to":"ann@example.com"}`, applies, ""},
		{"a glob crosses a slash", `url ~ "https://api.example/*"`, `{"url":"https://api.example/v1/x"}`, applies, ""},
		{"a glob missed", "to ~ *@example.com", `{"to":"ann@example.org"}`, not, ""},
		{"a nested field", "passenger.name ~ Ann*", `{"passenger":{"name":"Ann Lee"}}`, applies, ""},
		{"an array's element", "legs.1.to = OSL", `{"legs":[{"to":"LIS"},{"to":"OSL"}]}`, applies, ""},
		{"the arguments themselves", ". > 3", `5`, applies, ""},
		{"the arguments themselves, a string", ". = hi", `"hi"`, applies, ""},

		// Cannot be evaluated: restrictive rules apply, allow does not.
		{"a missing field", "price > 500", `{"cost":600}`, applies, not},
		{"a missing nested field", "passenger.name = Ann", `{"passenger":{}}`, applies, not},
		{"a path through a scalar", "passenger.name = Ann", `{"passenger":"Ann"}`, applies, not},
		{"an index beyond the array", "legs.2.to = OSL", `{"legs":[{"to":"LIS"}]}`, applies, not},
		{"an index that is no number", "legs.first.to = OSL", `{"legs":[{"to":"LIS"}]}`, applies, not},
		{"a null", "price > 500", `{"price":null}`, applies, not},
		{"a string for a number", "price > 500", `{"price":"600"}`, applies, not},
		{"a number for a string", "class = business", `{"class":1}`, applies, not},
		{"a number quoted in the rule", `seats = "2"`, `{"seats":2}`, applies, not},
		{"unequal, of another type", "class != business", `{"class":1}`, applies, not},
		{"a boolean for a number", "price > 500", `{"price":true}`, applies, not},
		{"an object for a string", "class = business", `{"class":{"name":"business"}}`, applies, not},
		{"a glob on a number", "to ~ 1*", `{"to":12}`, applies, not},
		{"arguments that are no JSON", "price > 500", `{"price":`, applies, not},
		{"no arguments", "price > 500", ``, applies, not},
		{"a field of arguments that are an array", "price > 500", `[600]`, applies, not},
		{"a field named in another case", "price > 500", `{"Price":600}`, applies, not},
		{"a field named twice, in two cases", "price < 500", `{"price":100,"PRICE":900}`, applies, not},
		{"a nested field named twice, in two cases", "passenger.name = Ann", `{"passenger":{"name":"Ann","NAME":"Bob"}}`, applies, not},
		{"a field named twice, once with the Kelvin sign", "kind = cheap", `{"kind":"cheap","\u212aind":"dear"}`, applies, not},
		{"a field named twice in a large object", "price < 500", `{"price":100,"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1,"PRICE":900}`, applies, not},
		{"a large object, no field named twice", "price < 500", `{"price":100,"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1,"K":1}`, applies, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := policy.Call{Agent: "flights", Tool: "book", Args: json.RawMessage(tt.args)}
			for _, action := range []policy.Action{policy.FinalDeny, policy.Deny, policy.Ask, policy.Allow} {
				want := tt.want
				if action == policy.Allow && tt.wantAllow != "" {
					want = tt.wantAllow
				}
				// The program's level holds the rule; the default, for a
				// read-only call with no rule, is to allow, and for one
				// with effects, to ask: the call is made so the rule's
				// applying changes the decision.
				c := call
				if action == policy.Allow {
					c.Effects = policy.Writes
				}
				rs := rules(t, "p", string(action)+" flights/book if "+tt.cond)
				got := policy.Decide(scoped(rs), c, nil)
				if applied := got.By == "rule"; applied != (want == applies) {
					t.Errorf("%s if %s on %s: decided %+v, want the rule to %s", action, tt.cond, tt.args, got, want)
				} else if applied && got.Action != action {
					t.Errorf("%s if %s on %s: decided %+v", action, tt.cond, tt.args, got)
				}
			}
		})
	}
}

// TestRedaction: Decision.Redact is set when a rule covering the call at
// any level says redact, whatever decides, an inner allow (which lifts
// nothing) included; a redact rule whose condition is missed keeps the
// arguments, and one whose condition cannot be evaluated does not.
func TestRedaction(t *testing.T) {
	tests := []struct {
		name    string
		program []policy.Rule
		inner   []policy.Rule
		call    policy.Call
		want    bool
	}{
		{"no rule says so", rules(t, "p", "allow flights/*"), nil, search, false},
		{"the deciding rule says so", rules(t, "p", "allow flights/search redact"), nil, search, true},
		{"a rule that does not decide says so", rules(t, "p", "allow flights/* redact", "deny flights/search"), nil, search, true},
		{"an inner allow says so", none, rules(t, "agent", "allow search redact"), search, true},
		{"a rule of another tool says so", rules(t, "p", "allow hotels/* redact"), nil, search, false},
		{"its condition is met", rules(t, "p", "allow flights/search if to = LIS redact"), nil, search, true},
		{"its condition is missed", rules(t, "p", "allow flights/search redact if to = OSL"), nil, search, false},
		{"its condition cannot be evaluated", rules(t, "p", "allow flights/search if from = LIS redact"), nil, search, true},
		{"the call is finally denied", rules(t, "p", "finalDeny flights/*", "ask flights/search redact"), nil, search, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := policy.Decide(scoped(tt.program, tt.inner), tt.call, nil); got.Redact != tt.want {
				t.Errorf("decided %+v, want Redact %v", got, tt.want)
			}
		})
	}
	d := policy.Decide(scoped(rules(t, "p", "allow flights/* redact")), search, remembers(forConversation))
	if d.By != "remembered" || !d.Redact {
		t.Errorf("a remembered choice: %+v, want it with Redact from the rule", d)
	}
}

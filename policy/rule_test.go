package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/policy"
)

// TestRulesInCode: a program builds rules as values, with If for a
// condition, and a decision names them as a file would write them, with
// where they were set.
func TestRulesInCode(t *testing.T) {
	program := []policy.Rule{
		{Action: policy.FinalDeny, Tool: "*/delete*", Source: "app"},
		{Action: policy.Ask, Tool: "flights/book", When: policy.If("price", ">", 500), Source: "app"},
		{Action: policy.Allow, Tool: "flights/*", Redact: true},
	}
	if err := policy.Check(program...); err != nil {
		t.Fatal(err)
	}
	ctx := policy.Program(t.Context(), program...)
	ctx = policy.Narrow(ctx, policy.Rule{Action: policy.Deny, Tool: "book", When: policy.If("passenger.name", "~", "* Smith"), Source: "agent concierge"})

	tests := []struct {
		args string
		want policy.Decision
	}{
		{`{"price":600,"passenger":{"name":"Ann Lee"}}`, policy.Decision{Action: policy.Ask, By: "rule", Rule: "ask flights/book if price > 500 (app)", Redact: true}},
		{`{"price":300,"passenger":{"name":"Ann Lee"}}`, policy.Decision{Action: policy.Allow, By: "rule", Rule: "allow flights/* redact", Redact: true}},
		{`{"price":300,"passenger":{"name":"Jo Smith"}}`, policy.Decision{Action: policy.Deny, By: "rule", Rule: `deny book if passenger.name ~ "* Smith" (agent concierge)`, Redact: true}},
	}
	for _, tt := range tests {
		call := policy.Call{Agent: "flights", Tool: "book", Args: json.RawMessage(tt.args), Effects: policy.Spends}
		if got := policy.Decide(ctx, call, nil); got != tt.want {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tt.args, got, tt.want)
		}
	}
	if got := policy.Decide(ctx, policy.Call{Agent: "files", Tool: "delete_all"}, remembers(forConversation)); got.Action != policy.FinalDeny {
		t.Errorf("delete_all: %+v, want the finalDeny", got)
	}
}

// TestRulesThatCannotBeReadFailClosed: Check names what is wrong with a
// rule built in code; one that reaches Decide all the same is taken the
// strict way: an unknown action denies, a tool pattern that cannot be read
// covers every tool when the rule restricts and none when it allows, and a
// condition that cannot be read applies to a restrictive rule only.
func TestRulesThatCannotBeReadFailClosed(t *testing.T) {
	tests := []struct {
		name    string
		rule    policy.Rule
		call    policy.Call
		checked string // what Check says
		want    policy.Action
	}{
		{"an unknown action", policy.Rule{Action: "permit", Tool: "weather/*"}, policy.Call{Agent: "weather", Tool: "now"},
			`unknown action "permit" (want allow, ask, deny or finalDeny)`, policy.Deny},
		{"no action at all", policy.Rule{Tool: "weather/*"}, policy.Call{Agent: "weather", Tool: "now"},
			`unknown action ""`, policy.Deny},
		{"a deny of a bad glob", policy.Rule{Action: policy.Deny, Tool: "files/[a-"}, policy.Call{Agent: "weather", Tool: "now"},
			`bad glob "[a-": a [ is never closed by a ]`, policy.Deny},
		{"an ask of a tool with three parts", policy.Rule{Action: policy.Ask, Tool: "a/b/c"}, policy.Call{Agent: "weather", Tool: "now"},
			`bad tool "a/b/c": want "agent/tool" or "tool"`, policy.Ask},
		{"an allow of a bad glob", policy.Rule{Action: policy.Allow, Tool: `files/x\`}, policy.Call{Agent: "files", Tool: "x", Effects: policy.Writes},
			`bad glob "x\\": it ends in a \ that quotes nothing`, policy.Ask},
		{"no tool", policy.Rule{Action: policy.Allow}, policy.Call{Agent: "files", Tool: "x", Effects: policy.Writes},
			`no tool`, policy.Ask},
		{"a deny with a bad operator", policy.Rule{Action: policy.Deny, Tool: "files/x", When: policy.If("size", "==", 3)}, policy.Call{Agent: "files", Tool: "x", Args: json.RawMessage(`{"size":4}`)},
			`unknown operator "==" (want =, !=, <, <=, >, >= or ~)`, policy.Deny},
		{"an allow with a bad value", policy.Rule{Action: policy.Allow, Tool: "files/x", When: policy.If("size", "<", []int{3})}, policy.Call{Agent: "files", Tool: "x", Args: json.RawMessage(`{"size":2}`), Effects: policy.Writes},
			`size: the value [3] ([]int) is no number, string or boolean`, policy.Ask},
		{"an ask comparing a string by size", policy.Rule{Action: policy.Ask, Tool: "files/x", When: policy.If("name", "<", "m")}, policy.Call{Agent: "files", Tool: "x", Args: json.RawMessage(`{"name":"z"}`)},
			`name < m: < compares numbers, and m is none`, policy.Ask},
		{"a deny with a bad field", policy.Rule{Action: policy.Deny, Tool: "files/x", When: policy.If("a..b", "=", 1)}, policy.Call{Agent: "files", Tool: "x", Args: json.RawMessage(`{}`)},
			`bad field "a..b"`, policy.Deny},
		{"a deny with a bad glob to match", policy.Rule{Action: policy.Deny, Tool: "files/x", When: policy.If("path", "~", "[z-a]")}, policy.Call{Agent: "files", Tool: "x", Args: json.RawMessage(`{"path":"b"}`)},
			`path ~ [z-a]: bad glob: a range z-a runs backwards`, policy.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Source = "code"
			err := policy.Check(tt.rule)
			if err == nil || !strings.Contains(err.Error(), tt.checked) || !strings.Contains(err.Error(), "(code)") {
				t.Errorf("Check: %v, want it to name the rule and say %q", err, tt.checked)
			}
			got := policy.Decide(policy.Program(t.Context(), tt.rule), tt.call, nil)
			if got.Action != tt.want {
				t.Errorf("decided %+v, want %s", got, tt.want)
			}
		})
	}
}

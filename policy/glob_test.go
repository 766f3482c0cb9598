package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/policy"
)

// TestGlobs: a tool's pattern and a ~ condition are globs in path.Match's
// syntax, whose * in a condition crosses a / (so a rule about a URL or a
// path covers everything under it), and which match bytes that are no
// UTF-8 as they are.
func TestGlobs(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"book*", "booking", true},
		{"book*", "rebook", false},
		{"*book", "rebook", true},
		{"b?ok", "böok", true},
		{"b?ok", "bok", false},
		{"[a-c]at", "bat", true},
		{"[^a-c]at", "bat", false},
		{"[!a-c]at", "rat", true},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{"*a*b*c*", "xxaxxbxxcxx", true},
		{"*a*b*c*", "xxaxxcxxbxx", false},
		{"https://api.example/*", "https://api.example/v1/users/2", true},
		{"/tmp/*", "/etc/passwd", false},
		{"*\xc3*", "\xc3", true},
		{"\xc3", "\u00c3", false},
	}
	for _, tt := range tests {
		r := policy.Rule{Action: policy.Deny, Tool: "x", When: policy.If(".", "~", tt.pattern)}
		if err := policy.Check(r); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(tt.s)
		if !json.Valid(args) || tt.pattern == "\xc3" || tt.pattern == "*\xc3*" {
			// JSON has no string of bytes that are no UTF-8: match the
			// tool's name instead, which the glob takes the same way.
			d := policy.Decide(policy.Program(t.Context(), policy.Rule{Action: policy.Deny, Tool: tt.pattern}), policy.Call{Tool: tt.s}, nil)
			if got := d.Action == policy.Deny; got != tt.want {
				t.Errorf("tool %q on %q: %v, want %v", tt.pattern, tt.s, got, tt.want)
			}
			continue
		}
		d := policy.Decide(policy.Program(t.Context(), r), policy.Call{Tool: "x", Args: args}, nil)
		if got := d.Action == policy.Deny; got != tt.want {
			t.Errorf("%q ~ %q: %v, want %v", tt.s, tt.pattern, got, tt.want)
		}
	}
}

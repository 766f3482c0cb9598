package policy_test

import (
	"encoding/json"
	"errors"
	"path"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/policy"
)

// FuzzParse: no line makes Parse panic, every rule it reads is written
// back by String as a line Parse reads as the same rule, and Decide takes
// any rule it reads on any arguments.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"finalDeny */delete*\nask flights/book if price > 500\nallow weather/*\nallow flights/search redact\n",
		`deny mail/send if to ~ "*@x.example" redact`,
		`ask book redact if passenger.name = "Ann \"Jo\" Lee"`,
		"deny pay if amount>=1e3 # dear\nallow echo if . != -2.5",
		"ask sms if urgent = true\nask x if legs.0.to = LIS",
		"deny files/[a-z]?\\*", "deny x if n ~ 1*", "permit x", "deny x if price > 5oo",
		"deny x if a = \"\\u00e9\"", "allow x if y = \"#\"", "ask x if y ~ [^a-c]*",
	} {
		f.Add(s, `{"price":600,"to":"a@x.example","legs":[{"to":"LIS"}]}`)
	}
	f.Fuzz(func(t *testing.T, file, args string) {
		rules, err := policy.Parse("f", strings.NewReader(file))
		if err != nil {
			if rules != nil {
				t.Fatalf("rules %q with the error %v", rules, err)
			}
			return
		}
		for _, r := range rules {
			if err := policy.Check(r); err != nil {
				t.Fatalf("Parse read %q, which Check refuses: %v", r, err)
			}
			r.Source = ""
			again, err := policy.Parse("f", strings.NewReader(r.String()))
			if err != nil || len(again) != 1 {
				t.Fatalf("%q read as %#v, written as %q, read back as %q, %v", file, r, r.String(), again, err)
			}
			again[0].Source = ""
			if !reflect.DeepEqual(again[0], r) {
				t.Fatalf("%q read as %#v, written as %q, read back as %#v", file, r, r.String(), again[0])
			}
		}
		ctx := policy.Program(t.Context(), rules...)
		ctx = policy.Narrow(ctx, rules...)
		d := policy.Decide(ctx, policy.Call{Agent: "flights", Tool: "book", Args: json.RawMessage(args), Effects: policy.Writes}, nil)
		switch d.Action {
		case policy.Allow, policy.Ask, policy.Deny, policy.FinalDeny:
		default:
			t.Fatalf("decided %+v", d)
		}
	})
}

// FuzzGlob: a rule's glob matches as path.Match does wherever both take
// the pattern, the name has no / (across which only ours matches a *) and
// both are UTF-8 (where path.Match's * may stop inside a character, ours
// does not).
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"book*", "booking"}, {"*/delete*", "x/delete"}, {"[a-c]?x", "bzx"}, {`\*x`, "*x"},
		{"[^a-c]*", "d"}, {"*a*b*c", "xaybzc"}, {"é?", "éà"}, {"a*", "a"}, {"**", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(name) || strings.Contains(name, "/") || strings.Contains(pattern, "/") || strings.Contains(pattern, "[!") || strings.Contains(pattern, "[]") {
			return // where path.Match reads otherwise by design
		}
		want, err := path.Match(pattern, name)
		if errors.Is(err, path.ErrBadPattern) {
			return
		}
		rs := []policy.Rule{{Action: policy.Deny, Tool: pattern}}
		if policy.Check(rs...) != nil {
			return
		}
		d := policy.Decide(policy.Program(t.Context(), rs...), policy.Call{Agent: "a", Tool: name}, nil)
		if got := d.Action == policy.Deny; got != want {
			t.Fatalf("%q on %q: ours %v, path.Match %v", pattern, name, got, want)
		}
	})
}

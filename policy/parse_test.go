package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/policy"
)

// TestParse reads a rule file as its documentation says: one rule a line,
// comments and blank lines skipped, each rule's source its file and line.
func TestParse(t *testing.T) {
	file := "\ufeff# The program's rules.\n" +
		"finalDeny */delete*\n" +
		"\n" +
		"ask       flights/book  if price > 500   # dear ones\n" +
		"allow     weather/*\r\n" +
		"allow     flights/search redact\n" +
		"  deny    mail/send if to ~ \"*@competitor.example\" redact\n" +
		"ask book redact if passenger.name = \"Ann \\\"Jo\\\" Lee\"\n" +
		"deny pay if amount>=1e3\n" +
		"allow echo if . != -2.5\n" +
		"ask sms if urgent = true\n" +
		"ask fetch if url ~ https://x.example/#top\n" +
		"ask flights/book expires 10m if price > 500\n"
	got, err := policy.Parse("policy.rules", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"finalDeny */delete* (policy.rules:2)",
		"ask flights/book if price > 500 (policy.rules:4)",
		"allow weather/* (policy.rules:5)",
		"allow flights/search redact (policy.rules:6)",
		`deny mail/send if to ~ *@competitor.example redact (policy.rules:7)`,
		`ask book if passenger.name = "Ann \"Jo\" Lee" redact (policy.rules:8)`,
		"deny pay if amount >= 1000 (policy.rules:9)",
		"allow echo if . != -2.5 (policy.rules:10)",
		"ask sms if urgent = true (policy.rules:11)",
		"ask fetch if url ~ https://x.example/#top (policy.rules:12)",
		"ask flights/book if price > 500 expires 10m0s (policy.rules:13)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rules, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("rule %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if c := got[1].When; c == nil || c.Field != "price" || c.Op != ">" || c.Value != 500.0 {
		t.Errorf("the condition: %+v", c)
	}
	if c := got[5].When; !got[5].Redact || c == nil || c.Value != `Ann "Jo" Lee` {
		t.Errorf("the quoted string: %+v", got[5])
	}
	if c := got[8].When; c == nil || c.Value != true {
		t.Errorf("the boolean: %+v", c)
	}
	if got[10].Expires != 10*time.Minute {
		t.Errorf("the expiry: got %v, want 10m", got[10].Expires)
	}
	if rs, err := policy.Parse("empty", strings.NewReader("# nothing yet\n\n")); err != nil || len(rs) != 0 {
		t.Errorf("a file of comments: %v, %v", rs, err)
	}
}

// TestParseErrors: every line that cannot be read is named by file and
// line, with what is wrong with it; none of the file's rules is returned.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"permit weather/*", `unknown action "permit" (want allow, ask, deny or finalDeny)`},
		{"Allow weather/*", `unknown action "Allow"`},
		{"deny", `deny names no tool: want "agent/tool" or "tool", globs allowed`},
		{"deny # a comment", `deny names no tool`},
		{"deny files/[a-", `bad glob "[a-": a [ is never closed by a ]`},
		{"deny files/[]", `bad glob "[]": a class [] matches no character`},
		{`deny files/x\`, `bad glob "x\\": it ends in a \ that quotes nothing`},
		{"deny a/b/c", `bad tool "a/b/c"`},
		{"deny /x", `bad tool "/x"`},
		{"deny x/", `bad tool "x/"`},
		{"deny x y", `unexpected "y" after the tool: a rule may go on with "if FIELD OP VALUE", "redact" and "expires DURATION", nothing else`},
		{"ask x expires", `expires wants a positive duration such as 10m or 90s, not ""`},
		{"ask x expires soon", `expires wants a positive duration such as 10m or 90s, not "soon"`},
		{"ask x expires -1m", `expires wants a positive duration`},
		{"ask x expires 1m expires 2m", "expires is said twice"},
		{"allow x expires 1m", "expires is said of an ask rule's approval, not of allow"},
		{"ask x expires 1m please", `unexpected "please" after expires`},
		{"deny x redact redact", "redact is said twice"},
		{"deny x if", "if names no condition"},
		{"deny x if price", "the condition on price has no operator"},
		{"deny x if price 500", `the condition on price has no operator before "500"`},
		{"deny x if > 500", `the condition names no field before ">"`},
		{"deny x if price == 500", `unknown operator "==" (want =, !=, <, <=, >, >= or ~)`},
		{"deny x if price => 500", `unknown operator "=>"`},
		{"deny x if price >", "the condition price > has no value"},
		{"deny x if price > 5oo", `price >: unparsable value "5oo": it starts as a number but is none (quote it for a string)`},
		{"deny x if price > 1.2.3", `unparsable value "1.2.3"`},
		{"deny x if price > 1e999", `unparsable value "1e999"`},
		{"deny x if price > cheap", "price > cheap: > compares numbers, and cheap is none"},
		{"deny x if price > \"500\"", `price > "500": > compares numbers, and "500" is none`},
		{"deny x if paid < true", "< compares numbers, and true is none"},
		{"deny x if n ~ 5", ""}, // a glob's bare value is a string: no error
		{"deny x if n ~ \"[b-a]\"", "n ~ [b-a]: bad glob: a range b-a runs backwards"},
		{"deny x if name = \"Ann", `name =: the string "Ann is never closed by a "`},
		{`deny x if name = "A\q"`, `name =: bad string "A\q"`},
		{"deny x if a..b = 1", `bad field "a..b": names joined by single dots, or "." alone`},
		{"deny x if .a = 1", `bad field ".a"`},
		{"deny x if a = 1 if b = 2", "a rule has one condition (a second if)"},
		{"deny x if a = 1 and b = 2", `unexpected "and" after the condition`},
		{"deny x redact please", `unexpected "please" after redact`},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			rs, err := policy.Parse("p.rules", strings.NewReader("allow weather/*\n"+tt.line+"\n"))
			if tt.want == "" {
				if err != nil || len(rs) != 2 {
					t.Fatalf("got %q, %v; want both rules", rs, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), "p.rules:2: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want p.rules:2: …%s", err, tt.want)
			}
			if rs != nil {
				t.Errorf("got rules %q with the error", rs)
			}
		})
	}
	_, err := policy.Parse("p.rules", strings.NewReader("permit a\nallow b\ndeny c if d\n"))
	if err == nil || err.Error() != "p.rules:1: unknown action \"permit\" (want allow, ask, deny or finalDeny)\n"+
		"p.rules:3: the condition on d has no operator (want =, !=, <, <=, >, >= or ~)" {
		t.Errorf("two bad lines: got %v, want both named, in order", err)
	}
}

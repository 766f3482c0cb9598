package policy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/policy"
)

// rules reads the lines of a rule file named name, so a decision names a
// rule as "deny flights/book (agent:1)".
func rules(t testing.TB, name string, lines ...string) []policy.Rule {
	t.Helper()
	rs, err := policy.Parse(name, strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// scoped is a context with the program's level (when program is not nil)
// and then each inner level, outermost first.
func scoped(program []policy.Rule, inner ...[]policy.Rule) context.Context {
	ctx := context.Background()
	if program != nil {
		ctx = policy.Program(ctx, program...)
	}
	for _, lv := range inner {
		ctx = policy.Narrow(ctx, lv...)
	}
	return ctx
}

// remembers is a remembered-choices lookup that knows one choice.
func remembers(d policy.Decision) func(policy.Call) (policy.Decision, bool) {
	return func(policy.Call) (policy.Decision, bool) { return d, true }
}

var (
	book            = policy.Call{Agent: "flights", Tool: "book", Args: json.RawMessage(`{"price":600,"class":"business","passenger":{"name":"Ann Lee"},"legs":[{"to":"LIS"}],"url":"https://api.example/v1/x"}`), Effects: policy.Writes | policy.Spends}
	search          = policy.Call{Agent: "flights", Tool: "search", Args: json.RawMessage(`{"to":"LIS"}`)}
	forConversation = policy.Decision{Action: policy.Allow, By: "remembered", Rule: "allow flights/book for this conversation"}
	none            = []policy.Rule{}
)

func allowBy(by, rule string) policy.Decision {
	return policy.Decision{Action: policy.Allow, By: by, Rule: rule}
}
func askBy(by, rule string) policy.Decision {
	return policy.Decision{Action: policy.Ask, By: by, Rule: rule}
}
func denyBy(rule string) policy.Decision {
	return policy.Decision{Action: policy.Deny, By: "rule", Rule: rule}
}
func finalBy(rule string) policy.Decision {
	return policy.Decision{Action: policy.FinalDeny, By: "rule", Rule: rule}
}

// TestTheOrderOfEvaluation walks every edge of the fixed order: finalDeny,
// deny, remembered choices, ask, allow, the default; and the levels,
// where an inner one narrows and never widens.
func TestTheOrderOfEvaluation(t *testing.T) {
	tests := []struct {
		name       string
		program    []policy.Rule // nil: no program's level at all
		inner      [][]policy.Rule
		again      []policy.Rule // rules a second Program sets inside
		call       policy.Call
		remembered *policy.Decision
		want       policy.Decision
	}{
		// The default.
		{"with no rules a tool with effects asks", nil, nil, nil, book, nil, askBy("default", "")},
		{"with no rules a read-only tool runs", nil, nil, nil, search, nil, allowBy("default", "")},
		{"a tool with one effect asks", none, nil, nil, policy.Call{Tool: "locate", Effects: policy.Device}, nil, askBy("default", "")},
		{"rules about other tools leave the default", rules(t, "p", "deny hotels/*", "allow weather/*"), nil, nil, book, nil, askBy("default", "")},

		// finalDeny.
		{"finalDeny beats a remembered allow", rules(t, "p", "finalDeny flights/book"), nil, nil, book, &forConversation, finalBy("finalDeny flights/book (p:1)")},
		{"finalDeny beats an allow of its level", rules(t, "p", "allow flights/*", "finalDeny flights/book"), nil, nil, book, nil, finalBy("finalDeny flights/book (p:2)")},
		{"finalDeny beats deny", rules(t, "p", "deny flights/book", "finalDeny */book"), nil, nil, book, nil, finalBy("finalDeny */book (p:2)")},
		{"an inner finalDeny beats the program's allow", rules(t, "p", "allow flights/*"), [][]policy.Rule{rules(t, "agent", "finalDeny book")}, nil, book, &forConversation, finalBy("finalDeny book (agent:1)")},

		// deny.
		{"deny beats allow", rules(t, "p", "allow flights/book", "deny flights/book"), nil, nil, book, nil, denyBy("deny flights/book (p:2)")},
		{"deny beats a remembered allow", rules(t, "p", "deny flights/book"), nil, nil, book, &forConversation, denyBy("deny flights/book (p:1)")},
		{"an inner deny beats an outer allow", rules(t, "p", "allow flights/*"), [][]policy.Rule{rules(t, "agent", "deny flights/book")}, nil, book, nil, denyBy("deny flights/book (agent:1)")},
		{"an inner deny of a read-only tool", none, [][]policy.Rule{rules(t, "conversation", "deny search")}, nil, search, nil, denyBy("deny search (conversation:1)")},
		{"deny beats ask", rules(t, "p", "ask flights/*", "deny flights/book"), nil, nil, book, nil, denyBy("deny flights/book (p:2)")},

		// Remembered choices.
		{"a remembered allow lifts an ask rule", rules(t, "p", "ask flights/book"), nil, nil, book, &forConversation, forConversation},
		{"a remembered allow lifts the default ask", none, nil, nil, book, &forConversation, forConversation},
		{"a remembered allow lifts an inner ask", rules(t, "p", "allow flights/*"), [][]policy.Rule{rules(t, "agent", "ask book")}, nil, book, &forConversation, forConversation},
		{"a remembered allow comes before the program's allow", rules(t, "p", "allow flights/*"), nil, nil, book, &forConversation, forConversation},
		{"a remembered deny denies", rules(t, "p", "allow flights/*"), nil, nil, book, &policy.Decision{Action: policy.Deny, Rule: "never"}, policy.Decision{Action: policy.Deny, By: "remembered", Rule: "never"}},
		{"a remembered ask asks where an allow would apply", rules(t, "p", "allow flights/*"), nil, nil, book, &policy.Decision{Action: policy.Ask}, askBy("remembered", "")},
		{"a remembered ask leaves an ask rule to name itself", rules(t, "p", "ask flights/*"), nil, nil, book, &policy.Decision{Action: policy.Ask}, askBy("rule", "ask flights/* (p:1)")},
		{"a remembered choice that cannot be read denies", rules(t, "p", "allow flights/*"), nil, nil, book, &policy.Decision{Action: "yes"}, policy.Decision{Action: policy.Deny, By: "remembered"}},

		// ask and allow.
		{"ask beats allow", rules(t, "p", "allow flights/*", "ask flights/book"), nil, nil, book, nil, askBy("rule", "ask flights/book (p:2)")},
		{"ask beats a more specific allow", rules(t, "p", "ask flights/*", "allow flights/book"), nil, nil, book, nil, askBy("rule", "ask flights/* (p:1)")},
		{"the program's allow lifts the default ask", rules(t, "p", "allow flights/book"), nil, nil, book, nil, allowBy("rule", "allow flights/book (p:1)")},
		{"an allow of a read-only tool names its rule", rules(t, "p", "allow flights/*"), nil, nil, search, nil, allowBy("rule", "allow flights/* (p:1)")},
		{"the outermost rule of an action is named", rules(t, "p", "ask */book"), [][]policy.Rule{rules(t, "agent", "ask flights/book")}, nil, book, nil, askBy("rule", "ask */book (p:1)")},

		// Inner levels narrow and never widen.
		{"an inner ask beats the program's allow", rules(t, "p", "allow flights/*"), [][]policy.Rule{rules(t, "agent", "ask book")}, nil, book, nil, askBy("rule", "ask book (agent:1)")},
		{"an inner ask asks for a read-only tool", none, [][]policy.Rule{rules(t, "agent", "ask flights/search")}, nil, search, nil, askBy("rule", "ask flights/search (agent:1)")},
		{"an inner allow does not lift the default ask", none, [][]policy.Rule{rules(t, "agent", "allow flights/book")}, nil, book, nil, askBy("default", "")},
		{"an inner allow does not lift an outer ask", rules(t, "p", "ask flights/book"), [][]policy.Rule{rules(t, "agent", "allow flights/book")}, nil, book, nil, askBy("rule", "ask flights/book (p:1)")},
		{"an inner allow does not lift an outer deny", rules(t, "p", "deny flights/book"), [][]policy.Rule{rules(t, "agent", "allow flights/book")}, nil, book, nil, denyBy("deny flights/book (p:1)")},
		{"an inner allow agreeing with the program's leaves the program's to decide", rules(t, "p", "allow flights/*"), [][]policy.Rule{rules(t, "agent", "allow flights/book"), rules(t, "conversation", "allow book")}, nil, book, nil, allowBy("rule", "allow flights/* (p:1)")},
		{"a deeper allow does not lift a middle level's ask", rules(t, "p", "allow flights/*"), [][]policy.Rule{rules(t, "agent", "ask book"), rules(t, "tool", "allow book")}, nil, book, nil, askBy("rule", "ask book (agent:1)")},
		{"without the program's level no allow lifts the default ask", nil, [][]policy.Rule{rules(t, "agent", "allow flights/book")}, nil, book, nil, askBy("default", "")},
		{"a second Program narrows and does not widen", rules(t, "p", "ask flights/book"), nil, rules(t, "inner", "allow *"), book, nil, askBy("rule", "ask flights/book (p:1)")},

		// Tool patterns.
		{"a tool named alone is any agent's", rules(t, "p", "deny book"), nil, nil, policy.Call{Agent: "hotels", Tool: "book"}, nil, denyBy("deny book (p:1)")},
		{"an agent's tool is not another's", rules(t, "p", "deny flights/book"), nil, nil, policy.Call{Agent: "hotels", Tool: "book"}, nil, allowBy("default", "")},
		{"a glob on both parts", rules(t, "p", "deny */delete*"), nil, nil, policy.Call{Agent: "files", Tool: "delete_all"}, nil, denyBy("deny */delete* (p:1)")},
		{"a tool of no agent is any agent's", rules(t, "p", "deny */x"), nil, nil, policy.Call{Tool: "x"}, nil, denyBy("deny */x (p:1)")},
		{"a class in a glob", rules(t, "p", "deny flights/[bc]ook"), nil, nil, book, nil, denyBy("deny flights/[bc]ook (p:1)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := scoped(tt.program, tt.inner...)
			if tt.again != nil {
				ctx = policy.Program(ctx, tt.again...)
			}
			var remembered func(policy.Call) (policy.Decision, bool)
			var asked []policy.Call
			if tt.remembered != nil {
				remembered = func(c policy.Call) (policy.Decision, bool) {
					asked = append(asked, c)
					return *tt.remembered, true
				}
			}
			got := policy.Decide(ctx, tt.call, remembered)
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if len(asked) > 1 || len(asked) == 1 && asked[0].Tool != tt.call.Tool {
				t.Errorf("the remembered choices were looked up for %+v, want the call once", asked)
			}
			if denied := tt.want.By == "rule" && (tt.want.Action == policy.Deny || tt.want.Action == policy.FinalDeny); denied && len(asked) > 0 {
				t.Error("the remembered choices were looked up for a call a rule denies")
			}
		})
	}
}

// TestALevelIsSetInManyContexts: a Level, compiled once, decides in every
// context it is set in as the rules it was made of do, as the program's
// level or inside another; a nil one has no rules.
func TestALevelIsSetInManyContexts(t *testing.T) {
	program := policy.NewLevel(rules(t, "p", "allow flights/*")...)
	agent := policy.NewLevel(rules(t, "agent", "ask flights/book", "allow */*")...)
	for range 2 {
		ctx := program.Program(t.Context())
		if got := policy.Decide(ctx, book, nil); got != allowBy("rule", "allow flights/* (p:1)") {
			t.Errorf("the program's level: %+v", got)
		}
		if got := policy.Decide(agent.Narrow(ctx), book, nil); got != askBy("rule", "ask flights/book (agent:1)") {
			t.Errorf("an agent's inside: %+v", got)
		}
		if got := policy.Decide(agent.Program(ctx), search, nil); got != allowBy("rule", "allow flights/* (p:1)") {
			t.Errorf("a second program's level, which narrows: %+v", got)
		}
	}
	var none *policy.Level
	if got := policy.Decide(none.Program(t.Context()), book, nil); got != askBy("default", "") {
		t.Errorf("a nil level: %+v", got)
	}
	if got := policy.Decide(none.Narrow(program.Program(t.Context())), book, nil); got != allowBy("rule", "allow flights/* (p:1)") {
		t.Errorf("a nil level inside: %+v", got)
	}
}

// TestDecideCarriesTheApprovalsExpiry: an ask rule that says how long its
// approval waits hands that on with its decision; the default ask and an
// ask rule that says nothing leave it to the program's default (0).
func TestDecideCarriesTheApprovalsExpiry(t *testing.T) {
	ctx := scoped(rules(t, "p", "ask flights/book expires 90s", "ask flights/hold"))
	for _, tt := range []struct {
		tool string
		want time.Duration
	}{{"book", 90 * time.Second}, {"hold", 0}, {"cancel", 0}} {
		d := policy.Decide(ctx, policy.Call{Agent: "flights", Tool: tt.tool, Effects: policy.Writes}, nil)
		if d.Action != policy.Ask || d.Expires != tt.want {
			t.Errorf("%s: got %s expiring after %v, want ask after %v", tt.tool, d.Action, d.Expires, tt.want)
		}
	}
}

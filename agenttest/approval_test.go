package agenttest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Run and Serve ask the user before a tool with effects runs, as the
// service does under the default policy, and the scripted user answers
// the approval: allowed, the call runs; denied, it does not, and the turn
// is told why.
func TestATestAnswersTheApprovalOfAToolWithEffects(t *testing.T) {
	tests := []struct {
		name       string
		approval   elicit.Approval
		reply      string
		ran        int32
		transcript string // a line the in-process transcript holds
	}{
		{name: "allowed", approval: elicit.Approval{Choice: elicit.AllowOnce},
			reply: "Done, noted: milk.", ran: 1, transcript: `tool notes.remember("milk"): "noted: milk"`},
		{name: "edited", approval: elicit.Approval{Choice: elicit.AllowOnce, Args: `"oat milk"`},
			reply: "Done, noted: oat milk.", ran: 1, transcript: `tool notes.remember("oat milk"): "noted: oat milk"`},
		{name: "denied", approval: elicit.Approval{Choice: elicit.DenyCall, Reason: "we have milk"},
			reply:      "I could not add it: the call of remember was denied: the user denied it: we have milk",
			transcript: `tool notes.remember("milk") denied: the user denied it: we have milk`},
	}
	for _, tc := range tests {
		t.Run("Run "+tc.name, func(t *testing.T) {
			before := notesKept.Load()
			got := agenttest.Run(t, keeper, "milk", agenttest.User(agenttest.Approve("remember", tc.approval)))
			if got.Reply != tc.reply {
				t.Errorf("reply = %q, want %q", got.Reply, tc.reply)
			}
			if n := notesKept.Load() - before; n != tc.ran {
				t.Errorf("remember ran %d times, want %d", n, tc.ran)
			}
			if len(got.Questions) != 1 || got.Questions[0].Kind != elicit.Approve.Name {
				t.Errorf("questions = %+v, want the approval of remember", got.Questions)
			}
			if !strings.Contains(got.String(), tc.transcript) {
				t.Errorf("the transcript does not say %q:\n%s", tc.transcript, got)
			}
		})
		t.Run("Serve "+tc.name, func(t *testing.T) {
			before := notesKept.Load()
			s := agenttest.Serve(t, keeper, agenttest.User(agenttest.Approve("notes/remember", tc.approval)))
			if got := s.Send("milk").Reply(); got != tc.reply {
				t.Errorf("reply = %q, want %q", got, tc.reply)
			}
			if n := notesKept.Load() - before; n != tc.ran {
				t.Errorf("remember ran %d times, want %d", n, tc.ran)
			}
		})
	}
}

// A call the policy allows, or that the user allowed for the conversation
// on an earlier approval, runs without asking; a turn whose approval no
// user step expects fails the test, naming it.
func TestRunAsksOnlyWhereThePolicySaysAsk(t *testing.T) {
	twice := agents.Assistant{Name: "twice", Turn: func(ctx context.Context, message string) (string, error) {
		for _, m := range []string{"milk", "eggs"} {
			if _, err := rememberNew.Call(ctx, m); err != nil {
				return "", err
			}
		}
		return "both", nil
	}}
	t.Run("allowed by a rule", func(t *testing.T) {
		got := agenttest.Run(t, twice, "shop", agenttest.Scope(func(ctx context.Context) context.Context {
			return policy.Program(ctx, policy.Rule{Action: policy.Allow, Tool: "notes/remember"})
		}))
		if len(got.Questions) != 0 || len(got.Tools) != 2 {
			t.Errorf("asked %+v, ran %d tools; want no question and both calls", got.Questions, len(got.Tools))
		}
	})
	t.Run("allowed for the conversation", func(t *testing.T) {
		got := agenttest.Run(t, twice, "shop",
			agenttest.User(agenttest.Approve("remember", elicit.Approval{Choice: elicit.AllowConversation})))
		if len(got.Questions) != 1 || len(got.Tools) != 2 {
			t.Errorf("asked %d questions, ran %d tools; want one approval and both calls", len(got.Questions), len(got.Tools))
		}
	})
	t.Run("not scripted", func(t *testing.T) {
		ft := newFakeT(t)
		agenttest.Run(ft, twice, "shop")
		if got := ft.failed(); !strings.Contains(got, "the turn asked approval") || !strings.Contains(got, "remember") {
			t.Errorf("the failure does not name the approval of remember:\n%s", got)
		}
	})
}

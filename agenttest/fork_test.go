package agenttest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
)

// A block tried in process and gone back from leaves the agent's state as
// it was where the block began, as on the server; kept, its change stays.
// The transcript says what was tried and decided.
func TestRunGoesBackFromATriedBlock(t *testing.T) {
	agent := agents.New("trips", "Plans trips.")
	plan := agents.NewState(agent, "plan", "")
	tryTwice := agents.Assistant{Name: "trips", Description: "Plans trips.", Turn: func(ctx context.Context, message string) (string, error) {
		var read []string
		for _, keep := range []bool{false, true} {
			tried, err := agents.Fork(ctx, "flight "+message, func(ctx context.Context) (string, error) {
				return message, plan.Set(ctx, message)
			})
			if err != nil {
				return "", err
			}
			if keep {
				err = tried.Forward(ctx)
			} else {
				err = tried.Back(ctx)
			}
			if err != nil {
				return "", err
			}
			p, err := plan.Get(ctx)
			if err != nil {
				return "", err
			}
			read = append(read, "["+p+"]")
		}
		return strings.Join(read, " "), nil
	}}
	ft := newFakeT(t)
	got := agenttest.Run(ft, tryTwice, "SK99")
	if f := ft.failed(); f != "" {
		t.Fatal(f)
	}
	if got.Reply != "[] [SK99]" {
		t.Errorf("the plan read after going back, then after keeping: %q; want empty, then the kept change", got.Reply)
	}
	want := "user: SK99\nfork \"flight SK99\"\nfork \"flight SK99\": back\nfork \"flight SK99\"\nfork \"flight SK99\": kept\nreply: [] [SK99]\n"
	if got.String() != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

package chat_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/policy"
)

// benchRules are n rules of the program about tools the loop does not
// call, each of which Decide must still look at for every call.
func benchRules(n int) []policy.Rule {
	rules := make([]policy.Rule, n)
	for i := range rules {
		rules[i] = policy.Rule{Action: policy.Ask, Tool: fmt.Sprintf("flights/book-%d*", i)}
	}
	return rules
}

// policySteps is how many tool-calling steps a turn of BenchmarkToolPolicy
// takes.
const policySteps = 20

// BenchmarkToolPolicy measures what the permission policy adds to a tool
// call of the agent loop: the gap between two model calls (the record of
// the first, the policy's decision, the tool's run and its record with the
// audit), with no rule and with 100 rules the tool must be checked
// against, and the commits each step takes, which must stay two (the
// model call's node and the tool's, the decision riding in the tool's).
func BenchmarkToolPolicy(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{0, 100} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			var commits atomic.Int64
			db, err := store.Open(ctx, filepath.Join(b.TempDir(), "policy.db"), store.Options{Durability: store.CrashSafe,
				Committed: func(time.Duration) { commits.Add(1) }})
			if err != nil {
				b.Fatal(err)
			}
			model := &stepModel{steps: policySteps}
			program := policy.NewLevel(benchRules(n)...) // compiled once, as a program's are
			e := &benchEnv{db: db, svc: chat.New(chat.Config{Store: db, Assistants: registry.New(loopAssistant(policySteps)), Model: model,
				Scope: program.Program})}
			b.Cleanup(e.shutdown)
			var gaps []time.Duration
			var turns int64
			for b.Loop() {
				before := commits.Load()
				runLoopTurn(ctx, b, e.svc)
				// The conversation (its session, itself, its title), the
				// message, then per step a model call and a tool, then the
				// question's model call and the question.
				if got, want := commits.Load()-before, int64(3+1+2*policySteps+2); got > want {
					b.Fatalf("a turn of %d steps took %d commits, want at most %d: the policy added some", policySteps, got, want)
				}
				g := model.gaps()
				gaps = append(gaps, g[:policySteps]...)
				turns++
			}
			b.ReportMetric(micros(quantile(gaps, 0.50)), "p50-µs")
			b.ReportMetric(micros(quantile(gaps, 0.99)), "p99-µs")
		})
	}
}

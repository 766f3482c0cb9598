package telemetry_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/policy"
)

// A tool call the permission policy denies runs nothing, so it has no
// span; the metrics still count it, with the decision, who made it and
// the outcome.
func TestADeniedCallIsCounted(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"a trip"}`), llmtest.Text("I may not plan trips."))
	o := newObserved(t, filepath.Join(t.TempDir(), "denied.db"), fake, func(cfg *chat.Config) {
		scope := cfg.Scope
		cfg.Scope = func(ctx context.Context) context.Context {
			return policy.Narrow(scope(ctx), policy.Rule{Action: policy.FinalDeny, Tool: "travel/plan-trip"})
		}
	})
	conv, err := o.svc.Create(t.Context(), "s", "assistant")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.svc.Send(t.Context(), "s", conv.ID, "Plan a trip"); err != nil {
		t.Fatal(err)
	}
	o.waitMetric(t, `sweatpants_tool_decisions_total{agent="travel",decided_by="rule",decision="finalDeny",outcome="denied",tool="plan-trip"} 1`)
	if len(named(o.spans.Ended(), "execute_tool plan-trip")) != 0 {
		t.Error("the denied call has a span of its own, as if it ran")
	}
}

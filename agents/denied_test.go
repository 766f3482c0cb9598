package agents_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// denying is middleware that refuses every call of tool, finally or not,
// and keeps the reasons the calls came with.
func denying(ctx context.Context, tool string, final bool, reasons *[]string) context.Context {
	return agents.ToolAPI.Around(ctx, func(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
		return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
			*reasons = append(*reasons, c.Reason)
			if c.Tool == tool {
				return nil, &agents.DeniedError{Tool: c.Tool, Why: "a rule denies it", Final: final}
			}
			return next(ctx, c)
		}
	}, middleware.Max)
}

// offered lists the tools a request offers the model.
func offered(req llm.Request) []string {
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	return names
}

// A denied call goes back to the model as its result, which says it was
// denied and why, and the loop goes on; a final denial takes the tool off
// the list the model is offered for the rest of the turn. The calls carry
// what the model said with them, as its reason.
func TestADeniedCallIsTheModelsToWorkAround(t *testing.T) {
	for _, final := range []bool{false, true} {
		name := "deny"
		if final {
			name = "finalDeny"
		}
		t.Run(name, func(t *testing.T) {
			var runs int
			m := &scripted{replies: []llm.Response{
				{Content: "I'll check the sky first.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "getWeather", Arguments: `{"city":"Oslo"}`}}, FinishReason: "tool_calls"},
				text("I may not look at the weather."),
			}}
			var reasons []string
			ctx := denying(m.provide(t.Context()), "getWeather", final, &reasons)
			loop := agents.Loop{Agents: []*agents.Agent{weatherAgent(&runs)}, AskUser: true}
			got, err := loop.Run(ctx, []llm.Message{{Role: llm.User, Content: "Weather in Oslo?"}})
			if err != nil || got != "I may not look at the weather." {
				t.Fatalf("Run = %q, %v; want the model's words after the denial", got, err)
			}
			if runs != 0 {
				t.Errorf("the denied tool ran %d times", runs)
			}
			if want := []string{"I'll check the sky first."}; !slices.Equal(reasons, want) {
				t.Errorf("the calls' reasons: %q, want %q", reasons, want)
			}
			last := m.requests[1].Messages[len(m.requests[1].Messages)-1]
			if want := "the call of getWeather was denied: a rule denies it"; last.Role != llm.Tool || last.Content != want {
				t.Errorf("the model was handed %+v, want the tool result %q", last, want)
			}
			want := []string{"getWeather", agents.AskUserTool}
			if final {
				want = want[1:]
			}
			if got := offered(m.requests[1]); !slices.Equal(got, want) {
				t.Errorf("the second step offers %q, want %q", got, want)
			}
			if got := offered(m.requests[0]); !slices.Equal(got, []string{"getWeather", agents.AskUserTool}) {
				t.Errorf("the first step's request was changed afterwards: it offers %q", got)
			}
		})
	}
}

package agents_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// seen is ToolAPI middleware that keeps the calls it sees, as the
// conversation's record does.
type seen struct {
	mu    sync.Mutex
	calls []agents.ToolCall
}

func (s *seen) around(ctx context.Context) context.Context {
	return agents.ToolAPI.Around(ctx, func(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
		return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
			s.mu.Lock()
			s.calls = append(s.calls, c)
			s.mu.Unlock()
			return next(ctx, c)
		}
	}, middleware.Max)
}

func TestLoopCallsToolsHandedToItAsValues(t *testing.T) {
	var runs int
	sky := agents.Func("sky", "Today's sky in a city", func(_ context.Context, city string) (string, error) {
		runs++
		return "sunny in " + city, nil
	})
	m := &scripted{replies: []llm.Response{
		calls(llm.ToolCall{ID: "c1", Name: "sky", Arguments: `"Oslo"`}),
		text("Sunny in Oslo."),
	}}
	rec := &seen{}
	ctx := rec.around(m.provide(primitive.AgentName.With(t.Context(), "planner")))
	loop := agents.Loop{Tools: []agents.AnyTool{sky}}
	got, err := loop.Run(ctx, []llm.Message{{Role: llm.User, Content: "Sky in Oslo?"}})
	if err != nil || got != "Sunny in Oslo." {
		t.Fatalf("Run = %q, %v", got, err)
	}
	if runs != 1 {
		t.Fatalf("the tool ran %d times, want 1", runs)
	}
	offered := m.requests[0].Tools
	if len(offered) != 1 || offered[0].Name != "sky" || offered[0].Description != "Today's sky in a city" || !strings.Contains(string(offered[0].Parameters), `"string"`) {
		t.Fatalf("offered %+v, want sky with its description and input schema", offered)
	}
	msgs := m.requests[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != llm.Tool || last.ToolCallID != "c1" || last.Content != `"sunny in Oslo"` {
		t.Fatalf("the model was handed %+v, want the tool's result", last)
	}
	// The call passes through ToolAPI, which records it in a conversation,
	// as the calling agent's: a Func tool belongs to no agent of its own.
	if c := rec.calls; len(c) != 1 || c[0].Agent != "planner" || c[0].Tool != "sky" || string(c[0].Input) != `"Oslo"` {
		t.Fatalf("ToolAPI saw %+v, want one call of sky by planner", rec.calls)
	}
	if info := sky.Info(); info.Agent != "" || info.Name != "sky" {
		t.Fatalf("Info = %+v, want sky of no agent", info)
	}

	// Called from code, a Func tool is a typed call like an agent's tool.
	out, err := sky.Call(ctx, "Bergen")
	if err != nil || out != "sunny in Bergen" || len(rec.calls) != 2 || rec.calls[1].Agent != "planner" {
		t.Fatalf("Call = %q, %v; ToolAPI saw %+v", out, err, rec.calls)
	}
}

func TestLoopOffersAgentsToolsThenItsOwn(t *testing.T) {
	var runs int
	sky := agents.Func("sky", "Today's sky in a city", func(_ context.Context, in city) (string, error) { return "clear", nil })
	m := &scripted{replies: []llm.Response{
		calls(llm.ToolCall{ID: "a", Name: "getWeather", Arguments: `{"city":"Oslo"}`}, llm.ToolCall{ID: "b", Name: "sky", Arguments: `{"city":"Oslo"}`}),
		text("Done."),
	}}
	loop := agents.Loop{Agents: []*agents.Agent{weatherAgent(&runs)}, Tools: []agents.AnyTool{sky}, AskUser: true}
	if _, err := loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "go"}}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range m.requests[0].Tools {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, " "), "getWeather sky ask_user"; got != want {
		t.Fatalf("offered %s, want %s", got, want)
	}
	msgs := m.requests[1].Messages
	if a, b := msgs[len(msgs)-2].Content, msgs[len(msgs)-1].Content; a != `{"city":"Oslo","sky":"sunny"}` || b != `"clear"` {
		t.Fatalf("results %s and %s, want both tools' results", a, b)
	}
}

func TestLoopRefusesTwoToolsOfOneName(t *testing.T) {
	var runs int
	weather := weatherAgent(&runs)
	twin := func(name string) agents.AnyTool {
		return agents.Func(name, "A tool of the same name", func(context.Context, city) (string, error) { return "", nil })
	}
	tests := []struct {
		name string
		loop agents.Loop
		want string
	}{
		{"a value tool and an agent's", agents.Loop{Agents: []*agents.Agent{weather}, Tools: []agents.AnyTool{twin("getWeather")}},
			`two tools are named "getWeather" (of agent weather and Tools[0])`},
		{"two value tools", agents.Loop{Tools: []agents.AnyTool{twin("sky"), twin("tides"), twin("sky")}},
			`two tools are named "sky" (Tools[0] and Tools[2])`},
		{"a value tool and ask_user", agents.Loop{Tools: []agents.AnyTool{twin(agents.AskUserTool)}, AskUser: true},
			`two tools are named "ask_user" (Tools[0] and AskUser)`},
		{"a nil tool", agents.Loop{Tools: []agents.AnyTool{twin("sky"), nil}},
			`the loop's Tools[1] is nil`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{replies: []llm.Response{text("never")}}
			_, err := tc.loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "go"}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if len(m.requests) != 0 {
				t.Fatalf("the model was called %d times, want none: the loop is refused before it starts", len(m.requests))
			}
		})
	}
}

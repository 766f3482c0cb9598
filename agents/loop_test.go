package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// scripted is a model that answers each call with the next of its replies,
// and keeps the requests.
type scripted struct {
	mu       sync.Mutex
	replies  []llm.Response
	requests []llm.Request
}

func (m *scripted) provide(ctx context.Context) context.Context {
	return primitive.Provide(ctx, middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.requests = append(m.requests, req)
		if len(m.replies) == 0 {
			return llm.Response{}, errors.New("the script is over")
		}
		r := m.replies[0]
		m.replies = m.replies[1:]
		return r, nil
	})
}

func calls(cs ...llm.ToolCall) llm.Response {
	return llm.Response{ToolCalls: cs, FinishReason: "tool_calls"}
}

func text(s string) llm.Response { return llm.Response{Content: s, FinishReason: "stop"} }

type city struct {
	City string `json:"city"`
}

type forecast struct {
	City string `json:"city"`
	Sky  string `json:"sky"`
}

// weatherAgent has one tool, which counts its runs.
func weatherAgent(runs *int) *agents.Agent {
	a := agents.New("weather", "The weather anywhere")
	var mu sync.Mutex
	agents.NewTool(a, "getWeather", "Today's weather in a city", func(_ context.Context, in city) (forecast, error) {
		mu.Lock()
		*runs++
		mu.Unlock()
		if in.City == "Atlantis" {
			return forecast{}, errors.New("no such city")
		}
		return forecast{City: in.City, Sky: "sunny"}, nil
	})
	return a
}

func TestLoopCallsAToolAndAnswersWithItsResult(t *testing.T) {
	var runs int
	m := &scripted{replies: []llm.Response{
		calls(llm.ToolCall{ID: "c1", Name: "getWeather", Arguments: `{"city":"Oslo"}`}),
		text("It is sunny in Oslo."),
	}}
	loop := agents.Loop{System: "You help with the weather.", Agents: []*agents.Agent{weatherAgent(&runs)}}
	got, err := loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "Weather in Oslo?"}})
	if err != nil || got != "It is sunny in Oslo." {
		t.Fatalf("Run = %q, %v", got, err)
	}
	if runs != 1 || len(m.requests) != 2 {
		t.Fatalf("the tool ran %d times and the model was called %d times, want 1 and 2", runs, len(m.requests))
	}
	first := m.requests[0]
	if len(first.Tools) != 1 || first.Tools[0].Name != "getWeather" || !strings.Contains(string(first.Tools[0].Parameters), `"city"`) {
		t.Fatalf("offered tools %+v, want getWeather with its input schema", first.Tools)
	}
	if first.Messages[0].Role != llm.System || first.Messages[1].Content != "Weather in Oslo?" {
		t.Fatalf("the first call's messages %+v, want the system prompt and the user's", first.Messages)
	}
	second := m.requests[1].Messages
	call, result := second[len(second)-2], second[len(second)-1]
	if call.Role != llm.Assistant || len(call.ToolCalls) != 1 || call.ToolCalls[0].ID != "c1" {
		t.Fatalf("the second call lacks the model's tool call: %+v", call)
	}
	if result.Role != llm.Tool || result.ToolCallID != "c1" || result.Content != `{"city":"Oslo","sky":"sunny"}` {
		t.Fatalf("the second call's tool result %+v", result)
	}
}

func TestLoopRunsSeveralCallsAtOnceAndReturnsResultsInOrder(t *testing.T) {
	var runs int
	m := &scripted{replies: []llm.Response{
		calls(
			llm.ToolCall{ID: "a", Name: "getWeather", Arguments: `{"city":"Oslo"}`},
			llm.ToolCall{ID: "b", Name: "getWeather", Arguments: `{"city":"Atlantis"}`},
			llm.ToolCall{ID: "c", Name: "getTides", Arguments: `{}`},
			llm.ToolCall{ID: "d", Name: "getWeather", Arguments: `{"city":`},
			llm.ToolCall{ID: "e", Name: "getWeather", Arguments: `{"town":"Oslo"}`},
		),
		text("Done."),
	}}
	loop := agents.Loop{Agents: []*agents.Agent{weatherAgent(&runs)}}
	if _, err := loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "go"}}); err != nil {
		t.Fatal(err)
	}
	msgs := m.requests[1].Messages
	results := msgs[len(msgs)-5:]
	want := []struct{ id, has string }{
		{"a", `"sky":"sunny"`},
		{"b", "Error: no such city"},
		{"c", `Error: there is no tool "getTides"`},
		{"d", "Error: the arguments are not valid JSON"},
		{"e", "Error: the arguments do not fit the tool's input"},
	}
	for i, w := range want {
		if results[i].ToolCallID != w.id || !strings.Contains(results[i].Content, w.has) {
			t.Errorf("result %d = %+v, want call %s with %q", i, results[i], w.id, w.has)
		}
	}
	if runs != 2 {
		t.Fatalf("the tool ran %d times, want 2 (the calls it could make)", runs)
	}
}

func TestLoopEndsInWordsAtItsStepBound(t *testing.T) {
	var runs int
	again := calls(llm.ToolCall{ID: "x", Name: "getWeather", Arguments: `{"city":"Oslo"}`})
	m := &scripted{replies: []llm.Response{again, again, text("Sunny, as far as I can tell.")}}
	loop := agents.Loop{Agents: []*agents.Agent{weatherAgent(&runs)}, MaxSteps: 3}
	got, err := loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "go"}})
	if err != nil || got != "Sunny, as far as I can tell." {
		t.Fatalf("Run = %q, %v", got, err)
	}
	if m.requests[2].ToolChoice != llm.ToolNone || m.requests[1].ToolChoice != "" {
		t.Fatalf("tool choices %q %q %q, want only the last step to forbid tools", m.requests[0].ToolChoice, m.requests[1].ToolChoice, m.requests[2].ToolChoice)
	}

	m = &scripted{replies: []llm.Response{again, again, again}}
	_, err = loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "go"}})
	if se, ok := errors.AsType[*agents.StepsError](err); !ok || se.Steps != 3 {
		t.Fatalf("err = %v, want a StepsError after 3 steps", err)
	}
}

func TestAskUser(t *testing.T) {
	tests := []struct {
		name, args string
		answer     elicit.Response
		kind       string
		check      func(t *testing.T, req elicit.Request)
		want       string
	}{
		{
			name: "a yes/no", args: `{"question":"Book it?","kind":"confirm"}`,
			answer: elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"yes":true}`)},
			kind:   "confirm", want: `{"action":"accept","answer":{"yes":true}}`,
		},
		{
			name: "a choice", args: `{"question":"Which seat?","kind":"choice","options":["window","aisle"]}`,
			answer: elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"option":"aisle"}`)},
			kind:   "choice", want: `{"action":"accept","answer":{"option":"aisle"}}`,
			check: func(t *testing.T, req elicit.Request) {
				if got := req.Schema.Properties["option"].Enum; len(got) != 2 || got[1] != "aisle" {
					t.Errorf("the choice offers %v", got)
				}
			},
		},
		{
			name: "a form of the model's", args: `{"question":"Who travels?","kind":"form","fields":[{"name":"name","label":"Your name","type":"string"},{"name":"age","type":"integer","optional":true}]}`,
			answer: elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"name":"Ada"}`)},
			kind:   elicit.FormKind, want: `{"action":"accept","answer":{"name":"Ada"}}`,
			check: func(t *testing.T, req elicit.Request) {
				if req.Schema.Properties["name"].Title != "Your name" || len(req.Schema.Required) != 1 || req.Schema.Required[0] != "name" {
					t.Errorf("the form's schema %+v", req.Schema)
				}
			},
		},
		{
			name: "an answer in words", args: `{"question":"Book it?","kind":"confirm"}`,
			answer: elicit.Response{Action: elicit.Other, Text: "only if it is cheaper"},
			kind:   "confirm", want: `{"action":"other","text":"only if it is cheaper"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var asked []elicit.Request
			ctx := primitive.Provide(t.Context(), middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
				asked = append(asked, req)
				return tc.answer, nil
			})
			m := &scripted{replies: []llm.Response{calls(llm.ToolCall{ID: "q", Name: agents.AskUserTool, Arguments: tc.args}), text("ok")}}
			if _, err := (agents.Loop{AskUser: true}).Run(m.provide(ctx), []llm.Message{{Role: llm.User, Content: "go"}}); err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0].Kind != tc.kind {
				t.Fatalf("asked %+v, want one %s", asked, tc.kind)
			}
			if tc.check != nil {
				tc.check(t, asked[0])
			}
			msgs := m.requests[1].Messages
			if got := msgs[len(msgs)-1].Content; got != tc.want {
				t.Fatalf("the model was told %s, want %s", got, tc.want)
			}
		})
	}

	bad := []struct{ name, args, want string }{
		{"a choice without options", `{"question":"Pick","kind":"choice"}`, "a choice needs options"},
		{"a form without fields", `{"question":"Who?","kind":"form"}`, "a form needs fields"},
		{"a kind the input has not", `{"question":"Pick","kind":"quiz"}`, "the question is not well formed"},
		{"a field the input has not", `{"question":"Pick","kind":"choice","choices":["a","b"]}`, "the question is not well formed"},
		{"a misnamed field of a form", `{"question":"Who?","kind":"form","fields":[{"title":"name","type":"string"}]}`, "the question is not well formed"},
		{"two fields of one name", `{"question":"Who?","kind":"form","fields":[{"name":"a","type":"string"},{"name":"a","type":"string"}]}`, "each field needs a name of its own"},
	}
	for _, tc := range bad {
		t.Run(tc.name+" asks nothing", func(t *testing.T) {
			ctx := primitive.Provide(t.Context(), middleware.Elicit, func(context.Context, elicit.Request) (elicit.Response, error) {
				t.Error("the user was asked")
				return elicit.Response{}, nil
			})
			m := &scripted{replies: []llm.Response{calls(llm.ToolCall{ID: "q", Name: agents.AskUserTool, Arguments: tc.args}), text("ok")}}
			if _, err := (agents.Loop{AskUser: true}).Run(m.provide(ctx), []llm.Message{{Role: llm.User, Content: "go"}}); err != nil {
				t.Fatal(err)
			}
			msgs := m.requests[1].Messages
			if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "Error: "+tc.want) {
				t.Fatalf("the model was told %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLoopChoiceAndDirect(t *testing.T) {
	var runs int
	m := &scripted{replies: []llm.Response{calls(
		llm.ToolCall{ID: "a", Name: "getWeather", Arguments: `{"city":"Oslo"}`},
		llm.ToolCall{ID: "b", Name: "getWeather", Arguments: `{"city":"Atlantis"}`},
	)}}
	loop := agents.Loop{
		Agents: []*agents.Agent{weatherAgent(&runs)},
		Choice: llm.ToolRequired,
		Direct: func(results []agents.Result) string {
			var parts []string
			for _, r := range results {
				parts = append(parts, r.Tool+": "+r.Text())
			}
			return strings.Join(parts, "; ")
		},
	}
	got, err := loop.Run(m.provide(t.Context()), []llm.Message{{Role: llm.User, Content: "go"}})
	if err != nil || got != `getWeather: {"city":"Oslo","sky":"sunny"}; getWeather: no such city` {
		t.Fatalf("Run = %q, %v; want the tools' results as the reply", got, err)
	}
	if len(m.requests) != 1 || m.requests[0].ToolChoice != llm.ToolRequired {
		t.Fatalf("%d model calls, the first with tool choice %q; want one call, made to act", len(m.requests), m.requests[0].ToolChoice)
	}
	if r := (agents.Result{Output: json.RawMessage(`"plain words"`)}); r.Text() != "plain words" {
		t.Fatalf("a string result reads %q, want its words without quotes", r.Text())
	}
}

// TestAskUserInputWritesTheToolCall checks that an author (or a test's
// scripted model) can write an ask_user call from the typed input: it
// marshals to the JSON a model writes, and that call asks the question.
func TestAskUserInputWritesTheToolCall(t *testing.T) {
	tests := []struct {
		name string
		in   agents.AskUserInput
		want string
		kind string
	}{
		{"a yes/no", agents.AskUserInput{Question: "Book it?", Kind: "confirm"},
			`{"question":"Book it?","kind":"confirm"}`, "confirm"},
		{"a choice", agents.AskUserInput{Question: "Which seat?", Kind: "choice", Options: []string{"window", "aisle"}},
			`{"question":"Which seat?","kind":"choice","options":["window","aisle"]}`, "choice"},
		{"a form", agents.AskUserInput{Question: "Who travels?", Kind: "form", Fields: []agents.AskUserField{
			{Name: "name", Label: "Your name", Type: "string"}, {Name: "age", Type: "integer", Optional: true}}},
			`{"question":"Who travels?","kind":"form","fields":[{"name":"name","label":"Your name","type":"string"},{"name":"age","type":"integer","optional":true}]}`,
			elicit.FormKind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(args); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			var asked []elicit.Request
			ctx := primitive.Provide(t.Context(), middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
				asked = append(asked, req)
				return elicit.Response{Action: elicit.Decline}, nil
			})
			m := &scripted{replies: []llm.Response{calls(llm.ToolCall{ID: "q", Name: agents.AskUserTool, Arguments: string(args)}), text("ok")}}
			if _, err := (agents.Loop{AskUser: true}).Run(m.provide(ctx), []llm.Message{{Role: llm.User, Content: "go"}}); err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0].Kind != tc.kind || asked[0].Message != tc.in.Question {
				t.Errorf("asked %+v, want one %s: %q", asked, tc.kind, tc.in.Question)
			}
		})
	}
}

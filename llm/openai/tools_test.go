package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

var weather = llm.ToolSpec{
	Name:        "weather",
	Description: "The weather in a city today.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

// compact returns raw without insignificant white space, for comparing JSON.
func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.String()
}

func TestToolsOnTheWire(t *testing.T) {
	tests := []struct {
		name       string
		choice     string
		wantChoice string // compact JSON; empty when absent
	}{
		{"default", "", ""},
		{"auto", llm.ToolAuto, `"auto"`},
		{"none", llm.ToolNone, `"none"`},
		{"required", llm.ToolRequired, `"required"`},
		{"a tool by name", "weather", `{"type":"function","function":{"name":"weather"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			req := llm.Request{Messages: []llm.Message{user("hi")}, Tools: []llm.ToolSpec{weather}, ToolChoice: tt.choice}
			if _, err := newOpenAI(srv).Complete(context.Background(), req, nil); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			got := srv.Requests()[0]
			if len(got.Tools) != 1 {
				t.Fatalf("got %d tools, want 1", len(got.Tools))
			}
			tool := got.Tools[0]
			if tool.Type != "function" || tool.Function.Name != weather.Name || tool.Function.Description != weather.Description ||
				compact(t, tool.Function.Parameters) != string(weather.Parameters) {
				t.Errorf("got tool %+v (parameters %s), want the weather function", tool, tool.Function.Parameters)
			}
			gotChoice := ""
			if len(got.ToolChoice) > 0 {
				gotChoice = compact(t, got.ToolChoice)
			}
			if gotChoice != tt.wantChoice {
				t.Errorf("got tool_choice %s, want %s", gotChoice, tt.wantChoice)
			}
		})
	}
	t.Run("no tools, no choice", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Text("ok"))
		req := llm.Request{Messages: []llm.Message{user("hi")}, ToolChoice: llm.ToolNone}
		if _, err := newOpenAI(srv).Complete(context.Background(), req, nil); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got := srv.Requests()[0]; got.Tools != nil || got.ToolChoice != nil {
			t.Errorf("got tools %+v and tool_choice %s, want neither", got.Tools, got.ToolChoice)
		}
	})
}

// TestToolMessagesOnTheWire: a conversation that called a tool is sent back
// with the assistant's calls and the tool's result naming its call.
func TestToolMessagesOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("Sunny."))
	call := llm.ToolCall{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo"}`}
	req := llm.Request{Tools: []llm.ToolSpec{weather}, Messages: []llm.Message{
		user("Weather in Oslo?"),
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{call}},
		{Role: llm.Tool, ToolCallID: "call_1", Content: `{"sky":"clear"}`},
	}}
	if _, err := newOpenAI(srv).Complete(context.Background(), req, nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := []llmtest.Message{
		{Role: "user", Content: "Weather in Oslo?"},
		{Role: "assistant", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		{Role: "tool", Content: `{"sky":"clear"}`, ToolCallID: "call_1"},
	}
	if got := srv.Requests()[0].Messages; !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestToolCalls(t *testing.T) {
	oslo := llmtest.ToolCall{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo"}`}
	bergen := llmtest.ToolCall{ID: "call_2", Name: "weather", Arguments: `{"city":"Bergen"}`}
	want := func(calls ...llmtest.ToolCall) []llm.ToolCall {
		var out []llm.ToolCall
		for _, c := range calls {
			out = append(out, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		return out
	}
	tests := []struct {
		name     string
		reply    llmtest.Reply
		stream   bool
		want     []llm.ToolCall
		wantText string
	}{
		{"one call", llmtest.Reply{ToolCalls: []llmtest.ToolCall{oslo}}, false, want(oslo), ""},
		{"parallel calls", llmtest.Reply{ToolCalls: []llmtest.ToolCall{oslo, bergen}}, false, want(oslo, bergen), ""},
		{"one call streamed", llmtest.Reply{ToolCalls: []llmtest.ToolCall{oslo}}, true, want(oslo), ""},
		{"parallel calls streamed whole", llmtest.Reply{ToolCalls: []llmtest.ToolCall{oslo, bergen}}, true, want(oslo, bergen), ""},
		{"parallel calls streamed in pieces", llmtest.Reply{ToolCalls: []llmtest.ToolCall{oslo, bergen}, SplitArguments: 3}, true, want(oslo, bergen), ""},
		{"text then calls streamed in pieces", llmtest.Reply{Chunks: []string{"Let me ", "look."}, ToolCalls: []llmtest.ToolCall{oslo}, SplitArguments: 1},
			true, want(oslo), "Let me look."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.reply)
			var deltas []string
			var onDelta func(string)
			if tt.stream {
				onDelta = collect(&deltas)
			}
			resp, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}, Tools: []llm.ToolSpec{weather}}, onDelta)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if !reflect.DeepEqual(resp.ToolCalls, tt.want) {
				t.Errorf("got calls %+v, want %+v", resp.ToolCalls, tt.want)
			}
			if resp.FinishReason != "tool_calls" {
				t.Errorf("got finish reason %q, want tool_calls", resp.FinishReason)
			}
			wantDeltas := ""
			if tt.stream {
				wantDeltas = tt.wantText
			}
			if resp.Content != tt.wantText || strings.Join(deltas, "") != wantDeltas {
				t.Errorf("got text %q in deltas %q, want %q", resp.Content, deltas, tt.wantText)
			}
		})
	}
}

// TestStopWithToolCallsIsToolCalls: an endpoint that says "stop" after
// calling tools still gives a response finishing with "tool_calls".
func TestStopWithToolCallsIsToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "weather", Arguments: "{}"}}, FinishReason: "stop"})
	resp, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}, Tools: []llm.ToolSpec{weather}}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.FinishReason != "tool_calls" {
		t.Errorf("got finish reason %q, want tool_calls", resp.FinishReason)
	}
}

func TestOutputSchemaOnTheWire(t *testing.T) {
	plan := json.RawMessage(`{"type":"object","properties":{"days":{"type":"integer"}},"required":["days"],"additionalProperties":false}`)
	tests := []struct {
		name     string
		output   *llm.OutputSchema
		wantName string
	}{
		{"named", &llm.OutputSchema{Name: "plan", Description: "A trip plan.", Schema: plan}, "plan"},
		{"unnamed", &llm.OutputSchema{Schema: plan}, "output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Text(`{"days":3}`))
			resp, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("plan")}, Output: tt.output}, nil)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Content != `{"days":3}` {
				t.Errorf("got content %q", resp.Content)
			}
			rf := srv.Requests()[0].ResponseFormat
			if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil {
				t.Fatalf("got response_format %+v, want json_schema", rf)
			}
			js := rf.JSONSchema
			if js.Name != tt.wantName || js.Description != tt.output.Description || !js.Strict || compact(t, js.Schema) != string(plan) {
				t.Errorf("got json_schema %+v (schema %s), want %q, strict, the plan schema", *js, js.Schema, tt.wantName)
			}
		})
	}
	t.Run("absent without output", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Text("hi"))
		if _, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}}, nil); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if rf := srv.Requests()[0].ResponseFormat; rf != nil {
			t.Errorf("got response_format %+v, want none", rf)
		}
	})
}

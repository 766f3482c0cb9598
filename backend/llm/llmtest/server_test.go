package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/backend/llm/llmtest"
)

func client(srv *llmtest.Server) *openai.Client {
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL
	return openai.NewClientWithConfig(cfg)
}

var hello = openai.ChatCompletionRequest{
	Model:    "gpt-test",
	Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}},
}

func TestToolCalls(t *testing.T) {
	reply := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}}
	want := openai.ToolCall{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}}

	t.Run("unstreamed", func(t *testing.T) {
		resp, err := client(llmtest.NewServer(t, reply)).CreateChatCompletion(context.Background(), hello)
		if err != nil {
			t.Fatalf("CreateChatCompletion: %v", err)
		}
		c := resp.Choices[0]
		if len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0] != want || c.FinishReason != "tool_calls" {
			t.Errorf("got %+v finishing %q, want %+v finishing tool_calls", c.Message.ToolCalls, c.FinishReason, want)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		s, err := client(llmtest.NewServer(t, reply)).CreateChatCompletionStream(context.Background(), hello)
		if err != nil {
			t.Fatalf("CreateChatCompletionStream: %v", err)
		}
		defer s.Close()
		var calls []openai.ToolCall
		var finish openai.FinishReason
		for {
			chunk, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Recv: %v", err)
			}
			for _, c := range chunk.Choices {
				calls = append(calls, c.Delta.ToolCalls...)
				finish = max(finish, c.FinishReason)
			}
		}
		if len(calls) != 1 || finish != "tool_calls" {
			t.Fatalf("got %+v finishing %q, want one call finishing tool_calls", calls, finish)
		}
		calls[0].Index = nil
		if calls[0] != want {
			t.Errorf("got %+v, want %+v", calls[0], want)
		}
	})
}

func TestRequests(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("a"))
	srv.Add(llmtest.Text("b"))
	for _, want := range []string{"a", "b"} {
		resp, err := client(srv).CreateChatCompletion(context.Background(), hello)
		if err != nil {
			t.Fatalf("CreateChatCompletion: %v", err)
		}
		if got := resp.Choices[0].Message.Content; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Messages[0] != (llmtest.Message{Role: "user", Content: "hello"}) {
		t.Errorf("got requests %+v, want two saying hello", reqs)
	}
}

func TestMultiPartContent(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	req := openai.ChatCompletionRequest{Model: "gpt-test", Messages: []openai.ChatCompletionMessage{{Role: "user", MultiContent: []openai.ChatMessagePart{
		{Type: openai.ChatMessagePartTypeText, Text: "one "}, {Type: openai.ChatMessagePartTypeText, Text: "two"},
	}}}}
	if _, err := client(srv).CreateChatCompletion(context.Background(), req); err != nil {
		t.Fatalf("CreateChatCompletion: %v", err)
	}
	if got, want := srv.Requests()[0].Messages[0].Content, "one two"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestScriptExhausted(t *testing.T) {
	rec := &recorder{TB: t}
	srv := llmtest.NewServer(rec)
	_, err := client(srv).CreateChatCompletion(context.Background(), hello)
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 {
		t.Errorf("got error %v, want a 500 API error", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "no reply") {
		t.Errorf("got reported errors %q, want one about the missing reply", rec.errs)
	}
}

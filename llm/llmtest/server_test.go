package llmtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
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
	if len(reqs) != 2 || !reflect.DeepEqual(reqs[1].Messages[0], llmtest.Message{Role: "user", Content: "hello"}) {
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

func TestImageParts(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	req := openai.ChatCompletionRequest{Model: "gpt-test", Messages: []openai.ChatCompletionMessage{{Role: "user", MultiContent: []openai.ChatMessagePart{
		{Type: openai.ChatMessagePartTypeText, Text: "What is this?"},
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,iVBORw0K"}},
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/b.jpg"}},
	}}}}
	if _, err := client(srv).CreateChatCompletion(context.Background(), req); err != nil {
		t.Fatalf("CreateChatCompletion: %v", err)
	}
	want := llmtest.Message{Role: "user", Content: "What is this?", Images: []string{"data:image/png;base64,iVBORw0K", "https://example.com/b.jpg"}}
	if got := srv.Requests()[0].Messages[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
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

// TestSplitArguments: streamed in pieces, a call is named by its first
// piece alone and its arguments come a few bytes at a time, as OpenAI
// streams them.
func TestSplitArguments(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{
		ToolCalls:      []llmtest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo"}`}},
		SplitArguments: 4,
	})
	s, err := client(srv).CreateChatCompletionStream(context.Background(), hello)
	if err != nil {
		t.Fatalf("CreateChatCompletionStream: %v", err)
	}
	defer s.Close()
	var pieces []openai.ToolCall
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		for _, c := range chunk.Choices {
			pieces = append(pieces, c.Delta.ToolCalls...)
		}
	}
	var args []string
	for i, p := range pieces {
		if p.Index == nil || *p.Index != 0 {
			t.Errorf("piece %d has index %v, want 0", i, p.Index)
		}
		named := p.ID != "" || p.Function.Name != "" || p.Type != ""
		if named != (i == 0) {
			t.Errorf("piece %d is %+v; want only the first to carry id, type and name", i, p)
		}
		if i > 0 {
			args = append(args, p.Function.Arguments)
		}
	}
	if got, want := strings.Join(args, "|"), `{"ci|ty":|"Osl|o"}`; got != want {
		t.Errorf("got arguments %q, want %q", got, want)
	}
}

func TestHeaderAndStatus(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.RateLimited("7"))
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("got status %d, Retry-After %q; want 429 and 7", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestDelayEndsWithTheClient: a delayed reply gives up as soon as the
// client does, so a test of a timeout ends without waiting the delay out.
func TestDelayEndsWithTheClient(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"late"}, Delay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := client(srv).CreateChatCompletion(ctx, hello)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the client's deadline exceeded", err)
	}
}

func TestDrop(t *testing.T) {
	t.Run("unstreamed", func(t *testing.T) {
		_, err := client(llmtest.NewServer(t, llmtest.Reply{Drop: true})).CreateChatCompletion(context.Background(), hello)
		if !errors.Is(err, io.EOF) {
			t.Errorf("got %v, want EOF", err)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		s, err := client(llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Hel"}, Drop: true})).CreateChatCompletionStream(context.Background(), hello)
		if err != nil {
			t.Fatalf("CreateChatCompletionStream: %v", err)
		}
		defer s.Close()
		var text string
		for {
			chunk, err := s.Recv()
			if err != nil {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("got %v, want an unexpected EOF", err)
				}
				break
			}
			for _, c := range chunk.Choices {
				text += c.Delta.Content
			}
		}
		if text != "Hel" {
			t.Errorf("got %q before the drop, want Hel", text)
		}
	})
}

func TestRequestShowsToolsAndFormat(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("{}"))
	req := hello
	req.Tools = []openai.Tool{{Type: "function", Function: &openai.FunctionDefinition{Name: "weather", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	req.ToolChoice = "required"
	req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: "json_schema", JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
		Name: "plan", Schema: json.RawMessage(`{"type":"object"}`), Strict: true,
	}}
	if _, err := client(srv).CreateChatCompletion(context.Background(), req); err != nil {
		t.Fatalf("CreateChatCompletion: %v", err)
	}
	got := srv.Requests()[0]
	if len(got.Tools) != 1 || got.Tools[0].Function.Name != "weather" || string(got.Tools[0].Function.Parameters) != `{"type":"object"}` {
		t.Errorf("got tools %+v", got.Tools)
	}
	if string(got.ToolChoice) != `"required"` {
		t.Errorf("got tool_choice %s, want \"required\"", got.ToolChoice)
	}
	if rf := got.ResponseFormat; rf == nil || rf.JSONSchema == nil || rf.JSONSchema.Name != "plan" || !rf.JSONSchema.Strict {
		t.Errorf("got response_format %+v", rf)
	}
}

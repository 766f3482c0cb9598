package offline_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/llm"
)

func user(text string) llm.Message   { return llm.Message{Role: llm.User, Content: text} }
func system(text string) llm.Message { return llm.Message{Role: llm.System, Content: text} }

func complete(t *testing.T, p llm.Provider, msgs ...llm.Message) llm.Response {
	t.Helper()
	resp, err := p.Complete(context.Background(), llm.Request{Messages: msgs}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return resp
}

func TestOfflineReplies(t *testing.T) {
	tests := []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{"greeting", []llm.Message{user("hi")},
			"Hello! I'm the offline demo model. What would you like to talk about?"},
		{"statement", []llm.Message{user("hello there, I need a flight to Tokyo next Friday")},
			"Thanks! You mentioned flight, Tokyo, next and Friday. I'm the offline demo model, so my replies only reflect what you write."},
		{"question", []llm.Message{user("What is the weather in Paris tomorrow?")},
			"Good question about weather, Paris and tomorrow. I'm the offline demo model, so I can't look things up, but I've noted it."},
		{"no key words", []llm.Message{user("Is it?")},
			`You said "Is it?". I'm the offline demo model, so my replies only reflect what you write.`},
		{"role from system prompt", []llm.Message{system("You are a travel concierge. Draft a short trip plan."), user("Plan a trip to Lisbon.")},
			"Thanks! You mentioned trip and Lisbon. I'm an offline travel concierge, so my replies only reflect what you write."},
		{"a summary of earlier turns is context, not an instruction", []llm.Message{
			system("You are a travel concierge. Draft a short trip plan."),
			system("Summary of the earlier conversation: Summary of 3 messages about Oslo."),
			user("Plan a trip to Lisbon."),
		}, "Thanks! You mentioned trip and Lisbon. I'm an offline travel concierge, so my replies only reflect what you write."},
		{"summary", []llm.Message{
			user("Book a flight to Tokyo, window seat please"),
			{Role: llm.Assistant, Content: "Booked FL001, seat 3A."},
			user("Summarize the conversation so far."),
		}, "Summary of 2 messages. Topics: Book, flight, Tokyo, window, seat.\n" +
			"- user: Book a flight to Tokyo, window seat please\n" +
			"- assistant: Booked FL001, seat 3A."},
		{"question about JSON is not a JSON request", []llm.Message{user("What is JSON?")},
			`You said "What is JSON?". I'm the offline demo model, so my replies only reflect what you write.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := complete(t, offline.New(), tt.msgs...).Content
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestOfflineDeterministic(t *testing.T) {
	msgs := []llm.Message{system("Summarize in JSON: {\"summary\": \"\", \"count\": 0}"), user("We met 3 times in Oslo and Bergen.")}
	first := complete(t, offline.New(), msgs...)
	for i := range 20 {
		got := complete(t, offline.New(), msgs...)
		if !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d: got %+v, want %+v", i, got, first)
		}
	}
}

func TestOfflineLongSummaryElides(t *testing.T) {
	var msgs []llm.Message
	for _, w := range strings.Fields("one two three four five six seven eight nine ten") {
		msgs = append(msgs, user("message "+w))
	}
	msgs = append(msgs, user("summarize"))
	got := complete(t, offline.New(), msgs...).Content
	for _, want := range []string{"Summary of 10 messages.", "- user: message one\n- user: message two\n- … 3 more messages …\n- user: message six"} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want it to contain %q", got, want)
		}
	}
}

func TestOfflineJSON(t *testing.T) {
	t.Run("schema", func(t *testing.T) {
		schema := `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1},` +
			`"mood":{"enum":["happy","sad"]},"tags":{"type":"array","items":{"type":"string"}},"ok":{"type":"boolean"},` +
			`"trip":{"type":"object","properties":{"nights":{"type":"number","maximum":3}}}}}`
		resp := complete(t, offline.New(), system("Answer in JSON matching this schema: "+schema), user("I want 5 days in Rome with pasta"))
		var got map[string]any
		if err := json.Unmarshal([]byte(resp.Content), &got); err != nil {
			t.Fatalf("content %q is not JSON: %v", resp.Content, err)
		}
		want := `{"city":"Rome","days":5,"mood":"happy","ok":false,"tags":["days"],"trip":{"nights":0}}`
		if resp.Content != want {
			t.Errorf("got  %s\nwant %s", resp.Content, want)
		}
	})
	t.Run("example object", func(t *testing.T) {
		got := complete(t, offline.New(), user(`Reply in JSON like {"name": "x", "count": 1, "answer": "..."} about my cat Felix`)).Content
		want := `{"answer":"Thanks! You mentioned cat and Felix. I'm the offline demo model, so my replies only reflect what you write.","count":1,"name":"Felix"}`
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
	t.Run("no shape", func(t *testing.T) {
		got := complete(t, offline.New(), user("Answer in JSON: how are you")).Content
		var v struct{ Reply string }
		if err := json.Unmarshal([]byte(got), &v); err != nil || v.Reply == "" {
			t.Errorf("got %q, want a JSON object with a reply (%v)", got, err)
		}
	})
}

func TestOfflineStreaming(t *testing.T) {
	var deltas []string
	resp, err := offline.New().Complete(context.Background(), llm.Request{Messages: []llm.Message{
		user("one"), user("two"), user("Please summarize"),
	}}, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	t.Run("deltas concatenate to content", func(t *testing.T) {
		if got, want := strings.Join(deltas, ""), resp.Content; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if len(deltas) < 2 {
			t.Errorf("got %d deltas, want one per word", len(deltas))
		}
	})
	t.Run("usage counts words", func(t *testing.T) {
		got := resp.Usage
		want := llm.Usage{PromptTokens: 4, CompletionTokens: len(deltas), TotalTokens: 4 + len(deltas)}
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("labelled offline", func(t *testing.T) {
		got := [3]string{resp.Provider, resp.Model, resp.FinishReason}
		want := [3]string{"offline", "offline-echo-1", "stop"}
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestOfflineMaxTokens(t *testing.T) {
	resp, err := offline.New().Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}, MaxTokens: 2}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	got := [2]string{resp.Content, resp.FinishReason}
	want := [2]string{"Hello! I'm", "length"}
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOfflineCancel(t *testing.T) {
	t.Run("between words", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var deltas []string
		_, err := offline.New().Complete(ctx, llm.Request{Messages: []llm.Message{user("hi")}}, func(d string) {
			deltas = append(deltas, d)
			cancel()
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got error %v, want context.Canceled", err)
		}
		if got, want := len(deltas), 1; got != want {
			t.Errorf("got %d deltas, want %d", got, want)
		}
	})
	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		_, err := offline.New().Complete(ctx, llm.Request{Messages: []llm.Message{user("hi")}}, func(string) { calls++ })
		if !errors.Is(err, context.Canceled) || calls != 0 {
			t.Errorf("got error %v after %d deltas, want context.Canceled after none", err, calls)
		}
	})
}

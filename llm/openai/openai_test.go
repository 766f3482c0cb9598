package openai_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

const testKey = "sk-test-secret-key"

func newOpenAI(srv *llmtest.Server) *openai.Provider {
	return openai.New(openai.Config{APIKey: testKey, BaseURL: srv.URL, Model: "gpt-test"})
}

// waits is a Provider's wait between attempts as a test sees it: each wait
// is recorded, and none takes time.
type waits struct {
	mu sync.Mutex
	ds []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ds = append(w.ds, d)
	return ctx.Err()
}

func (w *waits) got() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.ds...)
}

// configured returns a provider of srv configured by cfg, whose waits
// between attempts take no time and are recorded in the returned waits.
func configured(srv *llmtest.Server, cfg openai.Config) (*openai.Provider, *waits) {
	cfg.APIKey, cfg.BaseURL, cfg.Model = testKey, srv.URL, "gpt-test"
	p := openai.New(cfg)
	w := &waits{}
	openai.SetSleep(p, w.sleep)
	return p, w
}

func user(text string) llm.Message   { return llm.Message{Role: llm.User, Content: text} }
func system(text string) llm.Message { return llm.Message{Role: llm.System, Content: text} }

// collect returns an onDelta that appends to *deltas.
func collect(deltas *[]string) func(string) {
	return func(d string) { *deltas = append(*deltas, d) }
}

func TestComplete(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("Hello", " world"))
	temp := float32(0.5)
	resp, err := newOpenAI(srv).Complete(context.Background(), llm.Request{
		Messages:    []llm.Message{system("Be brief."), user("Say hello")},
		MaxTokens:   20,
		Temperature: &temp,
	}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	t.Run("response", func(t *testing.T) {
		want := llm.Response{
			Content: "Hello world", Model: "gpt-test", Provider: "openai", FinishReason: "stop",
			Usage: llm.Usage{PromptTokens: 4, CompletionTokens: 2, TotalTokens: 6},
		}
		if !reflect.DeepEqual(resp, want) {
			t.Errorf("got  %+v\nwant %+v", resp, want)
		}
	})
	t.Run("request", func(t *testing.T) {
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("got %d requests, want 1", len(reqs))
		}
		got := reqs[0]
		if got.Model != "gpt-test" || got.Stream || got.MaxTokens != 20 || got.Temperature == nil || *got.Temperature != 0.5 {
			t.Errorf("got model %q, stream %v, max tokens %d, temperature %v; want gpt-test, false, 20, 0.5",
				got.Model, got.Stream, got.MaxTokens, got.Temperature)
		}
		wantMsgs := []llmtest.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Say hello"}}
		if !reflect.DeepEqual(got.Messages, wantMsgs) {
			t.Errorf("got messages %+v, want %+v", got.Messages, wantMsgs)
		}
		if got, want := got.Header.Get("Authorization"), "Bearer "+testKey; got != want {
			t.Errorf("got Authorization %q, want %q", got, want)
		}
	})
}

func TestStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{
		Chunks: []string{"Hel", "lo", " world"},
		Usage:  &llmtest.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10},
		Model:  "gpt-test-2025",
	})
	var deltas []string
	resp, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Model: "gpt-other", Messages: []llm.Message{user("hi")}}, collect(&deltas))
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	t.Run("deltas in order", func(t *testing.T) {
		if got, want := strings.Join(deltas, "|"), "Hel|lo| world"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("response", func(t *testing.T) {
		want := llm.Response{
			Content: "Hello world", Model: "gpt-test-2025", Provider: "openai", FinishReason: "stop",
			Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10},
		}
		if !reflect.DeepEqual(resp, want) {
			t.Errorf("got  %+v\nwant %+v", resp, want)
		}
	})
	t.Run("request", func(t *testing.T) {
		got := srv.Requests()[0]
		if got.Model != "gpt-other" || !got.Stream || got.StreamOptions == nil || !got.StreamOptions.IncludeUsage {
			t.Errorf("got model %q, stream %v, stream options %+v; want gpt-other, true, include_usage",
				got.Model, got.Stream, got.StreamOptions)
		}
	})
}

func TestZeroTemperatureIsSent(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	zero := float32(0)
	if _, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}, Temperature: &zero}, nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	got := srv.Requests()[0].Temperature
	if got == nil || *got > 1e-30 {
		t.Errorf("got temperature %v, want (nearly) 0 rather than absent", got)
	}
}

func TestLogprobs(t *testing.T) {
	reply := llmtest.Reply{Chunks: []string{"a", "b", "c"}, Logprobs: []float64{-0.5, -1, -1.5}}
	tests := []struct {
		name      string
		stream    bool
		requested bool
		want      *float64
	}{
		{"unstreamed", false, true, ptr(-1.0)},
		{"streamed", true, true, ptr(-1.0)},
		{"not requested", true, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, reply)
			var onDelta func(string)
			if tt.stream {
				onDelta = func(string) {}
			}
			resp, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}, Logprobs: tt.requested}, onDelta)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got := srv.Requests()[0].Logprobs; got != tt.requested {
				t.Errorf("got logprobs flag %v, want %v", got, tt.requested)
			}
			got := resp.Logprob
			if (got == nil) != (tt.want == nil) || (got != nil && math.Abs(*got-*tt.want) > 1e-9) {
				t.Errorf("got logprob %v, want %v", deref(got), deref(tt.want))
			}
		})
	}
}

func TestCancelStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"first"}, Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var deltas []string
	_, err := newOpenAI(srv).Complete(ctx, llm.Request{Messages: []llm.Message{user("hi")}}, func(d string) {
		deltas = append(deltas, d)
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", err)
	}
	if got, want := strings.Join(deltas, ""), "first"; got != want {
		t.Errorf("got deltas %q, want %q", got, want)
	}
}

func ptr(f float64) *float64 { return &f }

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// TestNormalizesLineEnds: a model's "\r" never reaches the user as
// one, streamed or not, even when a "\r\n" is split between two chunks.
func TestNormalizesLineEnds(t *testing.T) {
	chunks := []string{"one\r", "\ntwo\rthree\r\n"}
	srv := llmtest.NewServer(t, llmtest.Text(chunks...), llmtest.Text(chunks...))
	var deltas []string
	streamed, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}}, collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "one\ntwo\nthree\n"
	if streamed.Content != want || strings.Join(deltas, "") != want || whole.Content != want {
		t.Errorf("streamed %q in deltas %q, whole %q; want %q", streamed.Content, deltas, whole.Content, want)
	}
}

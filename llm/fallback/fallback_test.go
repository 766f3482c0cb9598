package fallback_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/fallback"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// outcome is what a fake provider does for one call: stream some text,
// then fail with err or answer with text.
type outcome struct {
	streamed string
	err      error
	text     string
}

// fake is a provider that plays its script, one outcome per call, and
// fails the test when called beyond it.
type fake struct {
	t      *testing.T
	name   string
	mu     sync.Mutex
	script []outcome
	calls  int
}

func (f *fake) Name() string { return f.name }

func (f *fake) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	if n > len(f.script) {
		f.t.Errorf("%s called %d times; its script has %d", f.name, n, len(f.script))
		return llm.Response{}, &llm.Error{Provider: f.name, Message: "script exhausted"}
	}
	o := f.script[n-1]
	if o.streamed != "" && onDelta != nil {
		onDelta(o.streamed)
	}
	if o.err != nil {
		return llm.Response{}, o.err
	}
	return llm.Response{Content: o.streamed + o.text, Provider: f.name}, nil
}

func (f *fake) called() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func retryable(name string) error {
	return &llm.Error{Provider: name, Status: 503, Retryable: true, Message: "server error (status 503): overloaded"}
}

func answer(text string) outcome { return outcome{text: text} }
func failure(err error) outcome  { return outcome{err: err} }

func hi() llm.Request { return llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}} }

func TestName(t *testing.T) {
	p := fallback.New(&fake{name: "openai"}, &fake{name: "offline"})
	if got, want := p.Name(), "openai (fallback: offline)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFallsBack(t *testing.T) {
	refused := &llm.Error{Provider: "primary", Status: 400, Message: "request rejected (status 400): bad"}
	tests := []struct {
		name          string
		primary       outcome
		secondary     []outcome
		wantText      string
		wantShown     string
		wantErr       error
		wantSecondary int
	}{
		{"primary answers", answer("from primary"), nil, "from primary", "", nil, 0},
		{"primary fails in a way that may pass", failure(retryable("primary")), []outcome{answer("from secondary")}, "from secondary", "", nil, 1},
		{"primary refuses", failure(refused), nil, "", "", refused, 0},
		{"primary fails with a plain error", failure(errors.New("boom")), nil, "", "", nil, 0},
		{"primary fails after streaming", outcome{streamed: "Day 1: ", err: retryable("primary")}, nil, "", "Day 1: ", nil, 0},
		{"secondary fails too", failure(retryable("primary")), []outcome{failure(retryable("secondary"))}, "", "", nil, 1},
		{"secondary streams", failure(retryable("primary")), []outcome{{streamed: "Day ", text: "1"}}, "Day 1", "Day ", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			primary := &fake{t: t, name: "primary", script: []outcome{tt.primary}}
			secondary := &fake{t: t, name: "secondary", script: tt.secondary}
			var shown strings.Builder
			resp, err := fallback.New(primary, secondary).Complete(context.Background(), hi(), func(d string) { shown.WriteString(d) })
			if tt.wantText != "" && (err != nil || resp.Content != tt.wantText) {
				t.Errorf("got %q, %v; want %q", resp.Content, err, tt.wantText)
			}
			if tt.wantText == "" && err == nil {
				t.Errorf("got %q, want an error", resp.Content)
			}
			if tt.wantErr != nil && err != tt.wantErr {
				t.Errorf("got error %v, want %v", err, tt.wantErr)
			}
			if shown.String() != tt.wantShown {
				t.Errorf("got %q shown, want %q", shown.String(), tt.wantShown)
			}
			if got := secondary.called(); got != tt.wantSecondary {
				t.Errorf("secondary called %d times, want %d", got, tt.wantSecondary)
			}
		})
	}
}

// TestCancelledIsNotAFailure: a call the caller cancelled is not passed
// to the secondary, and its error is the context's.
func TestCancelledIsNotAFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	primary := &fake{t: t, name: "primary", script: []outcome{failure(context.Canceled)}}
	secondary := &fake{t: t, name: "secondary"}
	_, err := fallback.New(primary, secondary).Complete(ctx, hi(), nil)
	if !errors.Is(err, context.Canceled) || secondary.called() != 0 {
		t.Errorf("got %v with %d secondary calls, want context.Canceled and none", err, secondary.called())
	}
}

// clock is a clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestCoolDown(t *testing.T) {
	down := failure(retryable("primary"))
	primary := &fake{t: t, name: "primary", script: []outcome{
		down, down, // two in a row start a cool-down
		answer("primary is back"),
		down, answer("a success starts the count over"), down, down,
	}}
	secondary := &fake{t: t, name: "secondary", script: []outcome{
		answer("s1"), answer("s2"), answer("cooling"), answer("cooling"), answer("s5"), answer("s6"), answer("s7"), answer("cooling"),
	}}
	c := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	p := fallback.New(primary, secondary, fallback.AfterFailures(2), fallback.CoolDown(time.Minute), fallback.Clock(c.now))

	step := func(want string, wantPrimaryCalls int) {
		t.Helper()
		resp, err := p.Complete(context.Background(), hi(), nil)
		if err != nil || resp.Content != want {
			t.Fatalf("got %q, %v; want %q", resp.Content, err, want)
		}
		if got := primary.called(); got != wantPrimaryCalls {
			t.Fatalf("primary called %d times, want %d", got, wantPrimaryCalls)
		}
	}
	step("s1", 1)
	step("s2", 2) // the second failure in a row starts the cool-down
	step("cooling", 2)
	c.advance(59 * time.Second)
	step("cooling", 2)
	c.advance(time.Second)
	step("primary is back", 3)
	step("s5", 4)
	step("a success starts the count over", 5)
	step("s6", 6) // one failure since the success: no cool-down yet
	step("s7", 7)
	step("cooling", 7)
}

// TestWithOpenAI runs the fallback with real providers against llmtest:
// a primary that keeps failing is left for the secondary, but not once it
// streamed text.
func TestWithOpenAI(t *testing.T) {
	provider := func(srv *llmtest.Server) llm.Provider {
		// One quick retry: the primary's own retries run out first.
		return openai.New(openai.Config{APIKey: "k", BaseURL: srv.URL, Model: "m", MaxRetries: 1, MaxBackoff: time.Millisecond})
	}
	t.Run("primary keeps failing", func(t *testing.T) {
		primary := llmtest.NewServer(t, llmtest.Fail(500, "down"), llmtest.Fail(502, "still down"))
		secondary := llmtest.NewServer(t, llmtest.Text("from ", "secondary"))
		var shown strings.Builder
		resp, err := fallback.New(provider(primary), provider(secondary)).Complete(context.Background(), hi(), func(d string) { shown.WriteString(d) })
		if err != nil || resp.Content != "from secondary" || shown.String() != "from secondary" {
			t.Errorf("got %q (shown %q), %v; want the secondary's answer", resp.Content, shown.String(), err)
		}
		if n := len(primary.Requests()); n != 2 {
			t.Errorf("primary got %d requests, want 2", n)
		}
	})
	t.Run("not after streamed text", func(t *testing.T) {
		primary := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Day 1: "}, Drop: true})
		secondary := llmtest.NewServer(t) // any request fails the test
		var shown strings.Builder
		_, err := fallback.New(provider(primary), provider(secondary)).Complete(context.Background(), hi(), func(d string) { shown.WriteString(d) })
		var e *llm.Error
		if !errors.As(err, &e) || e.Provider != "openai" || !e.Retryable {
			t.Errorf("got %v, want the primary's retryable error", err)
		}
		if shown.String() != "Day 1: " || len(secondary.Requests()) != 0 {
			t.Errorf("shown %q with %d secondary requests, want the primary's text alone", shown.String(), len(secondary.Requests()))
		}
	})
}

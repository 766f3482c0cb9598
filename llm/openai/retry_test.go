package openai_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// deadline bounds every wait of these tests for something that should
// happen at once; reaching it fails the test rather than hanging it.
const deadline = 10 * time.Second

// ask sends "hi" through p, streamed when stream is set, and returns the
// response, the text that went to onDelta and the error.
func ask(t *testing.T, p llm.Provider, stream bool) (llm.Response, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var deltas []string
	var onDelta func(string)
	if stream {
		onDelta = collect(&deltas)
	}
	resp, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{user("hi")}}, onDelta)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Complete took longer than %s", deadline)
	}
	return resp, strings.Join(deltas, ""), err
}

// llmError returns err as an *llm.Error, or fails the test.
func llmError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want *llm.Error", err, err)
	}
	return e
}

func both(t *testing.T, test func(t *testing.T, stream bool)) {
	t.Run("unstreamed", func(t *testing.T) { test(t, false) })
	t.Run("streamed", func(t *testing.T) { test(t, true) })
}

func TestRetryAfterRateLimit(t *testing.T) {
	both(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(t, llmtest.RateLimited("2"), llmtest.Text("ok"))
		p, w := configured(srv, openai.Config{})
		resp, _, err := ask(t, p, stream)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if resp.Content != "ok" || len(srv.Requests()) != 2 {
			t.Errorf("got %q after %d requests, want ok after 2", resp.Content, len(srv.Requests()))
		}
		if got, want := w.got(), []time.Duration{2 * time.Second}; !reflect.DeepEqual(got, want) {
			t.Errorf("waited %v, want %v as Retry-After said", got, want)
		}
	})
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := llmtest.NewServer(t, llmtest.RateLimited(now.Add(5*time.Second).Format(http.TimeFormat)), llmtest.Text("ok"))
	p, w := configured(srv, openai.Config{})
	openai.SetNow(p, func() time.Time { return now })
	if _, _, err := ask(t, p, false); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got, want := w.got(), []time.Duration{5 * time.Second}; !reflect.DeepEqual(got, want) {
		t.Errorf("waited %v, want %v as Retry-After's date said", got, want)
	}
}

// TestRetryAfterTooLong: an endpoint that asks for a long wait is not
// waited for; its error comes back at once.
func TestRetryAfterTooLong(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.RateLimited("120"))
	p, w := configured(srv, openai.Config{})
	_, _, err := ask(t, p, false)
	if e := llmError(t, err); e.Status != 429 || !e.Retryable {
		t.Errorf("got %+v, want a retryable 429", *e)
	}
	if len(w.got()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("waited %v and sent %d requests, want no wait and 1 request", w.got(), len(srv.Requests()))
	}
}

func TestRetryServerError(t *testing.T) {
	both(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(t, llmtest.Fail(500, "The server had an error."), llmtest.Fail(503, "Overloaded."), llmtest.Text("ok"))
		p, w := configured(srv, openai.Config{})
		resp, _, err := ask(t, p, stream)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if resp.Content != "ok" || len(srv.Requests()) != 3 {
			t.Errorf("got %q after %d requests, want ok after 3", resp.Content, len(srv.Requests()))
		}
		got := w.got()
		if len(got) != 2 || got[0] < 0 || got[0] > 500*time.Millisecond || got[1] < 0 || got[1] > time.Second {
			t.Errorf("waited %v, want two waits within 500ms and 1s", got)
		}
	})
}

// TestBackoffBounds: without Retry-After, the waits stay within bounds that
// double from 500ms up to MaxBackoff.
func TestBackoffBounds(t *testing.T) {
	const retries = 6
	script := make([]llmtest.Reply, retries+1)
	for i := range script {
		script[i] = llmtest.Fail(502, "Bad gateway.")
	}
	srv := llmtest.NewServer(t, script...)
	p, w := configured(srv, openai.Config{MaxRetries: retries, MaxBackoff: 3 * time.Second})
	_, _, err := ask(t, p, false)
	if e := llmError(t, err); e.Status != 502 {
		t.Errorf("got %+v, want the last 502", *e)
	}
	bounds := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
	got := w.got()
	if len(got) != len(bounds) {
		t.Fatalf("waited %v, want %d waits", got, len(bounds))
	}
	for i, d := range got {
		if d < 0 || d > bounds[i] {
			t.Errorf("wait %d was %v, want within %v", i+1, d, bounds[i])
		}
	}
}

func TestRetriesRunOut(t *testing.T) {
	tests := []struct {
		name         string
		maxRetries   int
		wantRequests int
	}{
		{"default", 0, openai.DefaultMaxRetries + 1},
		{"one", 1, 2},
		{"none", -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			for range tt.wantRequests {
				srv.Add(llmtest.Fail(500, "The server had an error."))
			}
			p, w := configured(srv, openai.Config{MaxRetries: tt.maxRetries})
			_, _, err := ask(t, p, false)
			if e := llmError(t, err); e.Status != 500 || !e.Retryable {
				t.Errorf("got %+v, want a retryable 500", *e)
			}
			if got := len(srv.Requests()); got != tt.wantRequests || len(w.got()) != tt.wantRequests-1 {
				t.Errorf("sent %d requests with waits %v, want %d requests", got, w.got(), tt.wantRequests)
			}
		})
	}
}

// TestNotRetried: a refusal or a malformed answer would come back the same.
func TestNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		reply  llmtest.Reply
		status int
	}{
		{"bad request", llmtest.Fail(400, "Invalid value for 'messages'."), 400},
		{"not authorized", llmtest.Fail(401, "Incorrect API key."), 401},
		{"malformed JSON", llmtest.Raw(200, "{not json"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.reply) // a second request would find no reply
			p, w := configured(srv, openai.Config{})
			_, _, err := ask(t, p, false)
			if e := llmError(t, err); e.Status != tt.status || e.Retryable {
				t.Errorf("got %+v, want status %d, not retryable", *e, tt.status)
			}
			if len(srv.Requests()) != 1 || len(w.got()) != 0 {
				t.Errorf("sent %d requests with waits %v, want 1 and none", len(srv.Requests()), w.got())
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		stream    bool
		timeout   time.Duration
		wantShown string
	}{
		{"no answer", llmtest.Reply{Chunks: []string{"late"}, Delay: time.Hour}, false, 50 * time.Millisecond, ""},
		{"no answer streamed", llmtest.Reply{Chunks: []string{"late"}, Delay: time.Hour}, true, 50 * time.Millisecond, ""},
		// The first chunk must arrive before the timeout, on a loaded
		// machine too: this case waits longer.
		{"stream stalls", llmtest.Reply{Chunks: []string{"Day 1: "}, Hold: true}, true, 2 * time.Second, "Day 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.reply) // a second request would find no reply
			p, w := configured(srv, openai.Config{Timeout: tt.timeout})
			_, shown, err := ask(t, p, tt.stream)
			e := llmError(t, err)
			if want := "the model endpoint timed out: no complete answer within " + tt.timeout.String(); !e.Retryable || e.Status != 0 || e.Message != want {
				t.Errorf("got %+v, want a retryable timeout", *e)
			}
			if shown != tt.wantShown {
				t.Errorf("got %q shown, want %q", shown, tt.wantShown)
			}
			if len(srv.Requests()) != 1 || len(w.got()) != 0 {
				t.Errorf("sent %d requests with waits %v, want 1 and none: a timeout is not retried", len(srv.Requests()), w.got())
			}
		})
	}
}

// TestCancelDuringBackoff: cancelling the call while it waits to try again
// ends it at once, though the endpoint asked for a longer wait than the
// test allows.
func TestCancelDuringBackoff(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.RateLimited("25"))
	p := openai.New(openai.Config{APIKey: testKey, BaseURL: srv.URL, Model: "gpt-test"})
	waiting := make(chan time.Duration, 1)
	openai.SetSleep(p, func(ctx context.Context, d time.Duration) error {
		waiting <- d
		return openai.Sleep(ctx, d) // the real wait, which cancelling must end
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{user("hi")}}, nil)
		done <- err
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case d := <-waiting:
		if d != 25*time.Second {
			t.Errorf("waiting %v, want 25s", d)
		}
	case <-timer.C:
		t.Fatal("the provider never waited to retry")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-timer.C:
		t.Fatal("Complete did not return after its context was cancelled")
	}
}

func TestCancelledBeforeTheCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newOpenAI(srv).Complete(ctx, llm.Request{Messages: []llm.Message{user("hi")}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestDroppedConnection: a connection lost before the user saw any text is
// tried again; once text was shown, the error comes back instead.
func TestDroppedConnection(t *testing.T) {
	tests := []struct {
		name        string
		first       llmtest.Reply
		stream      bool
		wantShown   string // what went to onDelta
		wantRetried bool
	}{
		{"before the answer", llmtest.Reply{Drop: true}, false, "", true},
		{"before any text", llmtest.Reply{Drop: true}, true, "ok", true},
		{"stream ended before any text", llmtest.Reply{Cut: true}, true, "ok", true},
		// White space a model starts with is not text the user saw.
		{"stream ended after white space", llmtest.Reply{Chunks: []string{"\n\n"}, Cut: true}, true, "ok", true},
		{"dropped after white space", llmtest.Reply{Chunks: []string{" ", "\n"}, Drop: true}, true, "ok", true},
		{"amid tool calls", llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "weather", Arguments: `{"city":"Oslo"}`}}, SplitArguments: 4, Drop: true},
			true, "ok", true},
		{"after text", llmtest.Reply{Chunks: []string{"Hel"}, Drop: true}, true, "Hel", false},
		{"stream ended after text", llmtest.Reply{Chunks: []string{"Hel"}, Cut: true}, true, "Hel", false},
		{"stream ended after white space and text", llmtest.Reply{Chunks: []string{"\n", "Hel"}, Cut: true}, true, "\nHel", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.first)
			if tt.wantRetried {
				srv.Add(llmtest.Text("ok"))
			}
			p, w := configured(srv, openai.Config{})
			resp, shown, err := ask(t, p, tt.stream)
			if shown != tt.wantShown {
				t.Errorf("got %q shown, want %q", shown, tt.wantShown)
			}
			if !tt.wantRetried {
				e := llmError(t, err)
				if !e.Retryable || !strings.HasPrefix(e.Message, "the response broke off: ") {
					t.Errorf("got %+v, want the response broken off", *e)
				}
				if len(srv.Requests()) != 1 || len(w.got()) != 0 {
					t.Errorf("sent %d requests with waits %v, want 1 and none", len(srv.Requests()), w.got())
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Content != "ok" || len(srv.Requests()) != 2 || len(w.got()) != 1 {
				t.Errorf("got %q after %d requests with waits %v, want ok after 2 and one wait", resp.Content, len(srv.Requests()), w.got())
			}
		})
	}
}

// The white space a reply starts with reaches onDelta with its first
// visible character, or at its end when there is none: all the text is
// streamed, in order.
func TestLeadingWhiteSpaceIsStreamedWithTheText(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  []string
	}{
		{"before text", llmtest.Text("\n", "\n", "Hello", " there"), []string{"\n\nHello", " there"}},
		{"alone", llmtest.Text(" ", "\n"), []string{" \n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := configured(llmtest.NewServer(t, tt.reply), openai.Config{})
			var deltas []string
			resp, err := p.Complete(t.Context(), llm.Request{Messages: []llm.Message{user("hi")}}, collect(&deltas))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(deltas, tt.want) || resp.Content != strings.Join(tt.want, "") {
				t.Errorf("streamed %q into %q, want %q", deltas, resp.Content, tt.want)
			}
		})
	}
}

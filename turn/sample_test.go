package turn_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// model is a core for middleware.Sample that answers with the next of replies and
// keeps the requests it got.
type model struct {
	replies  []string
	requests []llm.Request
}

func (m *model) provide(ctx context.Context) context.Context {
	return primitive.Provide(ctx, middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
		m.requests = append(m.requests, req)
		if len(m.replies) == 0 {
			return llm.Response{}, errors.New("no more replies")
		}
		r := m.replies[0]
		m.replies = m.replies[1:]
		return llm.Response{Content: r}, nil
	})
}

func TestSampleWithoutMiddlewareIsTheModelCall(t *testing.T) {
	m := &model{replies: []string{"hello"}}
	resp, err := turn.Sample(m.provide(context.Background()), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
	if err != nil || resp.Content != "hello" || len(m.requests) != 1 || m.requests[0].Messages[0].Content != "hi" {
		t.Fatalf("Sample = %q, %v; requests %+v", resp.Content, err, m.requests)
	}
}

func TestStagesRunInOrderAroundTheModelCall(t *testing.T) {
	var seen []string
	m := &model{replies: []string{"reply"}}
	ctx := m.provide(context.Background())
	note := func(name string) {
		seen = append(seen, name)
	}
	ctx = middleware.SampleInput.Around(ctx, func(next middleware.Handler[middleware.Prompt, middleware.Prompt]) middleware.Handler[middleware.Prompt, middleware.Prompt] {
		return func(ctx context.Context, p middleware.Prompt) (middleware.Prompt, error) {
			note("input")
			p.Request.Messages = append(p.Request.Messages, llm.Message{Role: llm.System, Content: "added by input"})
			return next(ctx, p)
		}
	}, middleware.Max)
	for _, st := range []struct {
		name string
		api  *middleware.API[middleware.Sampled, middleware.Sampled]
	}{{"output", middleware.SampleOutput}, {"metadata", middleware.SampleMetadata}, {"confidence", middleware.SampleConfidence}} {
		ctx = st.api.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
			return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
				note(st.name)
				switch st.name {
				case "output":
					s.Response.Content = strings.ToUpper(s.Response.Content)
				case "metadata":
					s.Metadata = map[string]any{"length": len(s.Response.Content)}
				case "confidence":
					c := 0.9
					s.Confidence = &c
				}
				return next(ctx, s)
			}
		}, middleware.Min)
	}
	s, err := turn.SampleFull(ctx, llm.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " → "); got != "input → output → metadata → confidence" {
		t.Fatalf("stages ran %s", got)
	}
	if s.Response.Content != "REPLY" || s.Metadata["length"] != 5 || s.Confidence == nil || *s.Confidence != 0.9 {
		t.Fatalf("sampled %+v", s)
	}
	if last := m.requests[0].Messages; len(last) != 1 || last[0].Content != "added by input" {
		t.Fatalf("the model got %+v, want the input stage's message", last)
	}
}

func TestARefusedAttemptRunsAgainFromInputAndIsRecorded(t *testing.T) {
	m := &model{replies: []string{"maybe", "maybe", "yes"}}
	ctx := m.provide(context.Background())
	var attempts []int
	ctx = middleware.SampleInput.Around(ctx, func(next middleware.Handler[middleware.Prompt, middleware.Prompt]) middleware.Handler[middleware.Prompt, middleware.Prompt] {
		return func(ctx context.Context, p middleware.Prompt) (middleware.Prompt, error) {
			attempts = append(attempts, p.Attempt)
			return next(ctx, p)
		}
	}, middleware.Max)
	ctx = middleware.SampleConfidence.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
		return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
			if s.Response.Content != "yes" {
				return s, middleware.Retry("sure-or-nothing", "the answer hedges")
			}
			return next(ctx, s)
		}
	}, middleware.Min)
	var notes []primitive.RetryNote
	ctx = primitive.Provide(ctx, primitive.SampleRetryAPI, func(_ context.Context, n primitive.RetryNote) (struct{}, error) {
		notes = append(notes, n)
		return struct{}{}, nil
	})

	resp, err := turn.Sample(ctx, llm.Request{})
	if err != nil || resp.Content != "yes" {
		t.Fatalf("Sample = %q, %v; want the third reply", resp.Content, err)
	}
	if len(attempts) != 3 || attempts[0] != 1 || attempts[2] != 3 {
		t.Fatalf("input saw attempts %v, want 1 2 3", attempts)
	}
	want := primitive.RetryNote{Attempt: 1, By: "sure-or-nothing", Reason: "the answer hedges"}
	if len(notes) != 2 || notes[0] != want || notes[1].Attempt != 2 {
		t.Fatalf("recorded %+v, want two refusals, the first %+v", notes, want)
	}

	// Bounded: the same middleware with only hedging replies.
	m.replies = []string{"maybe", "maybe", "maybe", "maybe"}
	_, err = turn.Sample(middleware.SampleAttempts.With(ctx, 2), llm.Request{})
	refused, ok := errors.AsType[*turn.RefusedError](err)
	if !ok || refused.Attempts != 2 || refused.Last.By != "sure-or-nothing" {
		t.Fatalf("err = %v, want a RefusedError after 2 attempts", err)
	}
	if len(m.replies) != 2 {
		t.Fatalf("the model was called %d times, want 2", 4-len(m.replies))
	}
}

// Trip is a typed output for the tests.
type Trip struct {
	Destination string `json:"destination" desc:"Where to"`
	Travellers  int    `json:"travellers"`
}

func (Trip) Describe() string { return "a trip someone wants to book." }

func (Trip) Examples() []Trip { return []Trip{{Destination: "Oslo", Travellers: 2}} }

func TestSampleAs(t *testing.T) {
	ask := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Two of us to Oslo"}}}
	t.Run("a valid first reply", func(t *testing.T) {
		m := &model{replies: []string{`{"destination":"Oslo","travellers":2}`}}
		got, err := turn.SampleAs[Trip](m.provide(context.Background()), ask)
		if err != nil || got.Value != (Trip{"Oslo", 2}) {
			t.Fatalf("SampleAs = %+v, %v", got.Value, err)
		}
		req := m.requests[0]
		if req.Output == nil || req.Output.Name != "Trip" || !strings.Contains(string(req.Output.Schema), `"travellers"`) {
			t.Fatalf("the request asked for %+v, want Trip's schema", req.Output)
		}
		if len(req.Messages) != 1 {
			t.Fatalf("the first prompt has %d messages, want the caller's one only", len(req.Messages))
		}
	})
	t.Run("one retry with the format", func(t *testing.T) {
		m := &model{replies: []string{`Sure! Oslo for two.`, `{"destination":"Oslo","travellers":2}`}}
		got, err := turn.SampleAs[Trip](m.provide(context.Background()), ask)
		if err != nil || got.Value != (Trip{"Oslo", 2}) {
			t.Fatalf("SampleAs = %+v, %v", got.Value, err)
		}
		if len(m.requests) != 2 {
			t.Fatalf("%d model calls, want 2", len(m.requests))
		}
		hint := m.requests[1].Messages[len(m.requests[1].Messages)-1]
		for _, want := range []string{"could not be read as a Trip", "a trip someone wants to book", `"destination"`, `{"destination":"Oslo","travellers":2}`} {
			if hint.Role != llm.System || !strings.Contains(hint.Content, want) {
				t.Fatalf("the second prompt's last message %q lacks %q", hint.Content, want)
			}
		}
	})
	t.Run("two failures are a typed error", func(t *testing.T) {
		m := &model{replies: []string{`nope`, `{"destination":"Oslo","travellers":"two"}`, `{"destination":"Oslo","travellers":2}`}}
		_, err := turn.SampleAs[Trip](m.provide(context.Background()), ask)
		oe, ok := errors.AsType[*turn.OutputError](err)
		if !ok || oe.Type != "Trip" || !strings.Contains(oe.Reply, `"two"`) {
			t.Fatalf("err = %v, want an OutputError holding the last reply", err)
		}
		if len(m.requests) != 2 {
			t.Fatalf("%d model calls, want exactly 2", len(m.requests))
		}
	})
}

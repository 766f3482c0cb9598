package sampling_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

func logprob(p float64) *float64 {
	lp := math.Log(p)
	return &lp
}

// The confidence is judged from the log probability first, then from what
// the model states; unknown stays nil.
func TestJudgeConfidenceReadsIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		resp   llm.Response
		output bool
		want   float64 // negative: unknown
	}{
		{"log probability", llm.Response{Content: "Oslo. Confidence: 0.1", Logprob: logprob(0.8)}, false, 0.8},
		{"a stated fraction", llm.Response{Content: "It is Oslo.\nConfidence: 0.8"}, false, 0.8},
		{"a stated percentage", llm.Response{Content: "It is Oslo.\n**confidence:** 42%"}, false, 0.42},
		{"a stated number above one", llm.Response{Content: "Oslo\nconfidence = 75"}, false, 0.75},
		{"a JSON field", llm.Response{Content: `{"answer":"Oslo","confidence":0.9}`}, true, 0.9},
		{"a JSON field as a percentage", llm.Response{Content: `{"answer":"Oslo","confidence":"65%"}`}, true, 0.65},
		{"a JSON field when no JSON was asked for", llm.Response{Content: `{"answer":"Oslo","confidence":0.9}`}, false, -1},
		{"the word in passing", llm.Response{Content: "I have confidence in Oslo: 100 percent."}, false, -1},
		{"out of range", llm.Response{Content: "Confidence: 250%"}, false, -1},
		{"nothing said", llm.Response{Content: "Oslo."}, false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &model{replies: []llm.Response{tc.resp}}
			req := asked("Where?")
			if tc.output {
				req.Output = jsonOutput
			}
			s, err := turn.SampleFull(sampling.JudgeConfidence(m.provide(t.Context()), sampling.ConfidenceOptions{}), req)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want < 0 && s.Confidence != nil:
				t.Errorf("confidence %v, want unknown", *s.Confidence)
			case tc.want >= 0 && (s.Confidence == nil || math.Abs(*s.Confidence-tc.want) > 1e-9):
				t.Errorf("confidence %v, want %v", s.Confidence, tc.want)
			}
		})
	}
}

func TestJudgeConfidenceRefusesBelowTheThreshold(t *testing.T) {
	m := &model{replies: []llm.Response{
		{Content: "Maybe Oslo?", Logprob: logprob(0.3)},
		{Content: "Oslo.", Logprob: logprob(0.9)},
	}}
	ctx := sampling.JudgeConfidence(m.provide(t.Context()), sampling.ConfidenceOptions{Threshold: 0.6, Below: sampling.Refuse})
	var notes []primitive.RetryNote
	ctx = primitive.Provide(ctx, primitive.SampleRetryAPI, func(_ context.Context, n primitive.RetryNote) (struct{}, error) {
		notes = append(notes, n)
		return struct{}{}, nil
	})
	s, err := turn.SampleFull(ctx, asked("Where?"))
	if err != nil || s.Response.Content != "Oslo." || s.Confidence == nil || math.Abs(*s.Confidence-0.9) > 1e-9 {
		t.Fatalf("SampleFull = %+v, %v; want the sure second reply", s, err)
	}
	if len(notes) != 1 || notes[0].By != "confidence" || !strings.Contains(notes[0].Reason, "30%") {
		t.Errorf("recorded %+v, want one refusal by confidence at 30%%", notes)
	}

	// Never sure: the pipeline gives up after its attempts.
	m = &model{replies: []llm.Response{{Content: "Maybe?", Logprob: logprob(0.3)}}}
	ctx = sampling.JudgeConfidence(m.provide(t.Context()), sampling.ConfidenceOptions{Threshold: 0.6})
	_, err = turn.Sample(middleware.SampleAttempts.With(ctx, 2), asked("Where?"))
	if refused, ok := errors.AsType[*turn.RefusedError](err); !ok || refused.Attempts != 2 {
		t.Fatalf("err = %v, want a RefusedError after 2 attempts", err)
	}
}

// Unknown confidence is never acted on, however high the threshold.
func TestJudgeConfidenceLeavesUnknownAlone(t *testing.T) {
	m := replying("Oslo.")
	ctx := sampling.JudgeConfidence(m.provide(t.Context()), sampling.ConfidenceOptions{Threshold: 0.99, Below: sampling.AskUser})
	ctx = primitive.Provide(ctx, middleware.Elicit, func(context.Context, elicit.Request) (elicit.Response, error) {
		t.Error("the user was asked about a reply of unknown confidence")
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s, err := turn.SampleFull(ctx, asked("Where?"))
	if err != nil || s.Confidence != nil || m.calls() != 1 {
		t.Fatalf("SampleFull = %+v, %v after %d calls", s, err, m.calls())
	}
}

func TestJudgeConfidenceAsksTheUser(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer elicit.Response
		use    bool
	}{
		{"yes uses the reply", elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"yes":true}`)}, true},
		{"no does not", elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"yes":false}`)}, false},
		{"declining does not", elicit.Response{Action: elicit.Decline}, false},
		{"cancelling does not", elicit.Response{Action: elicit.Cancel}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := replying("It is Oslo.\nConfidence: 42%")
			ctx := sampling.JudgeConfidence(m.provide(t.Context()), sampling.ConfidenceOptions{Threshold: 0.5, Below: sampling.AskUser})
			var questions []elicit.Request
			ctx = primitive.Provide(ctx, middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
				questions = append(questions, req)
				return tc.answer, nil
			})
			s, err := turn.SampleFull(ctx, asked("Where?"))
			if len(questions) != 1 || questions[0].Kind != elicit.Confirm.Name {
				t.Fatalf("asked %+v, want one confirmation", questions)
			}
			if msg := questions[0].Message; !strings.HasPrefix(msg, "I'm not sure about this answer (confidence 42%). Use it anyway?") || !strings.Contains(msg, "It is Oslo.") {
				t.Errorf("asked %q, want the question and the answer", msg)
			}
			if tc.use {
				if err != nil || s.Response.Content != "It is Oslo.\nConfidence: 42%" {
					t.Fatalf("SampleFull = %q, %v; want the reply used", s.Response.Content, err)
				}
				return
			}
			lc, ok := errors.AsType[*sampling.LowConfidenceError](err)
			if !ok || lc.Action != tc.answer.Action || math.Abs(lc.Confidence-0.42) > 1e-9 || lc.Threshold != 0.5 || !strings.Contains(lc.Reply, "Oslo") {
				t.Fatalf("err = %#v, want a LowConfidenceError", err)
			}
			if m.calls() != 1 {
				t.Errorf("%d model calls, want 1: the user's no is not a retry", m.calls())
			}
		})
	}
	t.Run("above the threshold nobody is asked", func(t *testing.T) {
		m := replying("Oslo.\nConfidence: 0.7")
		ctx := sampling.JudgeConfidence(m.provide(t.Context()), sampling.ConfidenceOptions{Threshold: 0.5, Below: sampling.AskUser})
		if _, err := turn.Sample(ctx, asked("Where?")); err != nil {
			t.Fatalf("err = %v; no elicit is provided, so asking fails", err)
		}
	})
}

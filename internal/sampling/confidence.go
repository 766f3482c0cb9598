package sampling

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// LowConfidence is what JudgeConfidence does with a reply it judged less
// sure than its threshold.
type LowConfidence int

const (
	// Refuse refuses the attempt: the pipeline asks the model again, within
	// middleware.SampleAttempts.
	Refuse LowConfidence = iota
	// AskUser asks the user whether to use the reply anyway; an answer
	// other than yes is a *LowConfidenceError.
	AskUser
)

// ConfidenceOptions configures JudgeConfidence.
type ConfidenceOptions struct {
	// Threshold, from 0 to 1, is the confidence below which Below is done;
	// zero only judges, and never acts.
	Threshold float64
	// Below is what is done with a reply less sure than Threshold.
	Below LowConfidence
}

// confidenceBy names JudgeConfidence's refusals in the record.
const confidenceBy = "confidence"

// LowConfidenceError is a reply the model was not sure of that the user,
// asked whether to use it anyway, did not accept. The agent can handle it:
// say it does not know, ask a question, try another way.
type LowConfidenceError struct {
	// Confidence is how sure the reply was judged, and Threshold how sure
	// it had to be, both from 0 to 1.
	Confidence, Threshold float64
	// Reply is the reply that was not used.
	Reply string
	// Action is how the user answered: decline, cancel, other, or accept
	// with no.
	Action elicit.Action
	// Text is what the user wrote instead, when Action is other.
	Text string
}

func (e *LowConfidenceError) Error() string {
	return fmt.Sprintf("the answer was not used: the model was only %d%% sure of it, and the user did not accept it", percent(e.Confidence))
}

// JudgeConfidence returns a child context in which every reply is judged
// for how sure the model is of it, and Sampled.Confidence set: from the
// reply's mean log probability when the provider gave one (its
// exponential, the geometric mean of the tokens' probabilities), or else
// from the confidence the model states in the reply, as a line
// "Confidence: 0.8" or "confidence: 80%", or as a field "confidence" of
// the reply's JSON object when the request asked for JSON. A reply judged
// less sure than opts.Threshold is refused or put to the user, as
// opts.Below says. A reply whose confidence is unknown is left as it is.
// It runs at the confidence stage with Min priority: nearest the reply, so
// that outer confidence middleware sees its judgement.
func JudgeConfidence(ctx context.Context, opts ConfidenceOptions) context.Context {
	return middleware.SampleConfidence.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
		return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
			if c, ok := confidenceOf(s); ok {
				s.Confidence = &c
			}
			if s.Confidence == nil || *s.Confidence >= opts.Threshold {
				return next(ctx, s)
			}
			c := *s.Confidence
			if opts.Below == Refuse {
				return s, middleware.Retry(confidenceBy, fmt.Sprintf("the model was %d%% sure of its answer, below the %d%% required", percent(c), percent(opts.Threshold)))
			}
			res, err := turn.Ask(ctx, elicit.Confirm, askMessage(c, s.Response.Content), elicit.ConfirmInput{Yes: "Use it", No: "Don't use it"})
			if err != nil {
				return s, fmt.Errorf("ask whether to use an unsure answer: %w", err)
			}
			if res.Action != elicit.Accept || !res.Content.Yes {
				return s, &LowConfidenceError{Confidence: c, Threshold: opts.Threshold, Reply: s.Response.Content, Action: res.Action, Text: res.Text}
			}
			return next(ctx, s)
		}
	}, middleware.Min)
}

// askMessage is the question put to the user about an unsure reply, with
// the reply itself, so that the user can judge it.
func askMessage(c float64, reply string) string {
	const most = 600
	if r := []rune(reply); len(r) > most {
		reply = string(r[:most]) + "…"
	}
	msg := fmt.Sprintf("I'm not sure about this answer (confidence %d%%). Use it anyway?", percent(c))
	if strings.TrimSpace(reply) == "" {
		return msg
	}
	return msg + "\n\n" + reply
}

func percent(c float64) int { return int(math.Round(c * 100)) }

// statedRE matches a line where the model states its confidence:
// "Confidence: 0.8", "confidence = 80%", "**Confidence:** 80 %".
var statedRE = regexp.MustCompile(`(?im)^[\s*_>#-]*confidence[\s*_]*[:=][\s*_]*(\d+(?:\.\d+)?)\s*(%?)`)

// confidenceOf judges s: from its log probability, or else from what the
// model stated; false when neither says.
func confidenceOf(s middleware.Sampled) (float64, bool) {
	if lp := s.Response.Logprob; lp != nil && !math.IsNaN(*lp) {
		return min(math.Exp(min(*lp, 0)), 1), true
	}
	if s.Prompt.Request.Output != nil {
		var v struct {
			Confidence json.RawMessage `json:"confidence"`
		}
		if json.Unmarshal([]byte(s.Response.Content), &v) == nil && v.Confidence != nil {
			return stated(strings.Trim(string(v.Confidence), `"`))
		}
	}
	if m := statedRE.FindStringSubmatch(s.Response.Content); m != nil {
		return stated(m[1] + m[2])
	}
	return 0, false
}

// stated reads a stated confidence: a fraction from 0 to 1 ("0.8"), or a
// percentage ("80%", or a number above 1 up to 100); false for anything
// else.
func stated(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, "%")), 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if pct || f > 1 {
		f /= 100
	}
	if f > 1 {
		return 0, false
	}
	return f, true
}

package words

import (
	"context"
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	turnapi "github.com/sweatpants-go/sweatpants/turn"
)

// How a turn's failure reads. A turn that fails is recorded as a TurnError
// (package chat); what the chat shows of it is worded here, one sentence
// per kind of failure a user can tell apart and act on.

// The HTTP statuses of a provider's failure (llm.Error.Status) that read
// apart. They are spelled here, not taken from net/http, so that the live
// conversation, which words this, links no HTTP.
const (
	statusUnauthorized    = 401
	statusForbidden       = 403
	statusTooManyRequests = 429
)

// DivergedText is what the chat says of a turn that cannot go on from its
// record because the assistant's code changed since it was recorded (a
// deploy while it waited on a question, say). The way on is to take the
// turn again from the user's message, which Retry does.
const DivergedText = "The assistant has been updated since this turn began, so it cannot continue where it left off. Start again from your message to go on."

// Failure words a turn's failure for the chat: a short sentence for
// everyone, and the details behind it (the provider's own words, say) for
// whoever opens them. A cancellation reads as a stop.
func Failure(err error) tree.Message {
	if errors.Is(err, context.Canceled) {
		return tree.Message{Text: "Stopped."}
	}
	if le, ok := errors.AsType[*llm.Error](err); ok {
		// The details name the endpoint as a user may know it (le.Source),
		// never by its host: the calls page names that.
		details := le.Message
		if le.Status != 0 {
			details = fmt.Sprintf("%s (HTTP %d from %s)", le.Message, le.Status, le.Source())
		}
		switch {
		case le.Status == statusTooManyRequests:
			return tree.Message{Text: "The model could not answer: it is busy right now. Try again in a moment.", Details: details}
		case le.Status == statusUnauthorized || le.Status == statusForbidden:
			return tree.Message{Text: "The model could not answer: it refused the app's credentials.", Details: details}
		case le.Retryable:
			return tree.Message{Text: "The model could not answer: its service failed. Try again.", Details: details}
		}
		return tree.Message{Text: "The model could not answer.", Details: details}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return tree.Message{Text: "The model took too long to answer. Try again.", Details: err.Error()}
	}
	if nd, ok := errors.AsType[*durable.NonDeterminismError](err); ok {
		return tree.Message{Text: DivergedText, Details: nd.Error(), Diverged: true}
	}
	if _, ok := errors.AsType[*turnapi.OutputError](err); ok {
		return tree.Message{Text: "The model's answer could not be read, even after it was shown the format.", Details: err.Error()}
	}
	if _, ok := errors.AsType[*turnapi.RefusedError](err); ok {
		return tree.Message{Text: "The model's answers were refused each time it was asked.", Details: err.Error()}
	}
	if se, ok := errors.AsType[*agents.StepsError](err); ok {
		return tree.Message{Text: fmt.Sprintf("The agent did not finish within %d steps; stopped so it does not run away.", se.Steps)}
	}
	// An error that ends a turn by design (a spent budget, say) is worded
	// for the user.
	var ends interface {
		error
		EndsTurn() bool
	}
	if errors.As(err, &ends) && ends.EndsTurn() {
		return tree.Message{Text: ends.Error()}
	}
	return tree.Message{Text: apperr.MessageOf(err)}
}

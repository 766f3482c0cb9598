package words

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Each kind of failure a user can act on reads as its own sentence in the
// chat, with the provider's words behind it where there are some.
func TestFailureWording(t *testing.T) {
	for _, tc := range []struct {
		name, wantText, wantDetails string
		err                         error
	}{
		{"rate limited", "The model could not answer: it is busy right now. Try again in a moment.", "slow down (HTTP 429 from openai)",
			&llm.Error{Provider: "openai", Status: 429, Retryable: true, Message: "slow down"}},
		{"unauthorized", "The model could not answer: it refused the app's credentials.", "bad key (HTTP 401 from openai)",
			&llm.Error{Provider: "openai", Status: 401, Message: "bad key"}},
		{"forbidden", "The model could not answer: it refused the app's credentials.", "no access (HTTP 403 from openai)",
			fmt.Errorf("sample: %w", &llm.Error{Provider: "openai", Status: 403, Message: "no access"})},
		{"server failure", "The model could not answer: its service failed. Try again.", "overloaded (HTTP 503 from openai)",
			&llm.Error{Provider: "openai", Status: 503, Retryable: true, Message: "overloaded"}},
		{"dropped connection", "The model could not answer: its service failed. Try again.", "connection reset",
			&llm.Error{Provider: "openai", Retryable: true, Message: "connection reset"}},
		{"refused request", "The model could not answer.", "bad request (HTTP 400 from openai)",
			&llm.Error{Provider: "openai", Status: 400, Message: "bad request"}},
		{"stopped", "Stopped.", "", fmt.Errorf("turn: %w", context.Canceled)},
		{"cancelled", "Stopped.", "", context.Canceled},
		{"too slow", "The model took too long to answer. Try again.", context.DeadlineExceeded.Error(), context.DeadlineExceeded},
		{"steps", "The agent did not finish within 4 steps; stopped so it does not run away.", "", &agents.StepsError{Steps: 4}},
		{"internal", "Something went wrong on our side. Please try again.", "", errors.New("disk on fire")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Failure(tc.err)
			if got.Text != tc.wantText {
				t.Errorf("text = %q, want %q", got.Text, tc.wantText)
			}
			if got.Details != tc.wantDetails {
				t.Errorf("details = %q, want %q", got.Details, tc.wantDetails)
			}
		})
	}
}

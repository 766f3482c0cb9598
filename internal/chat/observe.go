package chat

import (
	"context"
	"errors"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// turnOutcome says how a turn ended, from the kind of node that records
// its end (none when it was not ended but set aside) and its context's
// cause.
func turnOutcome(ctx context.Context, kind tree.Kind) tree.Outcome {
	if o := tree.OutcomeOf(kind); o != "" {
		return o
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errParked):
		return tree.OutcomeParked
	case errors.Is(cause, errSuspended):
		return tree.OutcomeSuspended
	case errors.Is(cause, errInterrupted):
		return tree.OutcomeInterrupted
	}
	return tree.OutcomeShutdown
}

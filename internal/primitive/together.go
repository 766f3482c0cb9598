package primitive

import (
	"context"

	"github.com/sweatpants-go/sweatpants/middleware"
)

// Lanes, when set, gives each branch of a turn.Together its own context,
// so that a runtime that records calls can number each branch's calls on
// its own: the order in which concurrent branches reach their calls
// changes from run to run, their position within their branch does not.
var Lanes = middleware.NewValue[func(ctx context.Context) func(branch int) context.Context]("lanes", nil)

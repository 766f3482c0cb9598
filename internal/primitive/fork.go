package primitive

import (
	"context"

	"github.com/sweatpants-go/sweatpants/middleware"
)

// ForkBlock is a block of agent code to try on a child branch
// (agents.Fork): what it tries, in the agent's words, and the code.
type ForkBlock struct {
	Label string
	Run   func(ctx context.Context) error
}

// ForkDecision is what the code decided of a block it tried: the block's
// call id (what the fork core returned), what it tried, and whether the
// flow adopts the child branch (Forward) or goes back to where the block
// began.
type ForkDecision struct {
	Fork    string
	Label   string
	Forward bool
}

// The fork APIs: try a block of code on a child branch, then keep what it
// did or go back (agents.Fork). The fork core runs the block, its calls
// numbered within the fork's own call, and returns that call's id with the
// block's error; the decision is a recorded call, so that a replay takes
// it again without running the block's tools. Outside a turn the block
// simply runs, and a decision does nothing.
var (
	ForkAPI    = middleware.NewAPI[ForkBlock, string]("fork")
	ForkEndAPI = middleware.NewAPI[ForkDecision, struct{}]("fork.end")
)

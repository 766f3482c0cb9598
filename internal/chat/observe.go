package chat

import (
	"context"
	"errors"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// What the service's turns tell telemetry: the port it reports through,
// which package telemetry implements (Config.Observer).

// turnOutcome says how a turn ended, from the kind of node that records
// its end (none when it was not ended but set aside) and its context's
// cause.
func turnOutcome(ctx context.Context, kind tree.Kind) tree.Outcome {
	if o := tree.OutcomeOf(kind); o != "" {
		return o
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errTimedOut):
		return tree.OutcomeTimedOut
	case errors.Is(cause, errParked):
		return tree.OutcomeParked
	case errors.Is(cause, errSuspended):
		return tree.OutcomeSuspended
	case errors.Is(cause, errInterrupted):
		return tree.OutcomeInterrupted
	}
	return tree.OutcomeShutdown
}

// Observer hears what the chat service's turns do, for telemetry (package
// telemetry implements it; Config.Observer). It hears only of work done in
// this process: a turn resumed from its record is a new run, and the calls
// it finds answered in the record are not heard of again. Its methods may
// be called with the conversation's lock held, so they must be quick and
// must not call the service.
type Observer interface {
	// TurnStarted is called as a turn's code starts to run (a side
	// question's answer included); resumed says it replays a record
	// first. The context it returns is the one the turn runs in; ended is
	// called once with how the turn ended.
	TurnStarted(ctx context.Context, conversation, agent string, resumed bool) (_ context.Context, ended func(tree.Outcome))
	// ElicitWaited is called when a turn's question gets its answer, or is
	// withdrawn by a stop (outcome "stopped"; otherwise the answer's
	// action). asked is when it was asked, perhaps by an earlier process.
	ElicitWaited(ctx context.Context, req elicit.Request, asked time.Time, outcome string)
	// ToolDecided is called once a tool call the permission policy decided
	// in this process is recorded: the decision, who made it, and how the
	// call ended (ok, error, denied, cancelled). A call answered from the
	// record is not heard of again.
	ToolDecided(ctx context.Context, agent, tool, decision, decidedBy, outcome string)
	// Suspended is called when a waiting turn's conversation leaves memory
	// (suspend.go), Loaded whenever a conversation is loaded into it.
	Suspended(conversation string)
	Loaded(conversation string)
}

// hearsNothing is the service's observer when it is given none.
type hearsNothing struct{}

func (hearsNothing) TurnStarted(ctx context.Context, _, _ string, _ bool) (context.Context, func(tree.Outcome)) {
	return ctx, func(tree.Outcome) {}
}
func (hearsNothing) ElicitWaited(context.Context, elicit.Request, time.Time, string)     {}
func (hearsNothing) ToolDecided(context.Context, string, string, string, string, string) {}
func (hearsNothing) Suspended(string)                                                    {}
func (hearsNothing) Loaded(string)                                                       {}

package chat

import (
	"context"
	"errors"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Observer hears what the service's turns do, for telemetry (package
// telemetry implements it; Config.Observer). It hears only of work done in
// this process: a turn resumed from its record is a new run, and the calls
// it finds answered in the record are not heard of again. Its methods may
// be called with the conversation's lock held, so they must be quick and
// must not call the service.
type Observer interface {
	// TurnStarted is called as a turn's code starts to run (a side
	// question's answer included); resumed says it replays a record
	// first. The context it returns is the one the turn runs in; ended is
	// called once with how the turn ended (TurnReplied and the rest).
	TurnStarted(ctx context.Context, conversation, agent string, resumed bool) (_ context.Context, ended func(outcome string))
	// ElicitWaited is called when a turn's question gets its answer, or is
	// withdrawn by a stop (outcome "stopped"; otherwise the answer's
	// action). asked is when it was asked, perhaps by an earlier process.
	ElicitWaited(ctx context.Context, req elicit.Request, asked time.Time, outcome string)
	// Suspended is called when a waiting turn's conversation leaves memory
	// (suspend.go), Loaded whenever a conversation is loaded into it.
	Suspended(conversation string)
	Loaded(conversation string)
}

// The outcomes of a turn, as TurnStarted's ended hears them.
const (
	TurnReplied     = "replied"     // the agent replied
	TurnStopped     = "stopped"     // the user stopped it
	TurnFailed      = "failed"      // it ended with an error, recorded
	TurnParked      = "parked"      // its branch stopped being HEAD's; it resumes when it is again
	TurnSuspended   = "suspended"   // it waited unwatched and left memory; it resumes when loaded
	TurnInterrupted = "interrupted" // a new message took its place
	TurnShutdown    = "shutdown"    // the service closed; it resumes after the restart
)

// turnOutcome names how a turn ended, from the kind of node that records
// its end (none when it was not ended but set aside) and its context's
// cause.
func turnOutcome(ctx context.Context, kind tree.Kind) string {
	switch kind {
	case tree.AssistantMessage:
		return TurnReplied
	case tree.Stopped:
		return TurnStopped
	case tree.TurnError:
		return TurnFailed
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errParked):
		return TurnParked
	case errors.Is(cause, errSuspended):
		return TurnSuspended
	case errors.Is(cause, errInterrupted):
		return TurnInterrupted
	}
	return TurnShutdown
}

// noObserver hears nothing: the service's observer when Config has none.
type noObserver struct{}

func (noObserver) TurnStarted(ctx context.Context, _, _ string, _ bool) (context.Context, func(string)) {
	return ctx, func(string) {}
}
func (noObserver) ElicitWaited(context.Context, elicit.Request, time.Time, string) {}
func (noObserver) Suspended(string)                                                {}
func (noObserver) Loaded(string)                                                   {}

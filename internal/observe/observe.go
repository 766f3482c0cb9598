// Package observe is what a runner of turns tells telemetry: the port
// the chat service reports through, which package telemetry implements.
package observe

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Observer hears what the chat service's turns do, for telemetry (package
// telemetry implements it; chat.Config.Observer). It hears only of work done in
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

// Nothing hears nothing: the chat service's observer when it is given none.
type Nothing struct{}

func (Nothing) TurnStarted(ctx context.Context, _, _ string, _ bool) (context.Context, func(tree.Outcome)) {
	return ctx, func(tree.Outcome) {}
}
func (Nothing) ElicitWaited(context.Context, elicit.Request, time.Time, string)     {}
func (Nothing) ToolDecided(context.Context, string, string, string, string, string) {}
func (Nothing) Suspended(string)                                                    {}
func (Nothing) Loaded(string)                                                       {}

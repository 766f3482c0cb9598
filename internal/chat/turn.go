package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/replycap"
	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Turns. A user message starts a turn: the agent's code runs in its own
// goroutine with the primitives provided, and its end (a reply, an error,
// a stop) is recorded after the nodes of its calls. A turn whose branch
// stops being HEAD's is parked, not ended, and resumes from its record when
// its branch is HEAD's again or after a restart.

// turn provides the primitives' cores for one turn.
type turn struct {
	conv   *conversation
	id     int64 // the user message node that started the turn
	agent  string
	record durable.Journal
	cancel context.CancelCauseFunc
	// started is when the turn began to run, for batching (input.go).
	started time.Time
	// place is where the turn records, shows itself and ends: the flow, or
	// a side question's branch (placement.go).
	place placement

	// broken is the turn's latest model call when it failed after its
	// reply began to show, with what had shown, kept should that failure
	// end the turn (keepPartialLocked).
	broken brokenReply

	// Compaction within the turn: the summary made (or replayed) by this
	// turn, and the history as the core last built it.
	summary     *tree.SummaryRecord
	summaryNode int64
	lastHistory []history.Message

	// samples are the turn's latest model calls, which the next ones are
	// recorded against.
	samples replay.Samples

	// call is the tool call the turn's message is, if it is one
	// (toolcall.go).
	call *tree.Call

	// state is the agents' state as the turn sees it, made once (state.go).
	stateOnce sync.Once
	state     *state.Turn

	// choices are the user's choices for the conversation on a side
	// turn's branch, as read so far (package consent); the flow's are the
	// conversation's. c.mu guards them.
	choices consent.Choices
}

// errParked ends a turn whose branch is no longer HEAD's: it stays where it
// was in the record, to be resumed when its branch is HEAD again.
var errParked = errors.New("the turn's branch is no longer the current one")

// errStopped is the cause of a turn's cancellation when the user stops it.
var errStopped = errors.New("stopped by the user")

// errShutdown is the cause of every turn's cancellation when the service
// closes. It is a cancellation (errors.Is context.Canceled), so that what
// was cut by it is not recorded as a failure: the turn resumes there after
// the restart.
var errShutdown = fmt.Errorf("the service is shutting down: %w", context.Canceled)

// errInterrupted is the cause of a turn's cancellation when the user sends
// a new message while it works.
var errInterrupted = errors.New("interrupted by a new message")

// startTurnLocked runs the turn of the flow that user message msg starts;
// c.mu is held.
func (s *Service) startTurnLocked(c *conversation, a agents.Assistant, msg tree.Node, text string, record durable.Journal) *turn {
	return s.runLocked(c, a, msg.ID, flow{}, text, record)
}

// runLocked runs a turn of a, started by node id and placed at place, in
// its own goroutine, holding a reference to c until it ends; c.mu is held.
// record is what the turn recorded before, when it is resumed.
func (s *Service) runLocked(c *conversation, a agents.Assistant, id int64, place placement, text string, record durable.Journal) *turn {
	turnCtx, cancel := context.WithCancelCause(s.ctx)
	t := &turn{conv: c, id: id, agent: a.Name, record: record, cancel: cancel, started: s.now(), place: place, call: c.callOfLocked(id)}
	// The turn's first model call continues the conversation's last. The
	// branch is read when that call is made, not here: a turn that calls
	// no model (a tool call over MCP) then never pays for a branch as long
	// as the conversation. It is asked outside c.mu (replay.Sample).
	t.samples.Begin(strconv.FormatInt(id, 10), func() tree.Prior {
		c.mu.Lock()
		path := c.idx.PathTo(id)
		c.mu.Unlock()
		return replay.Before(path, id)
	})
	place.enter(t)
	t.timeLocked(a)
	s.background(c, func() {
		defer cancel(nil)
		c.runTurn(turnCtx, t, a, text)
	})
	return t
}

// resumeLocked resumes the unfinished turn on HEAD's branch, if there is
// one: its code runs again from the start, answered from what it recorded,
// and waits again where it waited. Its unanswered questions are pending from
// now on, before the replay reaches them. c.mu is held.
func (s *Service) resumeLocked(c *conversation) {
	s.resumeSidesLocked(c)
	i := c.path.OpenTurn()
	if i < 0 || c.current != nil {
		return
	}
	a, ok := s.agents.Get(c.conv.Agent)
	if !ok {
		s.log.Error("cannot resume turn: agent not available", "conversation", c.conv.ID, "agent", c.conv.Agent)
		return
	}
	msg, record := c.path[i], durable.NewJournal(c.idx.Tried(c.path[i+1:]))
	text := c.path.TurnText(i)
	waiting := map[string]*waiter{}
	for ref, n := range record.Unanswered() {
		req, err := tree.Decode[elicit.Request](n)
		if err != nil {
			s.log.Error("cannot resume turn: a question does not read", "conversation", c.conv.ID, "err", err)
			return
		}
		waiting[ref] = newWaiter(nil, n.ID, req) // asked by the turn about to start
	}
	s.log.Info("resuming turn", "conversation", c.conv.ID, "turn", msg.ID, "recorded_calls", record.Len())
	// The turn's code reaches its questions only once c.mu is let go.
	t := s.startTurnLocked(c, a, msg, text, record)
	for ref, w := range waiting {
		w.by = t
		c.questions.waitLocked(ref, w)
	}
}

// runTurn runs turn t of agent a for the text that started it, and records
// how it ended where it is placed. t.record is what the turn recorded
// before, when it is resumed: its calls are answered from there until the
// code makes a call the record does not have.
func (c *conversation) runTurn(ctx context.Context, t *turn, a agents.Assistant, text string) {
	ctx = c.turnContext(ctx, t, a)
	ctx, ended := c.svc.observe.TurnStarted(ctx, c.conv.ID, a.Name, t.record.Len() > 0)
	reply, err := t.place.run(ctx, a, text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.liveLocked() {
		ended(turnOutcome(ctx, ""))
		return // parked, interrupted or ended already: another turn runs where this one did
	}
	kind, m := c.endOf(ctx, a, reply, err)
	if kind == tree.AssistantMessage {
		m.Outcome = outcomeOf(ctx)
	}
	if kind != "" {
		t.untimeLocked(a)
	}
	defer ended(turnOutcome(ctx, kind))
	// What streamed of an unfinished reply stays (tree.Message.Partial);
	// the draft is still this turn's, since it is live.
	t.keepPartialLocked(kind, err, &m)
	// The turn's own context may be cancelled; recording its end must not be.
	t.place.end(context.WithoutCancel(ctx), t, kind, m)
}

// endedLocked forgets t, the turn of the flow that ended, and starts the
// next one, when messages were queued meanwhile. c.mu is held.
func (c *conversation) endedLocked(t *turn) {
	c.current = nil
	c.page.turnEndedLocked()
	c.page.repliedLocked()
	if c.questions.withdrawLocked(t.place) {
		c.page.hub.ResyncLocked() // its questions leave the page
	} else {
		c.page.broadcastStatusLocked()
	}
	c.svc.startQueuedLocked(c)
}

// turnContext gives the turn's code its primitives and the program's
// middleware, values and model.
func (c *conversation) turnContext(ctx context.Context, t *turn, a agents.Assistant) context.Context {
	ctx = c.svc.ruled(ctx, a) // the program's middleware, values, model and rules, the assistant's rules inside
	ctx = durable.WithScope(ctx, strconv.FormatInt(t.id, 10))
	ctx = primitive.Cores{
		Elicit: t.elicit, Notify: t.notify, Show: t.show, Sample: t.sample, SampleRetry: t.sampleRetry,
		Log: t.logLine, History: t.history, Now: t.now, Random: t.random, Version: t.version,
		StateGet: t.stateGet, StateSet: t.stateSet, Fork: t.fork, ForkEnd: t.forkEnd, Implemented: t.implemented,
	}.Provide(ctx, a.Name)
	ctx = agents.ToolAPI.Around(ctx, t.tool, middleware.Max)
	ctx = middleware.History.Around(ctx, t.compact, middleware.Min)
	ctx = primitive.Lanes.With(ctx, durable.Lanes)
	ctx = primitive.Files.With(ctx, c.openFile)
	ctx = primitive.Conversation.With(ctx, c.conv.ID)
	ctx = withCall(ctx, t.call)
	if n := c.svc.compactTokens; n > 0 {
		if _, set := CompactTokens.Lookup(ctx); !set {
			ctx = CompactTokens.With(ctx, n)
		}
	}
	return ctx
}

// endOf says how a turn of a that returned reply and err ends: the kind of
// node that records its end (AssistantMessage, Stopped or TurnError) and
// what it says. No kind means the service is shutting down: the turn stays
// where it was, to be resumed.
//
// A turn the shutdown cut is not ended by what its code returned, whatever
// that is: code that turns a tool's error into a reply ("I could not add
// it: context canceled") returns no error, yet what it answers is the
// shutdown, not the tool. So the shutdown is asked before the reply.
func (c *conversation) endOf(ctx context.Context, a agents.Assistant, reply string, err error) (tree.Kind, tree.Message) {
	if nd, ok := errors.AsType[*durable.NonDeterminismError](context.Cause(ctx)); ok && err == nil {
		err = nd // ended by a call that returns no error (turn.Version): the code went on, the turn cannot
	}
	switch {
	case errors.Is(context.Cause(ctx), errStopped):
		// Stopped, even if the agent finished anyway: the user was told so.
		return tree.Stopped, tree.Message{Text: "Stopped."}
	case errors.Is(context.Cause(ctx), errTimedOut):
		return tree.Stopped, tree.Message{Text: "Timed out.", TimedOut: true}
	case errors.Is(context.Cause(ctx), errShutdown):
		return "", tree.Message{}
	case err == nil:
		// However the agent made its reply, it is no longer than a model
		// call's may be.
		return tree.AssistantMessage, tree.Message{Text: replycap.Bound(reply, c.svc.maxReply)}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // ended for a reason of the service's, which says more
	}
	c.svc.log.Error("turn failed", "conversation", c.conv.ID, "agent", a.Name, "err", err)
	if errors.Is(err, errStopped) {
		err = context.Canceled // worded as any stop
	}
	return tree.TurnError, words.Failure(err)
}

// appendLocked records n for the turn; a turn that is no longer the
// conversation's current one records nothing. c.mu is held.
func (t *turn) appendLocked(ctx context.Context, n tree.Node) (tree.Node, error) {
	return t.appendLockedWith(ctx, n, nil)
}

// appendLockedWith is appendLocked with a reflog entry for the move. The
// turn records where it is placed: on HEAD, or on its side branch, which
// HEAD never moves to.
func (t *turn) appendLockedWith(ctx context.Context, n tree.Node, move *tree.Move) (tree.Node, error) {
	if !t.liveLocked() {
		return tree.Node{}, errParked
	}
	return t.place.record(ctx, t, n, move)
}

// liveLocked reports whether t may still record: it is the turn that runs
// where it is placed (the conversation's current turn, or its side
// question's). c.mu is held.
func (t *turn) liveLocked() bool { return t.place.live(t) }

// draftLocked returns what t's reply streamed so far. c.mu is held.
func (t *turn) draftLocked() string { return t.place.draft(t) }

// parkLocked ends the current turn without recording its end, so that HEAD
// can move; the turn's record stays, and replay resumes it on its branch.
// c.mu is held.
func (c *conversation) parkLocked() {
	if c.current == nil {
		return
	}
	t := c.current
	t.cancel(errParked)
	c.current = nil
	c.page.turnEndedLocked()
	c.questions.withdrawLocked(t.place)
}

// withdrawLocked forgets what the turns placed at place waited for (each
// side turn's questions are its own; the flow's are those of its turns)
// and reports whether there was anything.
func (qs *questions) withdrawLocked(place placement) bool {
	had := false
	for ref, w := range qs.pending {
		if w.by.place == place {
			delete(qs.pending, ref)
			delete(qs.rejected, ref)
			qs.untimeLocked(ref, w)
			had = true
		}
	}
	return had
}

// Stop halts the conversation's running turn: a model reply mid-stream, a
// tool mid-run or a question waiting for an answer; or, when side questions
// are being answered, those alone. The turn is recorded as
// stopped and its unanswered questions are withdrawn. Conflict when nothing
// is running.
func (s *Service) Stop(ctx context.Context, session, id string) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		// A side question being answered is what a user means to stop,
		// not the flow that waits beside it.
		if stopped, err := c.stopSidesLocked(ctx); stopped || err != nil {
			return err
		}
		if c.current == nil {
			return apperr.Errorf(apperr.Conflict, "Nothing is running, so there is nothing to stop.")
		}
		c.current.cancel(errStopped)
		// Its questions are withdrawn now, not when the turn gets to its end:
		// once the user is told it stopped, no answer can reach it.
		if c.questions.withdrawLocked(c.current.place) {
			c.page.hub.ResyncLocked()
		}
		return nil
	})
}

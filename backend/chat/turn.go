package chat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/lineend"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Turns. A user message starts a turn: the agent's code runs in its own
// goroutine with the primitives provided, and its end (a reply, an error,
// a stop) is recorded after the nodes of its calls. A turn whose branch
// stops being HEAD's is parked, not ended, and resumes from its record when
// its branch is HEAD's again or after a restart.

// MaxMessageLen is the longest message a user can send, in characters.
const MaxMessageLen = 8000

// CheckMessage reports, as Send would, why text cannot be sent, if it cannot.
func CheckMessage(text string) error {
	_, err := checkMessage(text)
	return err
}

// checkMessage trims a message, ends its lines with "\n" alone, and checks
// its length.
func checkMessage(text string) (string, error) {
	text = strings.TrimSpace(lineend.Normalize(text))
	if text == "" {
		return "", apperr.Errorf(apperr.Invalid, "Type a message before sending.")
	}
	if n := utf8.RuneCountInString(text); n > MaxMessageLen {
		return "", apperr.Errorf(apperr.Invalid, "That message is %d characters long; the limit is %d.", n, MaxMessageLen)
	}
	return text, nil
}

func title(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= 60 {
		return text
	}
	r := []rune(text)
	return string(r[:59]) + "…"
}

// Send records a user message and starts a turn of the conversation's agent.
// It fails with Conflict while a turn is running and Invalid for an empty or
// overlong message; either way nothing is recorded.
func (s *Service) Send(ctx context.Context, session, id, text string) error {
	text, err := checkMessage(text)
	if err != nil {
		return err
	}
	return s.with(ctx, session, id, func(c *conversation) error {
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		if c.running() {
			// While the agent waits on a question, a message either answers it
			// in words or is a side question, answered aside.
			req, waiting := c.waitingOnLocked()
			if !waiting {
				return apperr.Errorf(apperr.Conflict, "The assistant is still working on your last message. Wait for it to finish, or stop it.")
			}
			if req.Allows(elicit.Other) && answersInWords(req, text) {
				h, err := c.deliverLocked(req, elicit.Response{Action: elicit.Other, Text: text})
				if err != nil {
					return err
				}
				c.flushLocked()
				return h.err
			}
			return s.sideQuestLocked(ctx, c, req, text)
		}
		msg, err := c.appendLocked(ctx, tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: text})},
			tree.AppendOptions{Log: &tree.Move{Action: tree.ActMessage, Detail: title(text)}})
		if err != nil {
			return err
		}
		if c.conv.Title == "" {
			c.conv.Title = title(text)
			if err := s.store.SetTitle(ctx, id, c.conv.Title); err != nil {
				s.log.Warn("set title", "conversation", id, "err", err)
			}
			conv := c.conv
			c.broadcastLocked(Change{Title: &conv})
		}
		s.startTurnLocked(c, a, msg, text, durable.Journal{})
		c.broadcastStatusLocked()
		return nil
	})
}

// turn provides the primitives' cores for one turn.
type turn struct {
	conv   *conversation
	id     int64 // the user message node that started the turn
	agent  string
	record durable.Journal
	cancel context.CancelCauseFunc

	// Compaction within the turn: the summary made (or replayed) by this
	// turn, and the history as the core last built it.
	summary     *tree.SummaryRecord
	summaryNode int64
	lastHistory []message
}

// errParked ends a turn whose branch is no longer HEAD's: it stays where it
// was in the record, to be resumed when its branch is HEAD again.
var errParked = errors.New("the turn's branch is no longer the current one")

// errStopped is the cause of a turn's cancellation when the user stops it.
var errStopped = errors.New("stopped by the user")

// startTurnLocked runs a turn in its own goroutine, holding a reference to
// c until it ends; c.mu is held.
func (s *Service) startTurnLocked(c *conversation, a agents.Assistant, msg tree.Node, text string, record durable.Journal) {
	turnCtx, cancel := context.WithCancelCause(s.ctx)
	t := &turn{conv: c, id: msg.ID, agent: a.Name, record: record, cancel: cancel}
	c.current = t
	s.background(c, func() {
		defer cancel(nil)
		c.runTurn(turnCtx, t, a, text)
	})
}

// resumeLocked resumes the unfinished turn on HEAD's branch, if there is
// one: its code runs again from the start, answered from what it recorded,
// and waits again where it waited. Its unanswered questions are pending from
// now on, before the replay reaches them. c.mu is held.
func (s *Service) resumeLocked(c *conversation) {
	i := c.path.OpenTurn()
	if i < 0 || c.current != nil {
		return
	}
	a, ok := s.agents.Get(c.conv.Agent)
	if !ok {
		s.log.Error("cannot resume turn: agent not available", "conversation", c.conv.ID, "agent", c.conv.Agent)
		return
	}
	msg, record := c.path[i], durable.NewJournal(c.path[i+1:])
	for ref, n := range record.Unanswered() {
		req, err := tree.Decode[elicit.Request](n)
		if err != nil {
			s.log.Error("cannot resume turn: a question does not read", "conversation", c.conv.ID, "err", err)
			return
		}
		c.pending[ref] = newWaiter(n.ID, req)
	}
	m, _ := tree.Decode[tree.Message](msg)
	s.log.Info("resuming turn", "conversation", c.conv.ID, "turn", msg.ID, "recorded_calls", record.Len())
	s.startTurnLocked(c, a, msg, m.Text, record)
}

// runTurn runs turn t of agent a for the user message text. t.record is
// what the turn recorded before, when it is resumed: its calls are answered
// from there until the code makes a call the record does not have.
func (c *conversation) runTurn(ctx context.Context, t *turn, a agents.Assistant, text string) {
	if scope := c.svc.scope; scope != nil {
		ctx = scope(ctx) // the program's middleware, values and model for every turn
	}
	ctx = durable.WithScope(ctx, strconv.FormatInt(t.id, 10))
	ctx = runtime.AgentName.With(ctx, a.Name)
	ctx = runtime.ElicitAPI.Provide(ctx, t.elicit)
	ctx = runtime.NotifyAPI.Provide(ctx, t.notify)
	ctx = runtime.ShowAPI.Provide(ctx, t.show)
	ctx = runtime.SampleAPI.Provide(ctx, t.sample)
	ctx = runtime.SampleRetryAPI.Provide(ctx, t.sampleRetry)
	ctx = runtime.LogAPI.Provide(ctx, t.logLine)
	ctx = agents.ToolAPI.Around(ctx, t.tool, runtime.Max)
	ctx = runtime.NowAPI.Provide(ctx, t.now)
	ctx = runtime.RandomAPI.Provide(ctx, t.random)
	ctx = runtime.HistoryAPI.Provide(ctx, t.history)
	ctx = runtime.HistoryAPI.Around(ctx, t.compact, runtime.Min)
	ctx = runtime.Lanes.With(ctx, durable.Lanes)
	if n := c.svc.compactAfter; n > 0 {
		if _, set := CompactAfter.Lookup(ctx); !set {
			ctx = CompactAfter.With(ctx, n)
		}
	}

	reply, err := a.Turn(ctx, text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != t {
		return // parked: HEAD moved to another branch, where this turn is not
	}
	// The turn's own context may be cancelled; recording its end must not be.
	rec := context.WithoutCancel(ctx)
	end := func(kind tree.Kind, m tree.Message, move *tree.Move) {
		_, err = c.appendLocked(rec, tree.Node{Kind: kind, Agent: a.Name, Payload: tree.MustEncode(m)}, tree.AppendOptions{Log: move})
	}
	switch {
	case errors.Is(context.Cause(ctx), errStopped):
		// Stopped, even if the agent finished anyway: the user was told so.
		end(tree.Stopped, tree.Message{Text: "Stopped."}, &tree.Move{Action: tree.ActCancel})
	case err == nil:
		end(tree.AssistantMessage, tree.Message{Text: reply}, nil)
	case errors.Is(err, context.Canceled) && c.svc.ctx.Err() != nil:
		err = nil // shutting down: the turn stays where it was, to be resumed
	default:
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause // ended for a reason of the service's, which says more
		}
		c.svc.log.Error("turn failed", "conversation", c.conv.ID, "agent", a.Name, "err", err)
		end(tree.TurnError, failure(err), nil)
	}
	if err != nil {
		c.svc.log.Error("record end of turn", "conversation", c.conv.ID, "err", err)
	}
	c.current = nil
	c.status = Status{}
	if c.withdrawLocked() {
		c.resyncLocked() // its questions leave the page
	} else {
		c.broadcastStatusLocked()
	}
}

// failure words a turn's failure for the chat: a short sentence for
// everyone, and the details behind it (the provider's own words, say) for
// whoever opens them.
func failure(err error) tree.Message {
	if errors.Is(err, errStopped) || errors.Is(err, context.Canceled) {
		return tree.Message{Text: "Stopped."}
	}
	if le, ok := errors.AsType[*llm.Error](err); ok {
		details := le.Message
		if le.Status != 0 {
			details = fmt.Sprintf("%s (HTTP %d from %s)", le.Message, le.Status, le.Provider)
		}
		switch {
		case le.Status == http.StatusTooManyRequests:
			return tree.Message{Text: "The model could not answer: it is busy right now. Try again in a moment.", Details: details}
		case le.Status == http.StatusUnauthorized || le.Status == http.StatusForbidden:
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
		return tree.Message{Text: "This turn cannot be resumed: the agent's code changed since it was recorded.", Details: nd.Error()}
	}
	if _, ok := errors.AsType[*runtime.OutputError](err); ok {
		return tree.Message{Text: "The model's answer could not be read, even after it was shown the format.", Details: err.Error()}
	}
	if _, ok := errors.AsType[*runtime.RefusedError](err); ok {
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

// appendLocked records n for the turn; a turn that is no longer the
// conversation's current one records nothing. c.mu is held.
func (t *turn) appendLocked(ctx context.Context, n tree.Node) (tree.Node, error) {
	if t.conv.current != t {
		return tree.Node{}, errParked
	}
	return t.conv.appendLocked(ctx, n, tree.AppendOptions{})
}

// appendLockedWith is appendLocked with a reflog entry for the move.
func (t *turn) appendLockedWith(ctx context.Context, n tree.Node, move *tree.Move) (tree.Node, error) {
	if t.conv.current != t {
		return tree.Node{}, errParked
	}
	return t.conv.appendLocked(ctx, n, tree.AppendOptions{Log: move})
}

// parkLocked ends the current turn without recording its end, so that HEAD
// can move; the turn's record stays, and replay resumes it on its branch.
// c.mu is held.
func (c *conversation) parkLocked() {
	if c.current == nil {
		return
	}
	c.current.cancel(errParked)
	c.current = nil
	c.status = Status{}
	c.withdrawLocked()
}

// withdrawLocked forgets what the ended turn waited for and reports whether
// there was anything.
func (c *conversation) withdrawLocked() bool {
	had := len(c.pending) > 0
	clear(c.pending)
	clear(c.rejected)
	return had
}

// Stop halts the conversation's running turn: a model reply mid-stream, a
// tool mid-run or a question waiting for an answer. The turn is recorded as
// stopped and its unanswered questions are withdrawn. Conflict when nothing
// is running.
func (s *Service) Stop(ctx context.Context, session, id string) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		if c.current == nil {
			return apperr.Errorf(apperr.Conflict, "Nothing is running, so there is nothing to stop.")
		}
		c.current.cancel(errStopped)
		// Its questions are withdrawn now, not when the turn gets to its end:
		// once the user is told it stopped, no answer can reach it.
		if c.withdrawLocked() {
			c.resyncLocked()
		}
		return nil
	})
}

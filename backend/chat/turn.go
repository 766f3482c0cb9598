package chat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// Send records a user message and starts a turn of the conversation's
// agent; see SendMessage for a message sent while a turn runs. Invalid for
// an empty or overlong message, and then nothing is recorded.
func (s *Service) Send(ctx context.Context, session, id, text string) error {
	_, err := s.SendMessage(ctx, session, id, text)
	return err
}

// SendMessage is Send, saying what the message did. While a turn works,
// the message does what the assistant's InputPolicy says (input.go); while
// it waits on a question, the message is decided on (decide.go): an answer
// in words, a change of an earlier answer, or a side question.
func (s *Service) SendMessage(ctx context.Context, session, id, text string) (Sent, error) {
	text, err := checkMessage(text)
	if err != nil {
		return "", err
	}
	var (
		sent Sent
		q    *asked // set when a question waits: the text is decided on unlocked
	)
	err = s.with(ctx, session, id, func(c *conversation) error {
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		if !c.running() {
			return s.startLocked(ctx, c, a, text)
		}
		if req, waiting := c.waitingOnLocked(); waiting {
			q = new(c.askedLocked(req))
			return nil
		}
		sent, err = s.whileWorkingLocked(ctx, c, a, text)
		c.saySentLocked(sent, err)
		return err
	})
	if err != nil || q == nil {
		return sent, err
	}
	// Deciding may take a model call: the conversation goes on meanwhile.
	d := s.decide(ctx, *q, text)
	err = s.with(ctx, session, id, func(c *conversation) error {
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		sent, err = s.actOnLocked(ctx, c, a, *q, d)
		c.saySentLocked(sent, err)
		return err
	})
	return sent, err
}

// actOnLocked does what d decided text typed while q waited is. Should
// the conversation have moved on meanwhile (the question was answered, the
// turn ended), the text is taken as it would be now, without deciding
// again. c.mu is held.
func (s *Service) actOnLocked(ctx context.Context, c *conversation, a agents.Assistant, q asked, d decision) (Sent, error) {
	req, waiting := c.waitingOnLocked()
	switch {
	case !c.running():
		return SentTurn, s.startLocked(ctx, c, a, d.Text)
	case !waiting:
		return s.whileWorkingLocked(ctx, c, a, d.Text)
	case req.ID != q.waits.ID || c.path.Head() != q.head:
		d = decision{Text: d.Text, Waited: req.ID, Choice: choiceSide, By: "rule", Reason: "the conversation moved on while it was decided"}
	}
	if err := c.recordDecisionLocked(ctx, d); err != nil {
		return "", err
	}
	switch d.Choice {
	case choiceAnswer:
		h, err := c.deliverLocked(req, elicit.Response{Action: elicit.Other, Text: d.Text})
		if err != nil {
			return "", err
		}
		c.flushLocked()
		return SentAnswer, h.err
	case choiceChange:
		return SentChange, c.changeLocked(ctx, d.Change, elicit.Response{Action: elicit.Other, Text: d.Text})
	}
	return SentSide, s.sideQuestLocked(ctx, c, a, c.path.Head(), d.Text)
}

// turn provides the primitives' cores for one turn.
type turn struct {
	conv   *conversation
	id     int64 // the user message node that started the turn
	agent  string
	record durable.Journal
	cancel context.CancelCauseFunc
	// started is when the turn began to run, for batching (input.go).
	started time.Time
	// side is set for a side turn, which answers a side question on its
	// own branch (sidequest.go); nil for a turn of the flow.
	side *side

	// broken is the turn's latest model call when it failed after its
	// reply began to show, with what had shown, kept should that failure
	// end the turn (keepPartialLocked).
	broken brokenReply

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

// errInterrupted is the cause of a turn's cancellation when the user sends
// a new message while it works.
var errInterrupted = errors.New("interrupted by a new message")

// startTurnLocked runs a turn in its own goroutine, holding a reference to
// c until it ends; c.mu is held.
func (s *Service) startTurnLocked(c *conversation, a agents.Assistant, msg tree.Node, text string, record durable.Journal) {
	turnCtx, cancel := context.WithCancelCause(s.ctx)
	t := &turn{conv: c, id: msg.ID, agent: a.Name, record: record, cancel: cancel, started: time.Now()}
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
	msg, record := c.path[i], durable.NewJournal(c.path[i+1:])
	text := turnText(c.path, i)
	for ref, n := range record.Unanswered() {
		req, err := tree.Decode[elicit.Request](n)
		if err != nil {
			s.log.Error("cannot resume turn: a question does not read", "conversation", c.conv.ID, "err", err)
			return
		}
		c.pending[ref] = newWaiter(n.ID, req)
	}
	s.log.Info("resuming turn", "conversation", c.conv.ID, "turn", msg.ID, "recorded_calls", record.Len())
	s.startTurnLocked(c, a, msg, text, record)
}

// runTurn runs turn t of agent a for the user message text. t.record is
// what the turn recorded before, when it is resumed: its calls are answered
// from there until the code makes a call the record does not have.
func (c *conversation) runTurn(ctx context.Context, t *turn, a agents.Assistant, text string) {
	ctx = c.turnContext(ctx, t, a)
	ctx, ended := c.svc.observe.TurnStarted(ctx, c.conv.ID, a.Name, t.record.Len() > 0)
	reply, err := a.Turn(ctx, text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != t {
		ended(turnOutcome(ctx, ""))
		return // parked or interrupted: HEAD moved on, where this turn is not
	}
	kind, m := c.endOf(ctx, a, reply, err)
	defer ended(turnOutcome(ctx, kind))
	// The draft is still this turn's, since c.current is t.
	t.keepPartialLocked(kind, err, &m)
	if kind != "" {
		var move *tree.Move
		if kind == tree.Stopped {
			move = &tree.Move{Action: tree.ActCancel, Detail: "stopped the turn"}
		}
		// The turn's own context may be cancelled; recording its end must not be.
		if _, err := c.appendLocked(context.WithoutCancel(ctx), tree.Node{Kind: kind, Agent: a.Name, Payload: tree.MustEncode(m)}, tree.AppendOptions{Log: move}); err != nil {
			c.svc.log.Error("record end of turn", "conversation", c.conv.ID, "err", err)
		}
	}
	c.endedLocked()
}

// endedLocked forgets the turn that ended and starts the next one, when
// messages were queued meanwhile. c.mu is held.
func (c *conversation) endedLocked() {
	c.current = nil
	c.status = Status{}
	c.repliedLocked()
	if c.withdrawLocked() {
		c.resyncLocked() // its questions leave the page
	} else {
		c.broadcastStatusLocked()
	}
	c.svc.startQueuedLocked(c)
}

// turnContext gives the turn's code its primitives and the program's
// middleware, values and model.
func (c *conversation) turnContext(ctx context.Context, t *turn, a agents.Assistant) context.Context {
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
func (c *conversation) endOf(ctx context.Context, a agents.Assistant, reply string, err error) (tree.Kind, tree.Message) {
	switch {
	case errors.Is(context.Cause(ctx), errStopped):
		// Stopped, even if the agent finished anyway: the user was told so.
		return tree.Stopped, tree.Message{Text: "Stopped."}
	case err == nil:
		// However the agent made its reply, it is no longer than a model
		// call's may be.
		return tree.AssistantMessage, tree.Message{Text: boundReply(reply, c.svc.maxReply)}
	case errors.Is(err, context.Canceled) && c.svc.ctx.Err() != nil:
		return "", tree.Message{}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // ended for a reason of the service's, which says more
	}
	c.svc.log.Error("turn failed", "conversation", c.conv.ID, "agent", a.Name, "err", err)
	return tree.TurnError, failure(err)
}

// failure words a turn's failure for the chat: a short sentence for
// everyone, and the details behind it (the provider's own words, say) for
// whoever opens them.
func failure(err error) tree.Message {
	if errors.Is(err, errStopped) || errors.Is(err, context.Canceled) {
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
	return t.appendLockedWith(ctx, n, nil)
}

// appendLockedWith is appendLocked with a reflog entry for the move. A
// side turn records on its side branch, which HEAD never moves to.
func (t *turn) appendLockedWith(ctx context.Context, n tree.Node, move *tree.Move) (tree.Node, error) {
	if !t.liveLocked() {
		return tree.Node{}, errParked
	}
	if t.side == nil {
		return t.conv.appendLocked(ctx, n, tree.AppendOptions{Log: move})
	}
	n.Parent = t.side.tip
	n, err := t.conv.appendLocked(ctx, n, tree.AppendOptions{Fork: true, Aside: true, Log: move})
	if err == nil {
		t.side.tip = n.ID
	}
	return n, err
}

// liveLocked reports whether t may still record: it is the conversation's
// current turn, or for a side turn, its question's. c.mu is held.
func (t *turn) liveLocked() bool {
	if t.side != nil {
		return t.conv.sides[t.id] == t
	}
	return t.conv.current == t
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
	had := false
	for ref, w := range c.pending {
		if w.side == nil { // a side turn's questions are its own
			delete(c.pending, ref)
			delete(c.rejected, ref)
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
		if c.withdrawLocked() {
			c.resyncLocked()
		}
		return nil
	})
}

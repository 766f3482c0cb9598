// Package chat runs conversations: it records every step of a turn as a
// node of the conversation tree, provides the primitives' cores to agent
// code, holds the elicits a turn is waiting on, and tells subscribers (the
// open pages of a conversation) what changed.
package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/lineend"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Store is what the service needs of the database. Conversation returns an
// apperr NotFound for a conversation the session does not own; Append
// hangs a node from HEAD, or from its Parent with Fork; AppendChain hangs
// several from HEAD, each under the one before, in one commit.
type Store interface {
	EnsureSession(ctx context.Context, id string) error
	RotateSession(ctx context.Context, prev, next string) error
	CreateConversation(ctx context.Context, c tree.Conversation) (tree.Conversation, error)
	Conversation(ctx context.Context, session, id string) (tree.Conversation, error)
	Conversations(ctx context.Context, session string) ([]tree.Conversation, error)
	Append(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error)
	AppendChain(ctx context.Context, nodes []tree.Node) ([]tree.Node, error)
	MoveHead(ctx context.Context, conversation string, to int64, move tree.Move) (tree.RefEntry, error)
	Reflog(ctx context.Context, conversation string) ([]tree.RefEntry, error)
	LogMove(ctx context.Context, conversation string, prev, head int64, move tree.Move) error
	Collect(ctx context.Context, conversation string, nodes, entries []int64) error
	SetTitle(ctx context.Context, id, title string) error
	Nodes(ctx context.Context, conversation string) ([]tree.Node, error)
	Load(ctx context.Context, session, id string) (tree.Conversation, []tree.Node, error)
}

// MaxMessageLen is the longest message a user can send, in characters.
const MaxMessageLen = 8000

// Service runs the conversations of all sessions.
type Service struct {
	store  Store
	agents *agents.Registry
	model  llm.Provider
	kinds  *elicit.Kinds // see Config.Kinds
	log    *slog.Logger

	ctx    context.Context // parent of every turn; cancelled by Close
	cancel context.CancelFunc
	turns  sync.WaitGroup

	compactAfter int           // see Config.CompactAfter
	suspendAfter time.Duration // see Config.SuspendAfter
	answerHold   time.Duration // see Config.AnswerHold

	mu    sync.Mutex
	live  map[string]*conversation // conversations with a running turn or an open page
	drops uint64                   // how many conversations left live, for acquire
}

// New returns a service configured by cfg. Turns run until they finish or
// Close is called.
func New(cfg Config) *Service {
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{store: cfg.Store, agents: cfg.Agents, model: cfg.Model, kinds: cfg.Kinds, log: cfg.log(), ctx: ctx, cancel: cancel,
		compactAfter: cfg.CompactAfter, suspendAfter: cfg.suspendAfter(), answerHold: cfg.answerHold(),
		live: map[string]*conversation{}}
}

// Close stops every running turn and waits until their writes are done.
// Elicits they were waiting on stay recorded as unanswered.
func (s *Service) Close() {
	s.cancel()
	s.turns.Wait()
	s.mu.Lock()
	live := slices.Collect(maps.Values(s.live))
	s.mu.Unlock()
	for _, l := range live {
		l.flush() // an answer a stopped turn was handed is kept
	}
}

// ModelName names the model provider, for display.
func (s *Service) ModelName() string { return s.model.Name() }

// Agents lists the chat agents a conversation can be started with.
func (s *Service) Agents() []agents.Chat { return s.agents.All() }

// NewSessionID returns a fresh, unguessable session id.
func NewSessionID() string { return newID(16) }

func newID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// RotateSession issues a new session id and records it; the conversations
// of prev, when prev is a session this service issued, move to the new id
// and prev owns nothing from then on. A browser's id is rotated each time it
// starts a conversation, so an id someone else planted in the browser
// (session fixation) never owns what the browser's user starts. prev may be
// anything a client sent: it is only looked up, never recorded.
func (s *Service) RotateSession(ctx context.Context, prev string) (string, error) {
	next := NewSessionID()
	if err := s.store.RotateSession(ctx, prev, next); err != nil {
		return "", err
	}
	if prev == "" {
		return next, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.live {
		if l.owner == prev {
			l.owner = next
		}
	}
	return next, nil
}

// Agent returns the chat agent named name, the default agent when name is
// empty. An unknown name is Invalid, with a message naming the agents.
func (s *Service) Agent(name string) (agents.Chat, error) {
	if name == "" {
		return s.agents.Default(), nil
	}
	a, ok := s.agents.Get(name)
	if !ok {
		var names []string
		for _, a := range s.agents.All() {
			names = append(names, a.Name)
		}
		return agents.Chat{}, apperr.Errorf(apperr.Invalid, "There is no agent %q; the agents are %s.", name, strings.Join(names, ", "))
	}
	return a, nil
}

// Create starts a conversation owned by session with the named agent (the
// default agent when name is empty).
func (s *Service) Create(ctx context.Context, session, agentName string) (tree.Conversation, error) {
	a, err := s.Agent(agentName)
	if err != nil {
		return tree.Conversation{}, err
	}
	if err := s.store.EnsureSession(ctx, session); err != nil {
		return tree.Conversation{}, err
	}
	return s.store.CreateConversation(ctx, tree.Conversation{ID: newID(8), Session: session, Agent: a.Name})
}

// Conversations lists a session's conversations, newest first.
func (s *Service) Conversations(ctx context.Context, session string) ([]tree.Conversation, error) {
	return s.store.Conversations(ctx, session)
}

// View returns what the conversation's page shows now. Loading the
// conversation resumes a turn that was interrupted, so its pending
// questions show as pending.
func (s *Service) View(ctx context.Context, session, id string) (View, error) {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return View{}, err
	}
	defer s.release(l)
	l.lock()
	defer l.mu.Unlock()
	return l.view(), nil
}

// acquire returns the live state of a conversation the session owns,
// loading it if needed, with a reference held; callers release it. Loading
// resumes a turn that a restart interrupted.
func (s *Service) acquire(ctx context.Context, session, id string) (*conversation, error) {
	var c tree.Conversation
	var nodes []tree.Node
	for {
		s.mu.Lock()
		if l := s.live[id]; l != nil && l.owner == session {
			l.refs++
			s.mu.Unlock()
			return l, nil
		}
		drops := s.drops
		s.mu.Unlock()
		var err error
		if c, nodes, err = s.store.Load(ctx, session, id); err != nil {
			return nil, err
		}
		s.mu.Lock()
		if l := s.live[id]; l != nil { // loaded meanwhile by another request
			l.refs++
			s.mu.Unlock()
			return l, nil
		}
		if s.drops == drops {
			break // s.mu stays held
		}
		// A conversation left memory while this one was read: it may have
		// been this one, with writes the read missed. Read again.
		s.mu.Unlock()
	}
	l := newConversation(s, c, nodes)
	// Others may find l from now on, but wait for l.mu until the resume is
	// under way, so none of them sees the turn as not running.
	l.mu.Lock()
	l.refs++
	s.live[id] = l
	s.mu.Unlock()
	s.resumeLocked(l)
	l.mu.Unlock()
	return l, nil
}

// resumeLocked resumes the unfinished turn on HEAD's branch, if there is
// one: its code runs again from the start, answered from what it recorded,
// and waits again where it waited. Its unanswered questions are pending from
// now on, before the replay reaches them. l.mu is held.
func (s *Service) resumeLocked(l *conversation) {
	i := l.path.OpenTurn()
	if i < 0 || l.current != nil {
		return
	}
	a, ok := s.agents.Get(l.conv.Agent)
	if !ok {
		s.log.Error("cannot resume turn: agent not available", "conversation", l.conv.ID, "agent", l.conv.Agent)
		return
	}
	msg, record := l.path[i], durable.NewJournal(l.path[i+1:])
	for ref, n := range record.Unanswered() {
		req, err := tree.Decode[elicit.Request](n)
		if err != nil {
			s.log.Error("cannot resume turn: a question does not read", "conversation", l.conv.ID, "err", err)
			return
		}
		l.pending[ref] = newWaiter(n.ID, req)
	}
	var m tree.Message
	json.Unmarshal(msg.Payload, &m)
	s.log.Info("resuming turn", "conversation", l.conv.ID, "turn", msg.ID, "recorded_calls", record.Len())
	s.startTurnLocked(l, a, msg, m.Text, record)
}

// startTurnLocked runs a turn in its own goroutine, holding a reference to
// l until it ends; l.mu is held.
func (s *Service) startTurnLocked(l *conversation, a agents.Chat, msg tree.Node, text string, record durable.Journal) {
	turnCtx, cancel := context.WithCancelCause(s.ctx)
	t := &turn{l: l, id: msg.ID, agent: a.Name, record: record, cancel: cancel}
	l.current = t
	s.mu.Lock()
	l.refs++
	s.mu.Unlock()
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		defer s.release(l)
		defer cancel(nil)
		l.runTurn(turnCtx, t, a, text)
	}()
}

// errStopped is the cause of a turn's cancellation when the user stops it.
var errStopped = errors.New("stopped by the user")

// Stop halts the conversation's running turn: a model reply mid-stream, a
// tool mid-run or a question waiting for an answer. The turn is recorded as
// stopped and its unanswered questions are withdrawn. Conflict when nothing
// is running.
func (s *Service) Stop(ctx context.Context, session, id string) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	l.lock()
	defer l.mu.Unlock()
	if l.current == nil {
		return apperr.Errorf(apperr.Conflict, "Nothing is running, so there is nothing to stop.")
	}
	l.current.cancel(errStopped)
	// Its questions are withdrawn now, not when the turn gets to its end:
	// once the user is told it stopped, no answer can reach it.
	if l.withdrawLocked() {
		l.resyncLocked()
	}
	return nil
}

// release drops a reference; a conversation with none left (no open page,
// no running turn) is dropped from memory and lives on in the database only.
func (s *Service) release(l *conversation) {
	s.mu.Lock()
	l.refs--
	if l.refs == 0 && s.live[l.conv.ID] == l {
		delete(s.live, l.conv.ID)
		s.drops++
	}
	last := l.refs == 1 // perhaps the turn's own, waiting
	s.mu.Unlock()
	if last {
		s.idle(l)
	}
}

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

// Send records a user message and starts a turn of the conversation's agent.
// It fails with Conflict while a turn is running and Invalid for an empty or
// overlong message; either way nothing is recorded.
func (s *Service) Send(ctx context.Context, session, id, text string) error {
	text, err := checkMessage(text)
	if err != nil {
		return err
	}
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	a, ok := s.agents.Get(l.conv.Agent)
	if !ok {
		return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", l.conv.Agent)
	}
	l.lock()
	defer l.mu.Unlock()
	if l.running() {
		// While the agent waits on a question, a message either answers it
		// in words or is a side question, answered aside.
		req, waiting := l.waitingOnLocked()
		if !waiting {
			return apperr.Errorf(apperr.Conflict, "The assistant is still working on your last message. Wait for it to finish, or stop it.")
		}
		if req.Allows(elicit.Other) && answersInWords(req, text) {
			h, err := l.deliverLocked(req, elicit.Response{Action: elicit.Other, Text: text})
			if err != nil {
				return err
			}
			l.flushLocked()
			return h.err
		}
		return s.sideQuestLocked(ctx, l, req, text)
	}
	msg, err := l.appendLocked(ctx, tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: text})},
		tree.AppendOptions{Log: &tree.Move{Action: tree.ActMessage, Detail: title(text)}})
	if err != nil {
		return err
	}
	if l.conv.Title == "" {
		l.conv.Title = title(text)
		if err := s.store.SetTitle(ctx, id, l.conv.Title); err != nil {
			s.log.Warn("set title", "conversation", id, "err", err)
		}
		conv := l.conv
		l.broadcastLocked(Change{Title: &conv})
	}
	s.startTurnLocked(l, a, msg, text, durable.Journal{})
	l.broadcastStatusLocked()
	return nil
}

func title(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= 60 {
		return text
	}
	r := []rune(text)
	return string(r[:59]) + "…"
}

// userFacing words a turn's failure for the chat.
func userFacing(err error) string {
	if errors.Is(err, errStopped) || errors.Is(err, context.Canceled) {
		return "Stopped."
	}
	var le *llm.Error
	if errors.As(err, &le) {
		return "The model could not answer: " + le.Message
	}
	if nd, ok := errors.AsType[*durable.NonDeterminismError](err); ok {
		return "This turn cannot be resumed: the agent's code changed since it was recorded (" + nd.Error() + ")."
	}
	return apperr.MessageOf(err)
}

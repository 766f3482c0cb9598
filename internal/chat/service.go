// Package chat runs conversations: it records every step of a turn as a
// node of the conversation tree, provides the primitives' cores to agent
// code, holds the elicits a turn is waiting on, and tells subscribers (the
// open pages of a conversation) what changed.
package chat

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/always"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
	"github.com/sweatpants-go/sweatpants/internal/timers"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Store is what the service needs of the database. Conversation returns an
// apperr NotFound for a conversation the session does not own; Append
// hangs a node from HEAD, or from its Parent with Fork; AppendChain hangs
// several from HEAD, each under the one before, in one commit.
type Store interface {
	EnsureSession(ctx context.Context, id string) error
	RotateSession(ctx context.Context, prev, next, client string, within time.Duration) (string, error)
	Session(ctx context.Context, id, client string, within time.Duration) (string, error)
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
	ConversationStore // manage.go
	always.Store      // always.go
}

// Service runs the conversations of all sessions.
type Service struct {
	store  Store
	agents *registry.Assistants
	model  llm.Provider
	kinds  *kindset.Set // see Config.Kinds
	files  Files        // see Config.Files
	// pictures fills the pictures of every conversation's model calls,
	// decoding one at a time.
	pictures *attach.Pictures
	log      *slog.Logger

	ctx    context.Context // parent of every turn; cancelled by Close, with errShutdown
	cancel context.CancelCauseFunc
	turns  sync.WaitGroup

	compactTokens int                                   // see Config.CompactTokens
	scope         func(context.Context) context.Context // see Config.Scope
	suspendAfter  time.Duration                         // see Config.SuspendAfter
	retention     time.Duration                         // see Config.GCRetention
	answerHold    time.Duration                         // see Config.AnswerHold
	decideByRule  bool                                  // see Config.DecideByRule
	batchWindow   time.Duration                         // see Config.BatchWindow
	now           func() time.Time                      // see Config.Now
	maxReply      int                                   // see Config.MaxReply

	mu    sync.Mutex
	live  map[string]*conversation // conversations with a running turn or an open page
	drops uint64                   // how many conversations left live, for acquire

	sessions sessionfeed.Hub // the followers of whole sessions (sessionfeed.go)
	always   *always.Rules   // the sessions' always rules (always.go)
	levels   levels          // the assistants' policies, compiled (levels.go)

	observe Observer      // see Config.Observer
	leases  Leases        // see Config.Leases
	clock   *timers.Clock // the conversations' timers (timers.go); nil when the store keeps none
}

// New returns a service configured by cfg. Turns run until they finish or
// Close is called.
func New(cfg Config) *Service {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Service{store: cfg.Store, agents: cfg.Assistants, model: cfg.Model, kinds: cfg.Kinds, files: cfg.Files, pictures: attach.NewPictures(0), log: cfg.log(), ctx: ctx, cancel: cancel,
		compactTokens: cfg.CompactTokens, scope: cfg.Scope, suspendAfter: cfg.suspendAfter(), answerHold: cfg.answerHold(),
		retention: cfg.gcRetention(), now: cfg.now(),
		decideByRule: cfg.DecideByRule, batchWindow: cmp.Or(cfg.BatchWindow, DefaultBatchWindow), live: map[string]*conversation{},
		maxReply: cfg.maxReply(), observe: cfg.observer(), leases: cfg.Leases, always: always.NewRules(cfg.Store)}
	if ts, ok := cfg.Store.(timers.Store); ok {
		s.clock = timers.New(ts, s.now, s.log)
		s.clock.Handle("elicit", s.expire)
		s.clock.Handle("deadline", s.timeOut)
		if cfg.Clocked != nil {
			cfg.Clocked(s)
		}
		s.turns.Go(func() { s.clock.Run(ctx) })
	}
	return s
}

// Close stops every running turn and waits until their writes are done.
// Elicits they were waiting on stay recorded as unanswered.
func (s *Service) Close() {
	s.cancel(errShutdown)
	s.turns.Wait()
	s.mu.Lock()
	live := slices.Collect(maps.Values(s.live))
	s.mu.Unlock()
	for _, c := range live {
		c.flush() // an answer a stopped turn was handed is kept
	}
}

// Now reads the service's clock (Config.Now): a command that compares a
// time with one the service keeps, as ClearNotice does, takes it from here.
func (s *Service) Now() time.Time { return s.now() }

// since is how long ago t was, by the service's clock.
func (s *Service) since(t time.Time) time.Duration { return s.now().Sub(t) }

// ModelName names the model for the chat's pages: the model alone, as
// "gpt-4o-mini", else the provider; never where it is served from, which
// is for developers (ModelLabel).
func (s *Service) ModelName() string { return llm.ModelName(s.model) }

// ModelLabel names the model and where it is served from (llm.Label), for
// developers: the calls page.
func (s *Service) ModelLabel() string { return llm.Label(s.model) }

// Assistants lists the assistants a conversation can be started with.
func (s *Service) Assistants() []agents.Assistant { return s.agents.All() }

// NewSessionID returns a fresh, unguessable session id.
func NewSessionID() string { return newID(16) }

func newID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// SessionHandoff is how long a rotated session id still leads to the
// session that took its conversations over, for requests of the same client
// address only. A browser learns its new id from the response that started
// a conversation; a request it sent before that (a double-click on Send, a
// chat started in a second tab) still carries the previous id, and must land
// where the conversations went. Someone else who planted the previous id
// gets nothing from it, and after the window neither does anyone.
const SessionHandoff = 10 * time.Second

// RotateSession gives the browser that sent prev (from the address client)
// a session of its own and returns its id. When prev is a session this
// service issued, its conversations move to the new id and prev owns nothing
// from then on. A browser's id is rotated each time it starts a
// conversation, so an id someone else planted in the browser (session
// fixation) never owns what the browser's user starts. When prev was itself
// rotated a moment ago for the same client, the request was sent before the
// browser heard of that, and it gets the session prev leads to: one
// successor, whatever the order the answers arrive in. prev may be anything
// a client sent: it is only looked up, never recorded.
func (s *Service) RotateSession(ctx context.Context, prev, client string) (string, error) {
	next, err := s.store.RotateSession(ctx, prev, NewSessionID(), client, SessionHandoff)
	if err != nil {
		return "", err
	}
	s.Claimed(prev, next) // nothing moved when prev is "" or pinned (next == prev)
	return next, nil
}

// IssueSession records id, made by NewSessionID, as a browser's session
// of its own, owning nothing but what was kept under it already: the files
// of the upload that gives a browser without a session its first one,
// recorded once the upload was taken, so that a refused one records no
// session.
func (s *Service) IssueSession(ctx context.Context, id string) error {
	return s.store.EnsureSession(ctx, id)
}

// Session returns the session a browser's cookie id stands for, asked from
// the address client: id itself when this service issued it and it is
// current; the session it was rotated to when that was within
// SessionHandoff and for the same client; "" otherwise (a made-up id, or
// one that moved on), which owns nothing.
func (s *Service) Session(ctx context.Context, id, client string) (string, error) {
	return s.store.Session(ctx, id, client, SessionHandoff)
}

// Assistant returns the assistant named name, the default one when name is
// empty. An unknown name is Invalid, with a message naming the agents.
func (s *Service) Assistant(name string) (agents.Assistant, error) {
	if name == "" {
		return s.agents.Default(), nil
	}
	a, ok := s.agents.Get(name)
	if !ok {
		var names []string
		for _, a := range s.agents.All() {
			names = append(names, a.Name)
		}
		return agents.Assistant{}, apperr.Errorf(apperr.Invalid, "There is no agent %q; the agents are %s.", name, strings.Join(names, ", "))
	}
	return a, nil
}

// Create starts a conversation owned by session with the named agent (the
// default agent when name is empty).
func (s *Service) Create(ctx context.Context, session, agentName string) (tree.Conversation, error) {
	a, err := s.Assistant(agentName)
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
func (s *Service) View(ctx context.Context, session, id string) (pageview.View, error) {
	var v pageview.View
	err := s.with(ctx, session, id, func(c *conversation) error {
		v = c.page.view()
		return nil
	})
	return v, err
}

// with runs fn on the live state of conversation id, which session owns:
// loaded if need be, held in memory while fn runs, and locked, with an
// answer held for the turn written first. Every command that reads or
// changes a conversation goes through it or through holding.
func (s *Service) with(ctx context.Context, session, id string, fn func(c *conversation) error) error {
	return s.holding(ctx, session, id, func(c *conversation) error {
		c.lock()
		defer c.mu.Unlock()
		return fn(c)
	})
}

// holding runs fn on the live state of conversation id, which session
// owns, held in memory while fn runs but not locked: for commands that do
// part of their work outside the lock.
func (s *Service) holding(ctx context.Context, session, id string, fn func(c *conversation) error) error {
	c, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(c)
	return fn(c)
}

// background runs fn in a goroutine of its own that holds c in memory
// until fn returns; Close waits for it.
func (s *Service) background(c *conversation, fn func()) {
	s.mu.Lock()
	c.refs++
	s.mu.Unlock()
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		defer s.release(c)
		fn()
	}()
}

// acquire returns the live state of a conversation the session owns,
// loading it if needed, with a reference held; callers release it. Loading
// resumes a turn that a restart interrupted.
func (s *Service) acquire(ctx context.Context, session, id string) (*conversation, error) {
	var meta tree.Conversation
	var nodes []tree.Node
	var held func() // the lease, once taken
	for {
		s.mu.Lock()
		if c := s.live[id]; c != nil && c.owner == session {
			c.refs++
			s.mu.Unlock()
			return c, nil
		}
		drops := s.drops
		s.mu.Unlock()
		// The lease first: what is read after it is what no other node
		// will write to meanwhile.
		unlease, err := s.hold(ctx, id)
		if err != nil {
			return nil, err
		}
		if meta, nodes, err = s.store.Load(ctx, session, id); err != nil {
			unlease()
			return nil, err
		}
		s.mu.Lock()
		if c := s.live[id]; c != nil { // loaded meanwhile by another request
			c.refs++
			s.mu.Unlock()
			unlease() // c holds the lease
			return c, nil
		}
		if s.drops == drops {
			held = unlease
			break // s.mu stays held
		}
		// A conversation left memory while this one was read: it may have
		// been this one, with writes the read missed. Read again.
		s.mu.Unlock()
		unlease()
	}
	c := newConversation(s, meta, nodes)
	c.unlease = held
	s.observe.Loaded(id)
	// Others may find c from now on, but wait for c.mu until the resume is
	// under way, so none of them sees the turn as not running.
	c.mu.Lock()
	c.refs++
	s.live[id] = c
	s.mu.Unlock()
	s.resumeLocked(c)
	s.startQueuedLocked(c) // what was queued when no turn is left to wait for
	c.mu.Unlock()
	return c, nil
}

// release drops a reference; a conversation with none left (no open page,
// no running turn) is dropped from memory and lives on in the database only.
func (s *Service) release(c *conversation) {
	s.mu.Lock()
	c.refs--
	unlease := func() {}
	if c.refs == 0 && s.live[c.conv.ID] == c {
		unlease = s.forgetLocked(c)
	}
	last := c.refs == 1 // perhaps the turn's own, waiting
	s.mu.Unlock()
	unlease()
	if last {
		s.idle(c)
	}
}

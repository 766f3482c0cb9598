// Package timers keeps what is due at a time in a conversation — a
// question that expires, a durable sleep, a turn's deadline, a scheduled
// message — and fires each when its time comes, on whichever node finds it
// due, after a restart too.
//
// A timer is a row in the database, not a goroutine: a conversation
// that waits on one needs nothing in memory. Every node looks for timers
// due (at the earliest one it knows of, and at least every PollEvery for
// those other nodes set); a node claims the timers it fires for a while,
// so two nodes do not both try one at once, and a claim lapses, so a node
// killed while firing leaves the timer to another. Firing itself is the
// Firer's: it must be idempotent, which the chat service makes it by
// firing under the conversation's lease and recording what fired in the
// conversation's tree — a timer fires once however often it is tried.
//
// Why not River (github.com/riverqueue/river), which runs jobs on SQLite
// and PostgreSQL: a timer here is not a job to run but a moment at which
// a conversation's own record moves on, under the conversation's lease,
// which the cluster already hands between nodes; a queue of its own would
// add a second notion of who owns what (its leader, its job locks) beside
// the lease, and its tables beside the tree, without removing the need
// to check the tree before firing.
package timers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// A Timer is one thing due in a conversation.
type Timer struct {
	Conversation string
	// Key names what fires, unique in the conversation: "<kind>:<id>",
	// as Key makes it.
	Key string
	// Owner is the conversation's owner key.
	Owner string
	Due   time.Time
}

// Key is a timer's key for what of kind id names.
func Key(kind, id string) string { return kind + ":" + id }

// Store keeps timers: the database (package store).
type Store interface {
	// SetTimer records t, replacing the conversation's timer of t.Key.
	SetTimer(ctx context.Context, t Timer) error
	// ClearTimer forgets the conversation's timer of key, if any.
	ClearTimer(ctx context.Context, conversation, key string) error
	// ClaimDue claims up to limit timers due at now that nobody else
	// claims, until now+hold, and returns them, earliest first.
	ClaimDue(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]Timer, error)
	// NextDue returns when the earliest timer is due; ok is false for
	// none.
	NextDue(ctx context.Context) (due time.Time, ok bool, err error)
	// TimersOf lists the conversation's timers, earliest first.
	TimersOf(ctx context.Context, conversation string) ([]Timer, error)
}

// A Firer does what a timer of its kind is for (Clock.Handle). It
// returns the zero time when t is done with (fired, or found to be wanted
// no more), and a later time to which t moves when it is not due yet (a
// clock of another node ahead of this one's) or comes again. An error
// leaves t to be tried again when the claim lapses; but an
// apperr.NotFound (the conversation is gone) ends it, and an
// apperr.Unavailable (another node serves the conversation) has it tried
// again in Elsewhere, by any node.
type Firer func(ctx context.Context, t Timer) (later time.Time, err error)

const (
	// PollEvery is how often a node looks for timers it was not told of
	// (set by another node) when it knows of none due sooner.
	PollEvery = time.Second
	// Hold is how long a node's claim on a timer it fires lasts.
	Hold = 30 * time.Second
	// Elsewhere is how soon a timer whose conversation another node
	// serves (its handler's apperr.Unavailable: the lease is that node's)
	// is tried again, by whichever node's clock claims it first: the one
	// serving it, at best, which then fires it at once.
	Elsewhere = time.Second
	// batch is how many due timers a node claims at a time.
	batch = 64
	// parallel is how many of them it fires at once (fireAll).
	parallel = 8
)

// Clock fires a store's timers as they come due.
type Clock struct {
	store Store
	now   func() time.Time
	log   *slog.Logger
	wake  chan struct{}

	mu       sync.Mutex
	handlers map[string]Firer       // by kind, the part of a key before ":"
	onFired  func(Timer, time.Time) // told of each timer fired (OnFired)
	firing   map[[2]string]bool     // the timers being fired, by conversation and key
}

// New makes a clock of the timers in st, read by now. What fires a timer
// is given by its kind (Handle).
func New(st Store, now func() time.Time, log *slog.Logger) *Clock {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Clock{store: st, now: now, log: log, wake: make(chan struct{}, 1), handlers: map[string]Firer{}, firing: map[[2]string]bool{}}
}

// Handle has fire do what the timers of kind (Key's kind) are for. A
// timer of a kind nobody handles yet is left for later: it is tried again
// when its claim lapses.
func (c *Clock) Handle(kind string, fire Firer) {
	c.mu.Lock()
	c.handlers[kind] = fire
	c.mu.Unlock()
}

// fire does what t is for, by its kind's handler.
func (c *Clock) fire(ctx context.Context, t Timer) (time.Time, error) {
	kind, _, _ := strings.Cut(t.Key, ":")
	c.mu.Lock()
	f := c.handlers[kind]
	c.mu.Unlock()
	if f == nil {
		return time.Time{}, fmt.Errorf("no handler of timers of kind %q", kind)
	}
	return f(ctx, t)
}

// Set records t and has the clock fire it at its time. A timer set again
// while this clock fires it (a conversation loaded to fire it sets its
// timers again) does not wake the clock: it is seen to once fired.
func (c *Clock) Set(ctx context.Context, t Timer) error {
	if err := c.store.SetTimer(ctx, t); err != nil {
		return err
	}
	c.mu.Lock()
	busy := c.firing[[2]string{t.Conversation, t.Key}]
	c.mu.Unlock()
	if !busy {
		c.Poke()
	}
	return nil
}

// Clear forgets the conversation's timer of key.
func (c *Clock) Clear(ctx context.Context, conversation, key string) error {
	return c.store.ClearTimer(ctx, conversation, key)
}

// Of lists the conversation's timers, earliest first.
func (c *Clock) Of(ctx context.Context, conversation string) ([]Timer, error) {
	return c.store.TimersOf(ctx, conversation)
}

// Poke has a running clock look at the timers again now: one was set, or
// the time (a test's clock) moved.
func (c *Clock) Poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// OnFired has f told of each timer fired, with when the firing was done.
func (c *Clock) OnFired(f func(Timer, time.Time)) {
	c.mu.Lock()
	c.onFired = f
	c.mu.Unlock()
}

// FireDue fires the timers due now, and reports how many it fired (not
// counting those moved to a later time or ended as NotFound).
func (c *Clock) FireDue(ctx context.Context) (int, error) {
	fired := 0
	for {
		now := c.now()
		due, err := c.store.ClaimDue(ctx, now, Hold, batch)
		if err != nil {
			return fired, err
		}
		fired += c.fireAll(ctx, due)
		if ctx.Err() != nil {
			return fired, ctx.Err()
		}
		if len(due) < batch {
			return fired, nil
		}
	}
}

// fireAll fires due, up to parallel at a time, and returns how many it
// fired. A firing mostly waits for its conversation's commits (its lease,
// the answer, the turn's next record): on PostgreSQL, where each commits
// alone, firings one after another leave a node firing ~110 a second.
func (c *Clock) fireAll(ctx context.Context, due []Timer) int {
	var fired atomic.Int64
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, t := range due {
		if ctx.Err() != nil {
			break
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			done, err := c.fireOne(ctx, t)
			switch {
			case err != nil && ctx.Err() == nil:
				c.log.Warn("a timer did not fire; it is tried again later", "conversation", t.Conversation, "timer", t.Key, "err", err)
			case done:
				fired.Add(1)
			}
		})
	}
	wg.Wait()
	return int(fired.Load())
}

// fireOne fires t by its kind's handler; fired is false when the handler
// moved it to a later time or found its conversation gone (and it ended).
func (c *Clock) fireOne(ctx context.Context, t Timer) (fired bool, err error) {
	id := [2]string{t.Conversation, t.Key}
	c.mu.Lock()
	c.firing[id] = true
	c.mu.Unlock()
	later, err := c.fire(ctx, t)
	c.mu.Lock()
	delete(c.firing, id)
	c.mu.Unlock()
	switch {
	case err != nil && apperr.CodeOf(err) == apperr.NotFound:
		return false, c.store.ClearTimer(context.WithoutCancel(ctx), t.Conversation, t.Key)
	case err != nil && apperr.CodeOf(err) == apperr.Unavailable && ctx.Err() == nil:
		// Not left claimed for Hold: the node that serves it fires it.
		t.Due = c.now().Add(Elsewhere)
		return false, c.store.SetTimer(context.WithoutCancel(ctx), t)
	case err != nil:
		return false, err
	case !later.IsZero():
		t.Due = later
		return false, c.store.SetTimer(context.WithoutCancel(ctx), t) // the claim goes with the update
	}
	if err := c.store.ClearTimer(context.WithoutCancel(ctx), t.Conversation, t.Key); err != nil {
		return false, err
	}
	c.mu.Lock()
	f := c.onFired
	c.mu.Unlock()
	if f != nil {
		f(t, c.now())
	}
	return true, nil
}

// Run fires timers as they come due until ctx ends. It waits for the
// earliest timer it knows of, and at most PollEvery, by the wall clock:
// with a test's clock, Poke after moving it (or call FireDue).
func (c *Clock) Run(ctx context.Context) {
	for {
		if _, err := c.FireDue(ctx); err != nil && !errors.Is(err, context.Canceled) {
			c.log.Warn("timers not read", "err", err)
		}
		wait := PollEvery
		if due, ok, err := c.store.NextDue(ctx); err == nil && ok {
			wait = min(wait, max(due.Sub(c.now()), 0))
		}
		tm := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			tm.Stop()
			return
		case <-c.wake:
		case <-tm.C:
		}
		tm.Stop()
	}
}

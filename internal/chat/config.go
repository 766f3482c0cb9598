package chat

import (
	"context"
	"log/slog"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/replycap"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Config is what New builds a service from. Store, Assistants and Model
// are required; every other field's zero value is a working default.
type Config struct {
	// Store records the conversations.
	Store Store
	// Assistants are the assistants a conversation can be started with.
	Assistants *registry.Assistants
	// Model is the model turns sample from.
	Model llm.Provider
	// Kinds are the elicit kinds whose rules answers are checked by, besides
	// each request's schema: the kinds the agents ask with. An answer to a
	// kind it does not hold, or to any kind when it is nil, is checked by
	// the request's schema alone.
	Kinds *kindset.Set
	// Log receives what the service and its turns log; nil logs nothing.
	Log *slog.Logger
	// Observer hears of turns, answers and suspensions, for telemetry;
	// nil hears nothing.
	Observer Observer
	// Leases, when set, share the conversations with the other nodes of a
	// cluster (lease.go); nil when this process is the only one.
	Leases Leases
	// Files are the files sessions sent (files.go): read for the model
	// (package attach) and for the agents' code (turn.OpenFile), and
	// checked when an answer gives one (elicit.AskFile); nil when no
	// files are kept.
	Files Files

	// Scope, when set, makes the context every turn runs in from the one
	// the service gives it: the program's root scope, where it installs
	// middleware (Around), values and a model (middleware.Model) for every
	// turn. It is called at the start of each turn, a resumed one included,
	// so middleware that keeps count per turn starts afresh.
	Scope func(context.Context) context.Context

	// Clocked, when set, is called with the service before its clock
	// (Timers) starts, to handle timers of kinds of the program's own,
	// such as scheduled messages (package schedule).
	Clocked func(*Service)

	// CompactTokens is how many tokens of conversation a branch may give
	// the model before its oldest messages are summarized: the default of
	// the primitive value CompactTokens, which middleware or an app may set
	// for a scope. Zero or negative never compacts.
	CompactTokens int

	// BatchWindow is how soon after a message the next one joins it, while
	// its turn has recorded and shown nothing (input.go); zero means
	// DefaultBatchWindow.
	BatchWindow time.Duration

	// DecideByRule has a plain rule decide what a message typed while a
	// question waits is (decide.go), instead of the model: for a model that
	// cannot weigh words, such as the offline one.
	DecideByRule bool

	// SuspendAfter is how long a turn may wait for answers with nobody
	// watching before it is suspended: zero suspends at once, a negative
	// duration never. It is a pointer because zero is a setting of its
	// own: nil means DefaultSuspendAfter.
	SuspendAfter *time.Duration

	// GCRetention is how long GC keeps unreachable nodes and reflog
	// entries: zero or negative removes whatever is unreachable now. It is
	// a pointer because zero is a setting of its own: nil means
	// DefaultGCRetention.
	GCRetention *time.Duration

	// Now is the service's clock: what a turn's turn.Now records, when
	// a notice was shown, how long a model call took and a turn has worked,
	// and the age GC measures against its retention all read it, so a test
	// (or a program) that moves the store's clock moves this one with it.
	// Timers still run in real time: what they compare when they fire is
	// read from Now. Nil means time.Now.
	Now func() time.Time
	// MaxReply bounds a model call's reply and a turn's, in bytes of text:
	// a longer one is cut there, with a note saying so (replycap.go). Zero
	// means DefaultMaxReply; less than MinMaxReply is MinMaxReply.
	MaxReply int

	// AnswerHold is how long an answer waits for the turn's next record
	// before it is written alone; zero means DefaultAnswerHold. New panics
	// if it is negative.
	AnswerHold time.Duration
}

// suspendAfter returns how long a turn waits unwatched before it is
// suspended, the default when c does not say.
func (c Config) suspendAfter() time.Duration {
	if c.SuspendAfter == nil {
		return DefaultSuspendAfter
	}
	return *c.SuspendAfter
}

// DefaultGCRetention is how long GC keeps what nothing reaches when
// Config does not say.
const DefaultGCRetention = 30 * 24 * time.Hour

// gcRetention returns how long GC keeps what nothing reaches, the default
// when c does not say.
func (c Config) gcRetention() time.Duration {
	if c.GCRetention == nil {
		return DefaultGCRetention
	}
	return *c.GCRetention
}

// answerHold returns how long an answer waits for the turn's next record,
// the default when c does not say.
func (c Config) answerHold() time.Duration {
	switch {
	case c.AnswerHold < 0:
		panic("chat: the answer hold must not be negative")
	case c.AnswerHold == 0:
		return DefaultAnswerHold
	}
	return c.AnswerHold
}

// now returns c's clock, time.Now when c does not say.
func (c Config) now() func() time.Time {
	if c.Now == nil {
		return time.Now
	}
	return c.Now
}

// log returns c's logger, or one that discards everything.
func (c Config) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// observer returns c's observer, or one that hears nothing.
func (c Config) observer() Observer {
	if c.Observer == nil {
		return hearsNothing{}
	}
	return c.Observer
}

// maxReply returns the bound on a reply, the default when c does not say.
func (c Config) maxReply() int {
	if c.MaxReply == 0 {
		return DefaultMaxReply
	}
	return max(c.MaxReply, MinMaxReply)
}

// DefaultMaxReply and MinMaxReply are the bound on a reply when
// Config.MaxReply says none, and the smallest it may be (package
// replycap cuts the replies).
const (
	DefaultMaxReply = replycap.Default
	MinMaxReply     = replycap.Min
)

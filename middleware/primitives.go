package middleware

import (
	"log/slog"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
)

// The primitives an agent's code calls through package turn, as APIs a
// scope wraps. Whoever runs the turn provides their implementations.
var (
	// Sample is the model call itself, the heart of the sample pipeline
	// (SampleInput and the stages after it); in a turn its implementation
	// records the call, and a resumed turn's calls are answered from the
	// record without reaching the model.
	Sample = NewAPI[llm.Request, llm.Response]("sample")
	// Elicit is a question to the user (turn.Ask, turn.Elicit).
	Elicit = NewAPI[elicit.Request, elicit.Response]("elicit")
	// Notify is a report of progress to the user (turn.Notify).
	Notify = NewAPI[Progress, struct{}]("notify")
	// Log is a line for developers (turn.Log).
	Log = NewAPI[LogEntry, struct{}]("log")
	// History gives the conversation so far as model messages (turn.History);
	// middleware around it can shorten it (compaction).
	History = NewAPI[struct{}, []llm.Message]("history")
)

// Progress is what notify reports: a message and, when known, how far along
// the work is, from 0 to 1 (negative when unknown).
type Progress struct {
	Message  string  `json:"message"`
	Fraction float64 `json:"fraction"`
}

// LogEntry is one call of log.
type LogEntry struct {
	Level   slog.Level `json:"level"`
	Message string     `json:"message"`
	Attrs   []any      `json:"-"`
}

// Model is the model a scope's model calls go to; nil leaves the choice to
// whoever runs the turn (in a conversation: the application's model).
var Model = NewValue[llm.Provider]("model", nil)

// SampleAttempts bounds the attempts of one model call through the
// pipeline, the first included (see Retry).
var SampleAttempts = NewValue("sample-attempts", 3)

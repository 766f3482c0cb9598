// Package eventstream is the conversation as typed events, for a client
// that is not the page (a script, another service, a terminal): a run
// started, the reply's text as it streams, a tool called and what it
// returned, a question asked and answered (a tool call's approval also as
// an approval, a method's call also as a call: protocol.go), a block of
// the agent's code tried and then kept or gone back from (fork.go), the
// run completed. It follows the conversation through the chat service's
// feed (feed.Follower) and reads nothing else of it.
//
// Every event but the reply's text derives from a node of the record, so
// the stream is the record read in id order, and a client that reconnects
// is sent the record from where it left off. The reply's text as it streams
// is not recorded; its events carry where it goes in the reply (a byte
// offset), so a client that applies them there holds the reply's text
// exactly, whatever it missed or was sent again after a restart.
//
// An event's id is the stream's position after it, in full (position.go):
// the newest node whose events were all sent (or how many of that node's
// events were, for a node that gives more than one: a tool call, an
// approval's question or answer, a method's call or its answer), and how
// much of the streaming reply the client holds, with a hash of those bytes
// (held.go). Resuming from an id therefore needs nothing remembered on the
// server, skips nothing and repeats nothing: the nodes after it are read
// from the record and the reply's text goes on from the bytes the client
// holds, once the hash shows they are the bytes the server has (after a
// restart the reply may have been asked of the model again, and come out
// differently).
package eventstream

import (
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// The event types.
const (
	EventRunStarted     = "run.started"     // RunStarted: a user message started a run (or a side question, Aside)
	EventTokenDelta     = "token.delta"     // TokenDelta: the reply's text as it streams
	EventToolCall       = "tool.call"       // ToolCall: a tool was called
	EventToolResult     = "tool.result"     // ToolResult: what it returned
	EventElicitAsked    = "elicit.asked"    // ElicitAsked: the agent asks the user
	EventElicitAnswered = "elicit.answered" // ElicitAnswered: the answer was recorded (approvals add approval.go's)
	EventProgress       = "progress"        // ProgressEvent: the agent reported progress
	EventLog            = "log"             // LogLine: the agent logged a line (turn.Log)
	EventRunCompleted   = "run.completed"   // RunCompleted: the run ended: replied, stopped or failed
)

// Event is one event of a conversation's event stream. Data is one of the
// event types' records; its JSON is what a client reads.
type Event struct {
	// ID is the stream's position after this event: send it back as
	// Last-Event-ID to resume right after it.
	ID   string
	Type string
	Data any
}

// Recorded is what every event derived from a node says: the run it
// belongs to (the id of the message that started it), whether that run
// answers a side question, the node and when it was recorded.
type Recorded struct {
	Run   int64     `json:"run"`
	Aside bool      `json:"aside,omitempty"`
	Node  int64     `json:"node"`
	At    time.Time `json:"at"`
}

// RunStarted is the data of run.started: the message that started it.
// Parent is the node the message follows: none for a conversation's
// first message, the run before's last node as a conversation goes on
// (for a side question, the node of the flow it was asked at), and
// another node when the conversation was moved before the message: a
// message edited or retried is a sibling of the one it replaces, and a
// branch switched to or a reflog entry recovered (moves that give no
// event of their own) show as a message that follows that branch's tip.
type RunStarted struct {
	Recorded
	Parent int64  `json:"parent,omitempty"`
	Text   string `json:"text"`
	// Files are those sent with the message: each one's id, name, type,
	// size and the URL that serves it to the session.
	Files []File `json:"files,omitempty"`
	// Call is the tool call a program sent as the message (a call over
	// MCP), typed: Text only names it.
	Call *tree.Call `json:"call,omitempty"`
}

// File is a file sent with a message or given as an answer, as the event
// stream names it.
type File struct {
	tree.Attachment
	URL string `json:"url"`
}

// TokenDelta is the data of token.delta: the reply of run Run from byte
// Offset on is Text. Deltas follow one another (each Offset the length of
// the text before it), so their texts joined are the reply; a delta at
// Offset 0 after others starts the reply over, when the text streamed so
// far is not how the reply begins (a model call that went on to call
// tools, a reply the agent wrote itself).
//
// A side question's reply streams too, beside the flow's: its deltas carry
// Aside, and Run is the side question's node.
type TokenDelta struct {
	Run    int64  `json:"run"`
	Aside  bool   `json:"aside,omitempty"`
	Offset int    `json:"offset"`
	Text   string `json:"text"`
}

// ToolCall is the data of tool.call. Call is its id within the turn.
// Input is null and Digest stands for it when a rule said not to keep the
// arguments.
type ToolCall struct {
	Recorded
	Call   string          `json:"call"`
	Agent  string          `json:"agent"`
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Digest string          `json:"digest,omitempty"`
}

// ToolResult is the data of tool.result: the tool's output, or its error,
// and, under the permission policy, its audit (tree.ToolRecord): what was
// decided (allow, ask, deny, finalDeny) and by whom (rule, user,
// remembered, default, unattended), the rule that decided, the outcome
// (ok, error, denied, cancelled) and how long it ran. Calls recorded
// before the policy have no audit.
type ToolResult struct {
	Recorded
	Call      string          `json:"call"`
	Agent     string          `json:"agent"`
	Tool      string          `json:"tool"`
	Output    json.RawMessage `json:"output,omitempty"`
	Error     string          `json:"error,omitempty"`
	Decision  string          `json:"decision,omitempty"`
	DecidedBy string          `json:"decided_by,omitempty"`
	Rule      string          `json:"rule,omitempty"`
	Outcome   string          `json:"outcome,omitempty"`
	Duration  int64           `json:"duration_us,omitempty"`
}

// ElicitAsked is the data of elicit.asked. Elicit is the id an answer is
// posted to (POST /c/:id/elicits/:eid).
type ElicitAsked struct {
	Recorded
	Elicit  string         `json:"elicit"`
	Request elicit.Request `json:"request"`
}

// ElicitAnswered is the data of elicit.answered. Files, for an answer
// that gave a file (elicit.AskFile), names it with its URL, as
// run.started names a message's.
type ElicitAnswered struct {
	Recorded
	Elicit   string          `json:"elicit"`
	Response elicit.Response `json:"response"`
	Files    []File          `json:"files,omitempty"`
}

// ProgressEvent is the data of progress.
type ProgressEvent struct {
	Recorded
	Agent string `json:"agent,omitempty"`
	middleware.Progress
}

// LogLine is the data of log: a line the agent logged for the people who
// run it (turn.Log), with its level (slog's: -4 debug, 0 info, 4 warning,
// 8 error) and attributes. A program that relays it (MCP's logging
// messages) says it at its own levels.
type LogLine struct {
	Recorded
	Agent string `json:"agent,omitempty"`
	tree.LogRecord
}

// RunCompleted is the data of run.completed: how the run ended (replied,
// stopped or failed: the tree.OutcomeOf its last node), its reply or what
// the user was told, and the tokens its model calls used. A stopped run's
// Partial is what had streamed of its reply when it stopped, a failed run's
// what had streamed before its reply broke off (kept for the user, never
// given to the model).
type RunCompleted struct {
	Recorded
	Status  tree.Outcome `json:"status"`
	Text    string       `json:"text"`
	Partial string       `json:"partial,omitempty"`
	Details string       `json:"details,omitempty"`
	Usage   Usage        `json:"usage"`
	// Outcome is, for a run of a tool call (RunStarted.Call) that replied,
	// the call's outcome, typed: the tool's output or its error's words.
	Outcome *tree.CallOutcome `json:"outcome,omitempty"`
}

// Usage sums the model calls of a run.
type Usage struct {
	TokensIn   int `json:"tokens_in"`
	TokensOut  int `json:"tokens_out"`
	ModelCalls int `json:"model_calls"`
}

package calls

import (
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Filter chooses what a calls page lists.
type Filter struct {
	// Conversation, when set, is the one conversation listed.
	Conversation string
	// Trouble lists only the calls that failed, were refused by a
	// middleware or were made again after a refusal, and the log lines of
	// warning level and above. Totals still count every call.
	Trouble bool
}

// Listing is what a calls page shows.
type Listing struct {
	Filter Filter
	// Conversations are the ones listed, newest first.
	Conversations []Conversation
	// All are every conversation of the session, newest first, for
	// choosing one.
	All []tree.Conversation
	// Totals add up the listed conversations.
	Totals Totals
	// Model names the model that answers now and where it is served from,
	// which the chat's pages leave out.
	Model string
}

// Totals add up model calls.
type Totals struct {
	Calls     int
	Failed    int // calls the provider failed
	Refused   int // answers a middleware refused, asking again
	TokensIn  int // prompt tokens, as the providers counted them
	TokensOut int // completion tokens
	LatencyMS float64
}

func (t *Totals) add(o Totals) {
	t.Calls += o.Calls
	t.Failed += o.Failed
	t.Refused += o.Refused
	t.TokensIn += o.TokensIn
	t.TokensOut += o.TokensOut
	t.LatencyMS += o.LatencyMS
}

// Conversation is one conversation's turns that have calls or log lines to
// show.
type Conversation struct {
	Conversation tree.Conversation
	Turns        []Turn
	// Totals count every call of the conversation, whatever the filter
	// shows.
	Totals Totals
}

// Turn is one turn: the message that started it, and its calls and log
// lines in the order they were recorded, on every branch the turn took.
type Turn struct {
	ID      int64     // the node of the message that started the turn
	Kind    tree.Kind // UserMessage, or SideQuestion for a side question
	Text    string
	At      time.Time
	Entries []Entry
	// Totals count every call of the turn, whatever the filter shows.
	Totals Totals

	nodes  int   // how many nodes the turn has: with newest, what it was drawn from
	newest int64 // its newest node
}

// Entry is a model call or a log line.
type Entry struct {
	Call *Call
	Log  *Log
}

// Call is one model call as recorded: its node, the request and the answer
// (or the failure), and what came of it.
type Call struct {
	Node   int64
	Ref    string // its call id
	Agent  string
	At     time.Time
	Record tree.SampleRecord
	// Attempt counts the attempts of one sample from 1; After is the
	// refusal of the attempt before, for an attempt after the first.
	Attempt int
	After   *primitive.RetryNote
	// Refused is the refusal of this attempt's answer by a middleware of
	// the sample pipeline, which asked again.
	Refused *primitive.RetryNote
	// Tools are the calls the answer asked for, in its order, with their
	// results once they ran.
	Tools []Tool
	// Feedback is what the user thought of the reply this call made (the
	// call nearest above the reply), the newest given; nil when none is.
	Feedback *tree.FeedbackRecord
}

// Trouble reports whether the call failed, was refused or was made again.
func (c *Call) Trouble() bool {
	return c.Record.Error != "" || c.Refused != nil || c.Attempt > 1
}

// Tool is a tool call a model's answer asked for.
type Tool struct {
	Call llm.ToolCall
	// Node is the node that recorded the finished call, 0 when none did
	// (it has not finished, or the turn was stopped first, or the tool is
	// not recorded as one, as ask_user is: its question and answer are).
	Node   int64
	Output json.RawMessage
	Error  string
	// Record is the finished call's record: the arguments it ran with
	// (the user may have edited the model's) and its audit, who decided
	// it and how it went.
	Record tree.ToolRecord
}

// Log is a log line of a turn.
type Log struct {
	Node   int64
	Agent  string
	At     time.Time
	Record tree.LogRecord
}

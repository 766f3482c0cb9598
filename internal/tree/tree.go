// Package tree is the conversation as a tree of nodes. Every message and
// every primitive call of a turn (an elicit and its answer, a progress
// report, a model call) is a node whose parent is the node before it; the
// conversation's HEAD is the node the next one will hang from, and the path
// from the root to HEAD is what the user sees and what the model is told.
package tree

import (
	"encoding/json"
	"time"
)

// Kind says what a node records.
type Kind string

const (
	// UserMessage is a message the user sent; payload Message.
	UserMessage Kind = "user"
	// AssistantMessage is a turn's reply; payload Message.
	AssistantMessage Kind = "assistant"
	// ElicitRequest is a request to the user; payload elicit.Request; Ref is its id.
	ElicitRequest Kind = "elicit"
	// ElicitResponse is the answer to a request; payload elicit.Response; Ref is the request's id.
	ElicitResponse Kind = "response"
	// Notify is a progress report; payload middleware.Progress; Ref is its call id.
	Notify Kind = "notify"
	// Sample is a model call; payload SampleRecord; Ref is its call id.
	Sample Kind = "sample"
	// SideQuestion is a question the user asked while a question of the
	// agent waited, answered aside; payload Message. It hangs from the node
	// that was HEAD, on a side branch HEAD never moves to.
	SideQuestion Kind = "side"
	// SideReply answers a SideQuestion; payload Message. A side turn that
	// is stopped or fails ends with a Stopped or TurnError node on its side
	// branch instead.
	SideReply Kind = "side-reply"
	// Decision records what a message typed while a question waited was
	// taken for (an answer in words, a change of an earlier answer, a side
	// question) and who decided; payload DecisionRecord. It hangs aside
	// from the node that was HEAD.
	Decision Kind = "decision"
	// Queued is a message sent while the turn worked, for an assistant
	// that queues them (agents.Queue); payload Message. It hangs aside from
	// the node that was HEAD until a UserMessage sends it (Message.Queued),
	// so that a restart, or another node taking the conversation over,
	// still sends it.
	Queued Kind = "queued"
	// Summary stands for a span of earlier messages in the model's context;
	// payload SummaryRecord; Ref is the call id of the history request
	// that compacted. The messages it covers stay in the tree.
	Summary Kind = "summary"
	// Value is a value the turn read through package turn (the time, a random
	// number), recorded so that a resumed turn reads it again; payload
	// ValueRecord; Ref is its call id.
	Value Kind = "value"
	// ToolCall is a finished tool call; payload ToolRecord; Ref is its call id.
	ToolCall Kind = "tool"
	// Figure is a table or a chart shown to the user; payload
	// figure.Figure; Ref is its call id.
	Figure Kind = "figure"
	// StateChange is a change of an agent's state (agents.State): its new
	// value, whole; payload StateRecord; Ref is its call id. The state at a
	// node is the last change on the path to it (package state).
	StateChange Kind = "state"
	// Fork begins a block of agent code tried on a child branch
	// (agents.Fork): the block's calls are recorded under it; payload
	// ForkRecord; Ref is its call id.
	Fork Kind = "fork"
	// ForkEnd is what the agent decided of a tried block: forward, recorded
	// at the child's tip, or back, recorded beside the Fork node, so that
	// the flow goes on from where the block began and the child branch
	// stays in the tree, abandoned (closed by a Stopped node, so that a
	// recovered tried branch has no turn to resume); payload ForkEndRecord;
	// Ref is its call id.
	ForkEnd Kind = "fork-end"
	// SampleRetry is a model call's answer that a middleware of the sample
	// pipeline refused, so that the call was made again; payload
	// primitive.RetryNote (who refused it and why); Ref is its call id.
	SampleRetry Kind = "retry"
	// Log is a log line the turn's code wrote for developers (turn.Log);
	// payload LogRecord; Ref is its id, numbered apart from the calls
	// (durable.NextLog). It is shown on the debug page, never in the chat.
	Log Kind = "log"
	// Stopped is a turn the user stopped; payload Message.
	Stopped Kind = "stopped"
	// TurnError is a turn that failed; payload Message (worded for the user).
	TurnError Kind = "error"
	// Feedback is what the user thought of a reply: thumbs up or down and
	// a comment; payload FeedbackRecord. It hangs aside from the reply it
	// rates (an AssistantMessage or SideReply), never becoming HEAD, so it
	// follows that reply's branch; the newest one under a reply counts.
	Feedback Kind = "feedback"
)

// Node is one recorded step of a conversation.
type Node struct {
	ID           int64           `json:"id"`
	Conversation string          `json:"conversation"`
	Parent       int64           `json:"parent,omitempty"` // 0 for a root
	Kind         Kind            `json:"kind"`
	Ref          string          `json:"ref,omitempty"`
	Agent        string          `json:"agent,omitempty"`
	Payload      json.RawMessage `json:"payload"`
	At           time.Time       `json:"at"`
}

// Message is the payload of user, assistant and error nodes. An error's
// Details hold what went wrong in full (a provider's own words), shown on
// request behind its short Text.
type Message struct {
	Text    string `json:"text"`
	Details string `json:"details,omitempty"`
	// Partial is, on a Stopped node, the reply that had streamed in when
	// the turn was stopped, and on a TurnError node what a model call had
	// streamed before it broke off: kept for the user to read, marked as
	// unfinished.
	// It is not the agent's reply, so it is never given to the model as
	// one (historyOf reads AssistantMessage nodes alone): a reply cut off
	// mid-sentence, perhaps because it was going wrong, is no ground for
	// the next turn to build on.
	Partial string `json:"partial,omitempty"`
	// TimedOut is set on a Stopped node when the turn was stopped by its
	// deadline (agents.Assistant.Deadline), not by the user.
	TimedOut bool `json:"timed_out,omitempty"`
	// Diverged is set on a TurnError node when the turn could not go on
	// from its record because its code changed since it was recorded (a
	// replay diverged, as after a deploy): taking it again starts anew
	// from its message, never from its record.
	Diverged bool `json:"diverged,omitempty"`
	// History is, on a UserMessage or SideQuestion node, the version of
	// what the model is given of the conversation (package history) in the
	// turn the message starts: the version of the code that recorded it. A
	// turn recorded before there were versions has none (0), and its replay
	// is given the history its model calls were recorded with.
	History int `json:"history,omitempty"`
	// ID is, on a UserMessage node, the id its sender chose for the
	// message (a page does), by which the same message sent again is known
	// as a resend; "" when it chose none.
	ID string `json:"id,omitempty"`
	// Parts are, on a UserMessage node that joins the messages queued while
	// a turn worked, those of them sent with an id, each as it was sent:
	// Text is all of them joined.
	Parts []Part `json:"parts,omitempty"`
	// Queued are, on a UserMessage node that joins the messages queued
	// while a turn worked, their Queued nodes: sent from now on.
	Queued []int64 `json:"queued,omitempty"`
	// Attachments are, on a UserMessage node, the files sent with it
	// (package files); on an ElicitResponse's content a file kind names
	// its file the same way.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Call is, on a UserMessage node a program sent, the tool call it is
	// (call.go); Outcome is, on the AssistantMessage that ends its turn,
	// the call's outcome.
	Call    *Call        `json:"call,omitempty"`
	Outcome *CallOutcome `json:"outcome,omitempty"`
}

// Attachment is a file sent with a message or given as an answer: the
// upload's id (what /files/ID serves, to its session alone), its name as
// the user's device gave it (never a path), its content type from the
// allow-list, and its size in bytes.
type Attachment struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

// Part is one message as its sender sent it, with the id it chose.
type Part struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Conversation is one chat: owned by a browser session, talking to one
// agent, with HEAD at the newest node of its current branch.
type Conversation struct {
	ID      string    `json:"id"`
	Session string    `json:"-"`
	Agent   string    `json:"agent"`
	Title   string    `json:"title"`
	Head    int64     `json:"head"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Named is set once the user chose the title; until then the title is
	// the first message's, and follows it.
	Named bool `json:"named,omitempty"`
}

// Action names why HEAD moved, in the reflog.
type Action string

const (
	ActMessage Action = "message" // the user sent a message
	ActEdit    Action = "edit"    // the user edited an earlier message: a new branch
	ActRewind  Action = "rewind"  // the user changed an earlier answer: a new branch
	ActSwitch  Action = "switch"  // the user switched to another branch
	ActCancel  Action = "cancel"  // the user stopped a turn
	ActRecover Action = "recover" // the user made an earlier state HEAD again
	ActFork    Action = "fork"    // a side question went off on a side branch
	ActReturn  Action = "return"  // the side branch was answered; back to the flow
	ActCompact Action = "compact" // a span of the branch was summarized
	ActRetry   Action = "retry"   // a turn that failed on a model call resumed to call it again
	ActTry     Action = "try"     // agent code began to try a block on a child branch (agents.Fork)
	ActForward Action = "forward" // agent code adopted the branch it tried
	ActBack    Action = "back"    // agent code abandoned the branch it tried and went back
	// ActContinue: the user made a side question's thread the flow; the
	// question that waited was withdrawn.
	ActContinue Action = "continue"
	// ActToFlow: the user went back from a continued side thread to the
	// question that waited.
	ActToFlow Action = "to-flow"
)

// Move is a HEAD move as it is asked for: why, and a few words of detail.
type Move struct {
	Action Action
	Detail string
}

// RefEntry is one HEAD move of the reflog.
type RefEntry struct {
	ID           int64     `json:"id"`
	Conversation string    `json:"conversation"`
	Head         int64     `json:"head"`
	Prev         int64     `json:"prev"`
	Action       Action    `json:"action"`
	Detail       string    `json:"detail"`
	At           time.Time `json:"at"`
}

// AppendOptions say where a recorded node goes and how its HEAD move is
// logged. The zero value hangs the node from HEAD and makes it HEAD.
type AppendOptions struct {
	// Fork hangs the node from its Parent, which must be a node of the
	// conversation, instead of from HEAD: a new branch.
	Fork bool
	// Aside, with Fork, leaves HEAD where it is: the node starts or extends
	// a side branch. Log then records the side branch's move all the same.
	Aside bool
	// Log, when set, records the HEAD move in the reflog.
	Log *Move
}

// OpenTurn returns the index in p of the user message whose turn has not
// ended (no reply, error or stop after it), or -1 when every turn on p has
// ended.
func (p Path) OpenTurn() int {
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i].Kind {
		case AssistantMessage, TurnError, Stopped:
			return -1
		case UserMessage:
			return i
		}
	}
	return -1
}

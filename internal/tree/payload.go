package tree

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/sweatpants-go/sweatpants/llm"
)

// The payload records of the node kinds this package defines. Requests and
// answers (ElicitRequest, ElicitResponse) carry the elicit package's
// Request and Response, and progress reports (Notify) package middleware's
// Progress: those packages own the types.

// SampleRecord is the payload of a Sample node: the model call as made.
// A call that continues an earlier one (a loop's next step: the same
// messages and tools, and a few new messages) is recorded as what is new
// in its request, against that earlier call, its base (see sample.go):
// Request then holds only the messages after the Kept ones, and no tools
// when SameTools says they are the base's. A record with no Base holds
// its whole request, as every record written before bases did.
type SampleRecord struct {
	Request llm.Request `json:"request"`
	// Base is the Sample node whose whole request this one continues, an
	// older node on the same path; zero when Request is whole.
	Base int64 `json:"base,omitempty"`
	// Kept is how many leading messages of the base's whole request this
	// request begins with; Request.Messages are the ones after them.
	Kept int `json:"kept,omitempty"`
	// SameTools says the request offers the base's tools, left out of
	// Request.
	SameTools bool `json:"same_tools,omitempty"`

	Response  *llm.Response `json:"response,omitempty"`
	Error     string        `json:"error,omitempty"`
	LatencyMS float64       `json:"latency_ms"`
}

// ToolRecord is the payload of a ToolCall node: a finished tool call.
type ToolRecord struct {
	Agent  string          `json:"agent"`
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	// CallID is the id the model gave the call, when a model made it (an
	// agent loop): the history pairs the call with its result by it.
	CallID string `json:"call_id,omitempty"`

	// The audit of the call, under the permission policy (package
	// policy). Records made before the policy have none of these.

	// Digest stands for Input when a rule said not to keep the arguments:
	// "sha256:" and the hex digest of the arguments; Input is then null.
	Digest string `json:"digest,omitempty"`
	// Decision is what the policy decided: allow, ask (then the user's
	// choice is in DecidedBy), deny or finalDeny.
	Decision string `json:"decision,omitempty"`
	// DecidedBy says who decided: "rule" (Rule names it), "user" (an
	// approval, Approval is its call id), "remembered" (a choice the user
	// made earlier for the conversation or for always; Rule names it),
	// "default", "unattended" (nobody could approve: denied), or
	// "resumed" (the call had begun before a restart, under an allow that
	// no longer holds: it went on as it began).
	DecidedBy string `json:"decided_by,omitempty"`
	Rule      string `json:"rule,omitempty"`
	Approval  string `json:"approval,omitempty"`
	// Outcome is ok, error, denied or cancelled.
	Outcome string `json:"outcome,omitempty"`
	// Started is when the call began (Unix milliseconds) and Duration how
	// long it ran, in microseconds; both zero for a call that did not run.
	Started  int64 `json:"started,omitempty"`
	Duration int64 `json:"duration_us,omitempty"`
}

// Ended is how the recorded call went, as the audit says it: its Outcome
// (denied, cancelled, ...) when one was recorded, else error or ok by
// whether it failed (a call recorded before the policy has none).
func (r ToolRecord) Ended() string {
	switch {
	case r.Outcome != "":
		return r.Outcome
	case r.Error != "":
		return "error"
	}
	return "ok"
}

// SummaryRecord is the payload of a Summary node: the summary, and the
// nodes it stands for (messages, and earlier summaries).
type SummaryRecord struct {
	Text   string  `json:"text"`
	Covers []int64 `json:"covers"`
	Count  int     `json:"count"`
}

// DecisionRecord is the payload of a Decision node.
type DecisionRecord struct {
	Text   string `json:"text"`             // what the user typed
	Waited string `json:"waited"`           // the id of the question that waited
	Choice string `json:"choice"`           // "answer", "change" or "side"
	Change string `json:"change,omitempty"` // for "change": the id of the earlier question
	By     string `json:"by"`               // "model" or "rule"
	Reason string `json:"reason,omitempty"` // why, in the decider's words
	ID     string `json:"id,omitempty"`     // the id its sender chose for the message, if any (tree.Message.ID)
	// Sample is the model call that decided, when the model did.
	Sample *SampleRecord `json:"sample,omitempty"`
}

// ValueRecord is the payload of a Value node: which value the turn read,
// and what it was. A version marker (turn.Version) is named "version" and
// names the change it is a version of.
type ValueRecord struct {
	Name   string          `json:"name"`
	Change string          `json:"change,omitempty"`
	Value  json.RawMessage `json:"value"`
}

// StateRecord is the payload of a StateChange node: agent's state name
// is Value from this node on, along its branch.
type StateRecord struct {
	Agent string          `json:"agent"`
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// ForkRecord is the payload of a Fork node: what the agent tries, in its
// words.
type ForkRecord struct {
	Label string `json:"label"`
}

// ForkEndRecord is the payload of a ForkEnd node: the Fork node it ends
// and what it tried, whether the flow adopted the child branch (Forward)
// or went back, and then the tried branch's last node (its closing stop).
type ForkEndRecord struct {
	Fork    int64  `json:"fork"`
	Label   string `json:"label"`
	Forward bool   `json:"forward,omitempty"`
	Tip     int64  `json:"tip"`
}

// LogRecord is the payload of a Log node: the line as the code wrote it,
// its attributes as text, in order.
type LogRecord struct {
	Level   slog.Level `json:"level"`
	Message string     `json:"message"`
	Attrs   []LogAttr  `json:"attrs,omitempty"`
}

// LogAttr is one attribute of a log line.
type LogAttr struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Decode reads the payload of n as a T, the record of n's kind. Every
// payload is read through it, so that a record that does not decode is an
// error that names the node instead of a silently empty value.
func Decode[T any](n Node) (T, error) {
	var v T
	if err := json.Unmarshal(n.Payload, &v); err != nil {
		return v, fmt.Errorf("node %d (%s): %w", n.ID, n.Kind, err)
	}
	return v, nil
}

// MustEncode returns v as a payload. The records are plain data, so an
// error is a programming error, and it panics.
func MustEncode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tree: encode %T: %v", v, err))
	}
	return b
}

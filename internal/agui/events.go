package agui

import "encoding/json"

// The AG-UI event types a run here sends.
const (
	RunStarted         = "RUN_STARTED"
	RunFinished        = "RUN_FINISHED"
	RunError           = "RUN_ERROR"
	TextMessageStart   = "TEXT_MESSAGE_START"
	TextMessageContent = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd     = "TEXT_MESSAGE_END"
	ToolCallStart      = "TOOL_CALL_START"
	ToolCallArgs       = "TOOL_CALL_ARGS"
	ToolCallEnd        = "TOOL_CALL_END"
	ToolCallResult     = "TOOL_CALL_RESULT"
	StateSnapshot      = "STATE_SNAPSHOT"
	StateDelta         = "STATE_DELTA"
)

// ProtocolVersion is the AG-UI version spoken here.
const ProtocolVersion = "1.0"

// Event is one AG-UI event: its fields beside its type, as the protocol's
// JSON has them.
type Event struct {
	Type            string          `json:"type"`
	ThreadID        string          `json:"threadId,omitempty"`
	RunID           string          `json:"runId,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	MessageID       string          `json:"messageId,omitempty"`
	Role            string          `json:"role,omitempty"`
	Delta           any             `json:"delta,omitempty"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	ToolCallName    string          `json:"toolCallName,omitempty"`
	ParentMessageID string          `json:"parentMessageId,omitempty"`
	Content         *string         `json:"content,omitempty"`
	Snapshot        json.RawMessage `json:"snapshot,omitempty"`
	Result          any             `json:"result,omitempty"`
	Outcome         *Outcome        `json:"outcome,omitempty"`
	Message         string          `json:"message,omitempty"`
	Code            string          `json:"code,omitempty"`
}

// Outcome is how a run ended: "success", "interrupt" with what it waits
// for, or "cancelled".
type Outcome struct {
	Type       string      `json:"type"`
	Interrupts []Interrupt `json:"interrupts,omitempty"`
}

// Interrupt is a question the run waits on. ID is the question's (an
// elicit's) id, which the resume entry answering it names; Reason is the
// question's kind ("tool_approval" for an approval); ResponseSchema is
// the JSON Schema the answer must meet; Metadata says the rest: the kind,
// the actions it allows, what it offers to choose from (its input), and
// for an approval the tool, its arguments and what it does.
type Interrupt struct {
	ID             string          `json:"id"`
	Reason         string          `json:"reason"`
	Message        string          `json:"message,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
}

// PatchOp is one operation of a JSON Patch (RFC 6902).
type PatchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

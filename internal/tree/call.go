package tree

import "encoding/json"

// Call is, on a UserMessage node, the tool call a program sent as the
// message (a call over MCP): the tool by its qualified name ("AGENT.TOOL")
// and its arguments, kept typed in the payload so that the turn reads the
// call as it was sent, not out of the message's text, which names the tool
// for a person reading the conversation. A message recorded before calls
// were typed has none: its text is the call's JSON.
type Call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Stateless marks a call its program continues by itself (an MCP call
	// of 2026-07-28, a task), not through a session that could take it
	// over after a restart.
	Stateless bool `json:"stateless,omitempty"`
}

// CallOutcome is, on the AssistantMessage node that ends the turn of a
// Call, the call's outcome, typed: the tool's JSON output, or the words
// of its error as a model would be told them. A failed tool is an outcome
// of the call, not a failure of the turn. The reply's text says the same
// for a person reading the conversation.
type CallOutcome struct {
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

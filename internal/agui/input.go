// Package agui speaks AG-UI (the Agent–User Interaction protocol, 1.0) for
// the conversations of the chat service, so that front ends written for it
// (CopilotKit, anything on @ag-ui/client) drive our agents. A client posts
// a RunAgentInput and reads the run's events as SSE; the events come from
// the typed run feed (package eventstream), never from the page's view.
//
// A thread is a conversation, a run is a turn. A question the agent asks,
// an approval among them, ends the run with an interrupt outcome; the
// next run's resume entries are the answers, checked on the same path as
// the page's (chat.Service.Answer). A run that starts from messages that
// differ from the conversation's branch (a rewind or an edit in the
// client) is a new branch (chat.Service.Edit).
package agui

import (
	"encoding/json"
	"strings"
)

// Input is AG-UI's RunAgentInput, as far as a run here reads it. Tools,
// context and forwarded props are read but our agents bring their own
// tools; forwardedProps.agent names the agent of a new thread.
type Input struct {
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	ParentRunID     string          `json:"parentRunId,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	State           json.RawMessage `json:"state,omitempty"`
	Messages        []Message       `json:"messages"`
	Tools           []any           `json:"tools,omitempty"`
	Context         []any           `json:"context,omitempty"`
	ForwardedProps  json.RawMessage `json:"forwardedProps,omitempty"`
	Resume          []Resume        `json:"resume,omitempty"`
}

// Message is one message of a RunAgentInput: only a user message's words
// are read (the rest of the conversation is the record's).
type Message struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content,omitempty"`
}

// Text is the message's words: its content when that is a string, or its
// text parts joined.
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Resume answers one interrupt of the run before: status "resolved" with
// the answer as payload, or "cancelled".
type Resume struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload,omitempty"`
}

// agent is the agent forwardedProps names for a new thread, "" for the
// default one.
func (in Input) agent() string {
	var p struct {
		Agent string `json:"agent"`
	}
	json.Unmarshal(in.ForwardedProps, &p)
	return p.Agent
}

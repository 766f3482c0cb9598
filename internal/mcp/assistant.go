package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// AssistantName is the name of the assistant whose conversations hold the
// calls MCP clients make.
const AssistantName = "mcp"

// outcome is the reply a call's turn recorded before calls were typed
// (tree.CallOutcome): the tool's JSON result, or the words of its error.
// A conversation recorded then is still read, and its turn, replayed,
// replies so again.
type outcome struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// replyOf is the reply of a call that returned out and err, recorded
// before calls were typed.
func replyOf(out json.RawMessage, err error) (string, error) {
	o := outcome{Result: out}
	if err != nil {
		o = outcome{Error: err.Error()}
	}
	b, merr := json.Marshal(o)
	if merr != nil {
		return "", fmt.Errorf("write the result: %w", merr)
	}
	return string(b), nil
}

// call is a tool call as the binding knows it: the qualified tool name and
// the arguments. Its JSON (key) names the call, so that a retry or a
// session begun again finds the run of the same call; a message recorded
// before calls were typed held it as its text.
type call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Stateless marks a call of 2026-07-28, which its client continues
	// by requestState: no session takes it over (see Server.cutOff).
	Stateless bool `json:"stateless,omitempty"`
}

// key is the call's JSON, the arguments compacted.
func (c call) key() (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("write the call: %w", err)
	}
	return string(b), nil
}

// keyOf names the call a run started: the call its message records, or,
// for a message recorded before calls were typed, its text.
func keyOf(started eventstream.RunStarted) string {
	if c := started.Call; c != nil {
		k, _ := call{Tool: c.Tool, Arguments: c.Arguments, Stateless: c.Stateless}.key()
		return k
	}
	return started.Text
}

// message is the conversation's message of call c: the call typed, and
// its tool's name for a person reading the conversation.
func (c call) message(limit int64) inbound.Message {
	return inbound.Message{Text: c.Tool, Limit: int(limit),
		Call: &tree.Call{Tool: c.Tool, Arguments: c.Arguments, Stateless: c.Stateless}}
}

// Tools finds the agents' tools by their qualified names.
type Tools struct {
	byName map[string]tool
	order  []string
	// own lists each tool under its own name instead (OwnNames).
	own bool
}

// tool is one agent's tool under its qualified name.
type tool struct {
	agent *agents.Agent
	info  agents.ToolInfo
}

// NewTools gathers the tools of agents under their qualified names
// ("AGENT.TOOL"); an agent listed twice counts once.
func NewTools(as ...*agents.Agent) *Tools {
	t := &Tools{byName: map[string]tool{}}
	for _, a := range as {
		for _, info := range a.Tools() {
			name := QualifiedName(a.Name, info.Name)
			if _, dup := t.byName[name]; dup {
				continue
			}
			t.byName[name] = tool{agent: a, info: info}
			t.order = append(t.order, name)
		}
	}
	return t
}

// Has reports whether a tool of t is named qualified ("AGENT.TOOL").
func (t *Tools) Has(qualified string) bool {
	_, ok := t.byName[qualified]
	return ok
}

// QualifiedName is the name a tool is listed by over MCP.
func QualifiedName(agent, tool string) string { return agent + "." + tool }

// Only returns the tools of the agent named agent, or an error naming the
// agents there are when none is named so.
func (t *Tools) Only(agent string) (*Tools, error) {
	out := &Tools{byName: map[string]tool{}, own: t.own}
	var names []string
	for _, n := range t.order {
		tl := t.byName[n]
		if !containsName(names, tl.agent.Name) {
			names = append(names, tl.agent.Name)
		}
		if tl.agent.Name == agent {
			out.byName[n] = tl
			out.order = append(out.order, n)
		}
	}
	if len(out.order) == 0 {
		return nil, fmt.Errorf("no agent %q has tools to serve; the agents are %s", agent, strings.Join(names, ", "))
	}
	return out, nil
}

func containsName(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// Assistant is the built-in assistant whose turn runs one call: its
// message is the call, typed (chat.CallOf), and it returns the tool's
// outcome typed (chat.ReturnCall), its reply saying the same for a person:
// the tool's JSON result, or its error's words. A turn ends in error only
// when the call cannot go on (a model's outage inside the tool, a stop).
func (t *Tools) Assistant() agents.Assistant {
	return agents.Assistant{
		Name:        AssistantName,
		Description: "Runs the tool calls of MCP clients.",
		Input:       agents.Queue,
		Unlisted:    true,
		Turn: func(ctx context.Context, message string) (string, error) {
			c, typed := chat.CallOf(ctx)
			if !typed {
				// A call recorded before calls were typed: its message is
				// its JSON.
				if err := json.Unmarshal([]byte(message), &c); err != nil {
					return "", fmt.Errorf("read the call: %w", err)
				}
			}
			tl, ok := t.byName[c.Tool]
			if !ok {
				return "", fmt.Errorf("there is no tool %q", c.Tool)
			}
			args := c.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out, err := tl.agent.Invoke(ctx, tl.info.Name, args)
			switch {
			case err != nil && ctx.Err() != nil:
				return "", context.Cause(ctx)
			case err != nil && agents.EndsTurn(err):
				return "", err
			case !typed:
				return replyOf(out, err)
			case err != nil:
				chat.ReturnCall(ctx, tree.CallOutcome{Error: err.Error()})
				return "The tool failed: " + err.Error(), nil
			}
			chat.ReturnCall(ctx, tree.CallOutcome{Output: out})
			return string(out), nil
		},
		Side: func(context.Context, string) (string, error) {
			return "This conversation holds the tool calls of an MCP client; it answers nothing else.", nil
		},
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/backend/agents"
)

// AssistantName is the name of the assistant whose conversations hold the
// calls MCP clients make.
const AssistantName = "mcp"

// call is the message a call is sent to the assistant as: the qualified
// tool name and the arguments, in JSON.
type call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Tools finds the agents' tools by their qualified names.
type Tools struct {
	byName map[string]tool
	order  []string
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

// QualifiedName is the name a tool is listed by over MCP.
func QualifiedName(agent, tool string) string { return agent + "." + tool }

// Only returns the tools of the agent named agent, or an error naming the
// agents there are when none is named so.
func (t *Tools) Only(agent string) (*Tools, error) {
	out := &Tools{byName: map[string]tool{}}
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
// message names the tool and holds the arguments, its reply is the tool's
// JSON result. A failed call ends the turn with the error, recorded.
func (t *Tools) Assistant() agents.Assistant {
	return agents.Assistant{
		Name:        AssistantName,
		Description: "Runs the tool calls of MCP clients.",
		Input:       agents.Queue,
		Unlisted:    true,
		Turn: func(ctx context.Context, message string) (string, error) {
			var c call
			if err := json.Unmarshal([]byte(message), &c); err != nil {
				return "", fmt.Errorf("read the call: %w", err)
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
			if err != nil {
				return "", err
			}
			return string(out), nil
		},
		Side: func(context.Context, string) (string, error) {
			return "This conversation holds the tool calls of an MCP client; it answers nothing else.", nil
		},
	}
}

package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/mcpclient"
	"github.com/sweatpants-go/sweatpants/policy"
)

// ToolDesc is a tool of an outside server as it listed it: what a turn
// records of the listing, and shows the model.
type ToolDesc struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ListTool is the name of the call that lists a server's tools in a turn:
// NAME/list_tools to the policy, read-only, so allowed unless a rule
// says otherwise (a deny of it leaves the server's tools out).
const ListTool = "list_tools"

// list asks the server for its tools, every page of them.
func (c *conn) list(ctx context.Context) ([]ToolDesc, error) {
	l, err := c.take(ctx)
	if err != nil {
		return nil, err
	}
	defer c.give(l)
	ctx, cancel := context.WithTimeout(ctx, timeout(c.cfg))
	defer cancel()
	var descs []ToolDesc
	for t, err := range l.session.Tools(ctx, nil) {
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("it did not answer within %s", timeout(c.cfg))
			}
			l.breaks()
			return nil, c.failed(fmt.Errorf("could not list the tools of the MCP server %s: %v", c.cfg.Name, err))
		}
		descs = append(descs, desc(t))
	}
	c.mu.Lock()
	c.tools = descs
	c.mu.Unlock()
	return descs, nil
}

func desc(t *mcp.Tool) ToolDesc {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return ToolDesc{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema}
}

// recordedList lists the server's tools as a tool call of the turn, so
// that the record keeps what was listed and a replay shows the model the
// same tools, whether or not the server is there then.
func (c *conn) recordedList(ctx context.Context) ([]ToolDesc, error) {
	info := agents.ToolInfo{Agent: c.cfg.Name, Name: ListTool, Description: "Lists the tools of the MCP server " + c.cfg.Name}
	ctx = primitive.Provide(ctx, agents.ToolAPI, func(ctx context.Context, _ agents.ToolCall) (json.RawMessage, error) {
		descs, err := c.list(ctx)
		if err != nil {
			return nil, err
		}
		return json.Marshal(descs)
	})
	raw, err := agents.ToolAPI.Call(ctx, agents.ToolCall{Agent: c.cfg.Name, Tool: ListTool, Input: json.RawMessage(`{}`), Info: info})
	if err != nil {
		return nil, err
	}
	var descs []ToolDesc
	if err := json.Unmarshal(raw, &descs); err != nil {
		return nil, fmt.Errorf("read the tools of the MCP server %s: %w", c.cfg.Name, err)
	}
	return descs, nil
}

// tool is d as a tool a Loop offers: it reaches outside the program, so
// the policy asks the user before a call unless a rule says otherwise.
func (c *conn) tool(d ToolDesc) agents.AnyTool {
	var form *elicit.Schema
	if json.Unmarshal(d.InputSchema, &form) != nil {
		form = nil
	}
	description := d.Description
	if description == "" {
		description = d.Title
	}
	info := agents.ToolInfo{Agent: c.cfg.Name, Name: modelName(d.Name), Description: description, Input: form, Effects: effectsOf(c.cfg)}
	return agents.Outside(info, d.InputSchema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return c.call(ctx, d.Name, in)
	})
}

// modelName is name as a model may call it: models take letters, digits,
// '_' and '-', at most 64, where an MCP tool's name may hold dots and
// slashes too, which become '_'. The call is made by the server's own
// name.
func modelName(name string) string {
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// Tools lists the tools of the servers named (all of them for nil), for
// a Loop's source (mcpclient.All, Named): each listing is a recorded call
// of the turn, and a server that cannot list its tools is an error beside
// the tools of the others. A name not configured is left out.
func (s *Servers) Tools(ctx context.Context, names []string) ([]agents.AnyTool, error) {
	if s.Len() == 0 {
		return nil, nil
	}
	var tools []agents.AnyTool
	var errs []error
	for _, c := range s.list {
		if names != nil && !contains(names, c.cfg.Name) {
			continue
		}
		descs, err := c.recordedList(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return tools, err
			}
			errs = append(errs, fmt.Errorf("the tools of the MCP server %s: %v", c.cfg.Name, err))
			continue
		}
		for _, d := range descs {
			tools = append(tools, c.tool(d))
		}
	}
	return tools, errors.Join(errs...)
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// effectsOf is what a server's tools are taken to do, whatever they say of
// themselves: a server reached by URL reaches the network; one started by
// command is a program on this machine, which may change its data. Either
// makes the policy ask by default.
func effectsOf(cfg mcpclient.Server) policy.Effect {
	if cfg.URL != "" {
		return policy.Network
	}
	return policy.Writes
}

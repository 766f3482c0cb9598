package app

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/mcp"
)

// MCP. The tools of Config.Agents are served over MCP at /mcp by serve
// and over stdio by the mcp command (docs/mcp.md), by the built-in plugin
// of package mcp (builtinPlugins), which takes what this file says of it.

// MCP is how an application serves its agents' tools over MCP, beyond
// the default.
type MCP struct {
	// OwnNames lists each tool under its own name ("getWeather") rather
	// than as AGENT.TOOL ("weather.getWeather"), for clients that expect
	// the names the tools were written with. The tools served must not
	// share a name: a command that serves them refuses to start, naming
	// the two. The mcp command's --own-names chooses it for one run.
	OwnNames bool
	// Extension is what the application serves beside the tools, written
	// against the MCP SDK: resources, prompts, completion. Its handlers
	// answer outside any conversation; nothing of them is recorded.
	Extension MCPExtension
	// Tasks are the tools whose calls /mcp serves as tasks to clients that
	// take the tasks extension, by qualified name ("AGENT.TOOL"):
	// polled, answered later, cancelled, surviving a restart (docs/mcp.md).
	Tasks map[string]MCPTask
}

// MCPExtension is what an application serves over MCP beside its agents'
// tools — resources, prompts, completion — written against the SDK
// directly. The agents' tools run as recorded turns of a conversation;
// what an extension adds is answered by its own handlers, outside any
// conversation, and nothing of it is recorded: it suits what is read, not
// what acts or asks.
//
// Two hooks, because the SDK takes some handlers only when its server is
// made and the rest only once it is.
type MCPExtension struct {
	// Options, when set, sets the handlers the SDK's server takes when it
	// is made: CompletionHandler, SubscribeHandler, UnsubscribeHandler,
	// Instructions. The protocol revisions the server speaks stay the
	// binding's.
	Options func(*sdk.ServerOptions)
	// Add, when set, adds to the SDK's server once it is made and holds
	// the agents' tools: AddResource, AddResourceTemplate, AddPrompt.
	Add func(*sdk.Server)
}

// MCPTask says how a tool's calls are served as tasks, for clients that
// take the tasks extension (revision 2026-07-28): the call answers at
// once with a task id, and the client polls the task, answers its
// questions whenever it likes and may cancel it. A task is the call's
// turn in its conversation, so it survives a restart as the turn does.
type MCPTask struct {
	// Required refuses a call of the tool from a client that does not take
	// tasks (-32021, the missing capability named), where otherwise it is
	// served as any call, by waiting for its end.
	Required bool
	// AfterInput serves the call's first questions as any call of
	// 2026-07-28 does (input_required and a requestState), and makes the
	// call a task once the client answers them: for a tool that gathers
	// what it needs, then works long.
	AfterInput bool
}

// extension is e as the MCP binding takes it.
func (e MCPExtension) extension() mcp.Extension {
	return mcp.Extension{Options: e.Options, Add: e.Add}
}

// tasks are ts as the MCP binding takes them.
func tasks(ts map[string]MCPTask) map[string]mcp.Task {
	if ts == nil {
		return nil
	}
	out := make(map[string]mcp.Task, len(ts))
	for name, t := range ts {
		out[name] = mcp.Task{Required: t.Required, AfterInput: t.AfterInput}
	}
	return out
}

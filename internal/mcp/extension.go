package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// Extension is what an application serves over MCP beside its agents'
// tools — resources, prompts, completion — written against the SDK
// directly (app.Config.MCP, docs/mcp.md). The agents' tools run as
// recorded turns of a conversation; what an Extension adds is answered by
// its own handlers, outside any conversation, and nothing of it is
// recorded: it suits what is read, not what acts or asks.
//
// Two hooks, because the SDK takes some handlers only when its server is
// made and the rest only once it is.
type Extension struct {
	// Options, when set, sets the handlers the SDK's server takes when it
	// is made: CompletionHandler, SubscribeHandler, UnsubscribeHandler,
	// Instructions. The protocol revisions the server speaks stay the
	// binding's.
	Options func(*sdk.ServerOptions)
	// Add, when set, adds to the SDK's server once it is made and holds
	// the agents' tools: AddResource, AddResourceTemplate, AddPrompt.
	Add func(*sdk.Server)
}

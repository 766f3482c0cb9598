package demo

import (
	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// The general assistant: a model-driven loop over the branch's history. It
// streams its replies, calls the tools of the agents it may use, and asks
// the user through ask_user when it needs to. It is the default for a user
// with a real model; with the offline model the scripted agents come first.
// It takes the tools of the outside MCP servers the program is given
// (--mcp-servers) too; with none, nothing changes.

const assistantPrompt = `You are a helpful assistant in a chat app.
Answer briefly and plainly. Use a tool when it can do or find out what the user asks.
When you need something from the user that you cannot find out, ask with the ask_user tool
instead of guessing: a yes/no, a choice among options, or a short form.`

// Assistant returns the general assistant, offered the tools of tools and
// of the outside MCP servers.
func Assistant(tools ...*agents.Agent) agents.Assistant {
	loop := agents.Loop{System: assistantPrompt, Agents: tools, Sources: []agents.ToolSource{mcpclient.All()}, AskUser: true}
	return agents.Assistant{
		Name:        "assistant",
		Description: "Chats, uses tools, and asks you when it needs to.",
		Turn:        loop.Turn,
		Side:        loop.Turn, // on the side, the same loop: its tools, and ask_user
		Starters:    []string{"What's the weather in Lisbon?", "Plan a trip to Oslo"},
	}
}

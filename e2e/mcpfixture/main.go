// Command mcpfixture is the application the official MCP conformance suite
// is run against (conformance_test.go builds it and starts it): one agent,
// "conformance", whose tools are those the suite's server scenarios call,
// served under their own names (app.MCP.OwnNames), and the resources,
// prompts and completion the scenarios read, added through app.MCP's
// Extension. It is built for the tests alone and ships in no binary.
package main

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/app"
)

func main() {
	app.Main(config())
}

// config is the fixture as an application.
func config() app.Config {
	return app.Config{
		Name: "mcpfixture",
		Assistants: []agents.Assistant{{
			Name:        "fixture",
			Description: "Says that this program serves MCP only.",
			Turn: func(context.Context, string) (string, error) {
				return "This program serves the MCP conformance fixture at /mcp.", nil
			},
		}},
		Agents: []*agents.Agent{conformanceAgent()},
		MCP:    app.MCP{OwnNames: true, Extension: extension(), Tasks: taskTools()},
	}
}

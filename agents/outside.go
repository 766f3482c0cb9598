package agents

import (
	"context"
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
)

// Tools found when a loop runs. An outside MCP server's tools are not
// known when the program is built: a ToolSource lists them as a Loop
// starts, and each is a tool made by Outside, whose input schema and
// function speak JSON as the server does.

// ToolSource gives a Loop tools it finds when it runs (Loop.Sources). The
// list must be the same when the turn is replayed: a source records what
// it listed (as a tool call of its own, say), so that a replay shows the
// model the same tools whatever the world says then.
type ToolSource interface {
	// Tools lists the tools to offer. Its error, said in words for the
	// model, names what could not be listed; the tools it returns beside
	// are offered all the same.
	Tools(ctx context.Context) ([]AnyTool, error)
}

// Outside makes a tool of fn, which takes and returns JSON: a tool of an
// outside program, whose input schema (a JSON Schema, as the program
// wrote it) the model is shown as it is and which checks its own input.
// info.Agent names who offers it (the outside server); info.Input, when
// set, is the part of schema a form can show, for the approval card. A
// call passes through ToolAPI as every tool's does: decided by the
// permission policy, recorded, and answered from the record on replay.
func Outside(info ToolInfo, schema json.RawMessage, fn func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)) AnyTool {
	return &outsideTool{info: info, schema: schema, fn: fn}
}

type outsideTool struct {
	info   ToolInfo
	schema json.RawMessage
	fn     func(context.Context, json.RawMessage) (json.RawMessage, error)
}

func (t *outsideTool) Info() ToolInfo { return t.info }

// inputSchema is the schema the model is shown.
func (t *outsideTool) inputSchema() json.RawMessage { return t.schema }

func (t *outsideTool) callJSON(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	core := func(ctx context.Context, call ToolCall) (json.RawMessage, error) {
		ctx = primitive.AgentName.With(ctx, call.Agent)
		ctx = withMadeBy(ctx, madeBy{})
		return t.fn(ctx, call.Input)
	}
	ctx = primitive.Provide(ctx, ToolAPI, core)
	return ToolAPI.Call(ctx, ToolCall{Agent: t.info.Agent, Tool: t.info.Name, Input: raw, Info: t.info, Reason: madeByOf(ctx).Reason, ModelCall: madeByOf(ctx).ID})
}

// CallJSON runs t on JSON input, through ToolAPI as a Loop runs the
// model's calls: for code that calls a tool it found by name rather than
// declared (a tool a ToolSource listed).
func CallJSON(ctx context.Context, t AnyTool, input json.RawMessage) (json.RawMessage, error) {
	return t.callJSON(ctx, input)
}

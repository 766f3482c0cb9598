// Package mcp serves the agents' tools over the Model Context Protocol
// (revision 2025-11-25), on the official Go SDK: over Streamable HTTP at
// /mcp beside the pages (Handler, mounted through transport.Mount) and over
// stdio (Serve, for the mcp command).
//
// Naming: a tool is listed as "AGENT.TOOL" — the agent's name, a dot, the
// tool's name — so that two agents' tools of the same name never clash.
// The description and the input JSON Schema are the tool's own
// (agents.ToolInfo). Tools.OwnNames lists them under their own names
// instead, when they do not clash; a call is recorded under the qualified
// name either way. A tool's result is its JSON, as text and structured
// content, or its blocks when it returns agents.Content. What an
// application serves beside the tools (resources, prompts, completion) it
// adds through an Extension, outside any conversation.
//
// Calling a tool runs it as a durable turn of a conversation in the same
// store as the browser's: the call is sent typed (inbound.Message.Call), the
// built-in assistant Assistant (named AssistantName) runs it by invoking
// the tool with the arguments (agents.Agent.Invoke) and returns its
// outcome typed (chat.ReturnCall), and the call follows its run on the
// conversation's event stream (package eventstream: the questions asked,
// progress, log lines, the run completed with the outcome), never the
// page's view (run.go). So the record, replay, the permission policy and
// the audit apply unchanged. Each MCP session has a conversation of its own,
// created at its first call and titled with the client's name from
// initialize; its calls run one after the other.
//
// While the turn runs, its progress (turn.Notify) becomes MCP progress
// notifications when the client sent a progress token, its log lines
// (turn.Log) logging messages where the client set a level, and each
// question it asks (an elicit, an approval of the policy included) reaches
// the client as elicitation/create in form mode; the client's answer is
// recorded through chat.Service.Answer as a browser's would be. A question
// whose schema is not a flat form (strings, numbers, booleans, enums,
// multiple choices) is declined, with a log message to the client saying why; a client without
// the elicitation capability gets the kind's automatic answer
// (kindset.Set.Automatic).
//
// Over Streamable HTTP, with Config.Events and Config.Sessions, a restart
// loses nothing of a session: it is begun again under its id (reviver),
// in its conversation, and each call the restart cut off goes on (orphan):
// its client resumes the call's stream, answers its questions and gets
// its result there, or from a retry of the call.
package mcp

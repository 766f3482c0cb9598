package app

import (
	"context"
	"flag"
	"io/fs"
	"log/slog"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/mcpclient"
	"github.com/sweatpants-go/sweatpants/plugin"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// Config is an application: its assistants, and what it adds to the
// program. Only Assistants is required; every other field's zero value is
// a working default.
type Config struct {
	// Name is the program's name in its help, its messages and its logs,
	// and names its default database (data/NAME.db). Empty is the name
	// the program was started by.
	Name string

	// Assistants are what a conversation can be started with. The first
	// is the default: a conversation talks to it unless the page or
	// chat --agent names another.
	Assistants []agents.Assistant

	// Agents are the agents whose tools are served over MCP: at /mcp by
	// serve and over stdio by the mcp command, each tool named
	// AGENT.TOOL (docs/mcp.md). Their calls run as turns of the built-in
	// assistant "mcp", which joins Assistants when there are any. None
	// serves no MCP.
	Agents []*agents.Agent
	// MCP is how the application serves them: under their own names,
	// and with what it serves beside them (resources, prompts,
	// completion). The zero value serves the tools alone, as AGENT.TOOL.
	MCP MCP

	// MCPServers are outside MCP servers whose tools the application's
	// loops take as their own where their Sources hold mcpclient.All (or
	// mcpclient.Named): beside those of the file --mcp-servers names,
	// which follow them. A tool of theirs reaches outside the program, so
	// the policy asks the user before each call unless a rule says
	// otherwise (docs/mcp.md).
	MCPServers []mcpclient.Server

	// Kinds are the application's own elicit kinds, which its assistants
	// ask with beside the built-in ones (elicit.BuiltinKinds, always
	// there): an answer to one is checked by the kind's rules as well as
	// by its request's schema, wherever it arrives.
	Kinds []elicit.Registered
	// Components are the browser components of those kinds, by kind name;
	// a kind without one is shown as a form of its output schema. Each
	// draws from the public view of its question (package component).
	Components component.Set
	// Modules are the application's browser code: JavaScript modules, each
	// *.js file at the root of the file system served at /app/<name> and
	// loaded by every conversation page under the page's content security
	// policy (no inline script, no eval). A module implements methods
	// (package protocol) by importing implement from /static/protocol.js:
	//
	//	import { implement } from '/static/protocol.js'
	//	implement('take-photo', async (args, send) => { send({stage: 'capturing'}); return {...} })
	//
	// A method no module implements, and no component shows, is answered
	// "unsupported" by the page at once.
	Modules fs.FS
	// Prompters ask those kinds at the terminal (the chat command), by
	// kind name; a kind without one is asked as a form when its schema is
	// a flat object, else as JSON.
	Prompters map[string]terminal.Prompter

	// Scope, when set, makes every turn's context inside the default
	// middleware (PII redaction, JSON repair, the turn's budget of model
	// calls): the place for the application's own middleware (Around on
	// an API of package middleware, such as middleware.Sample, or on
	// agents.ToolAPI) and values (middleware.Value, middleware.Model). It
	// is called at the start of each turn, a resumed one included.
	Scope func(context.Context) context.Context

	// Policy is the application's rules of the permission policy for
	// tool calls, at the program's level with those of the file --policy
	// names, which follow them: the order of evaluation (package policy),
	// not where a rule is written, says which one decides. An assistant
	// narrows them with its own (agents.Assistant's Policy), and so does a
	// policy set in Scope. A rule that cannot be read stops every command
	// that runs turns, naming it.
	Policy []policy.Rule

	// Model is the model turns sample from. Nil chooses it from the
	// environment, as docs/configuration.md says: OpenAI-compatible with
	// OPENAI_API_KEY, else the built-in offline model. Whichever it is,
	// with the offline model a plain word rule decides what a message
	// typed while a question waits is (see the package documentation).
	Model llm.Provider

	// Flags, when set, defines the application's own flags on the flag
	// set of serve and of chat (fs.Name() says which). Each is read from
	// its environment variable too (--demo-pace from SWEATPANTS_DEMO_PACE)
	// and listed in the command's help; a refused value is a usage error,
	// as for the program's own flags, whose names it must not reuse. A
	// flag writes where the application reads it back in Setup.
	Flags func(fs *flag.FlagSet)

	// Plugins add to the program what their authors wrote apart: routes,
	// commands, tool sources, middleware, elicit kinds with their forms,
	// tables, flags, and what starts and stops with a command (package
	// plugin, docs/plugins.md). They are checked before any command runs;
	// each plugin's parts are wired where the application's own go, a
	// plugin's scope inside the program's middleware and outside Scope.
	Plugins []plugin.Plugin

	// Setup, when set, is called by serve, chat and any other command that
	// runs the application's turns, once its flags are read, the database
	// is open and the model is chosen, before any turn runs: the place for
	// what needs them, such as stocking the application's own tables or a
	// value every turn sees. Its error stops the command, said as it is.
	Setup func(ctx context.Context, env Env) (Turns, error)
}

// Env is what Setup is handed.
type Env struct {
	// Command is the command that runs: "serve", "chat", or another that
	// runs or replays the application's turns. Setup may do less for a
	// command that only reads the database.
	Command string
	// DB is the command's database, open and locked for this process:
	// the place for the application's own tables, which its own
	// migrations make (DB.Migrate) beside the framework's.
	DB DB
	// Model is the model turns sample from, Config.Model or the one
	// chosen from the environment; Offline says it is the built-in
	// offline model, which cannot hold a conversation a real one can.
	Model   llm.Provider
	Offline bool
	// Getenv reads the environment the program was given.
	Getenv func(string) string
	// Log is the command's log.
	Log *slog.Logger
}

// Turns is what Setup makes for the turns a command runs, from what it
// knows that Config could not: a flag's value, the database, the model.
type Turns struct {
	// Assistants, when not empty, stand for Config.Assistants: the same
	// assistants by name, with the same first (the default), made with a
	// flag's value or listed in an order that suits the model. The help,
	// which runs no Setup, names Config.Assistants; a command refuses
	// assistants that are not those.
	Assistants []agents.Assistant
	// Scope, when set, makes every turn's context inside Config.Scope:
	// for values made from the database, say.
	Scope func(context.Context) context.Context
}

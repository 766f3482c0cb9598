// Package plugin is how an application adds to the program more than its
// assistants: routes beside the pages, commands, tools found when a loop
// runs, middleware, elicit kinds with their forms, tables of its own,
// flags, and what starts and stops with a command. An application lists
// its plugins in app.Config.Plugins; the program checks them all before
// anything starts (a route or a flag two of them want, a command named
// twice, migrations out of order) and says which plugin is wrong and why.
//
// A plugin is a value, made by its author's constructor, that says what it
// contributes (Parts); nothing registers itself on a package variable.
//
//	notes := plugin.New("notes", plugin.Parts{
//		Routes:     []plugin.Route{{Method: "GET", Path: "/notes", Handler: list}},
//		Migrations: migrations, // 001_notes.sql, 002_…
//		Tools:      noteTools,  // offered to a Loop whose Sources hold plugin.Tools("notes")
//	})
//	app.Main(app.Config{Assistants: ..., Plugins: []plugin.Plugin{notes}})
package plugin

import (
	"context"
	"database/sql"
	"flag"
	"io"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/plugintools"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// Plugin is what an application hands to app.Config.Plugins.
type Plugin interface {
	// Name names the plugin in the program's errors and logs, and records
	// its migrations apart from every other's. Two plugins of one program
	// must not share a name.
	Name() string
	// Parts says what the plugin contributes. The program calls it once,
	// before any command runs.
	Parts() Parts
}

// New returns the plugin called name that contributes parts.
func New(name string, parts Parts) Plugin { return plain{name, parts} }

type plain struct {
	name  string
	parts Parts
}

func (p plain) Name() string { return p.name }
func (p plain) Parts() Parts { return p.parts }

// Parts are what a plugin contributes; each is optional.
type Parts struct {
	// Routes are served by serve beside the pages, behind what protects
	// them (the Host check, the refusal of cross-origin state-changing
	// requests, the security headers, the access log) and nothing else: a
	// route brings its own authentication. A route the program serves
	// already, or another plugin's, stops serve, naming both.
	Routes []Route
	// Commands join the program's (serve, chat, ...); a name the program
	// or another plugin has stops every command.
	Commands []Command
	// Tools are offered by every Loop whose Sources hold Tools(NAME), NAME
	// being the plugin's: tools found when the loop runs. As any
	// agents.ToolSource, it lists the same tools when a turn is replayed.
	Tools agents.ToolSource
	// Scope, when set, makes every turn's context inside the program's
	// middleware and before app.Config.Scope: the place for middleware
	// (Around on an API of package middleware) and values every turn sees.
	Scope func(context.Context) context.Context
	// Kinds are elicit kinds the plugin's tools ask with; Components draw
	// them in the browser and Prompters ask them at the terminal, by kind
	// name; Modules are browser JavaScript modules served at /app/<name>
	// that implement methods (package protocol). A kind, a component, a
	// prompter or a module's name another plugin or the application has
	// stops every command.
	Kinds      []elicit.Registered
	Components component.Set
	Prompters  map[string]terminal.Prompter
	Modules    fs.FS
	// Migrations are the plugin's tables: files NNN_name.sql at the root,
	// numbered 001, 002, ... with none missing or repeated, applied before
	// Start in the order of their numbers and recorded under the plugin's
	// name. A migration added below one already applied stops the command:
	// a change is a new file with a higher number.
	Migrations fs.FS
	// Flags, when set, defines the plugin's flags on the flag set of each
	// command that runs turns (serve, chat, check, and the program's
	// other such commands; fs.Name() says which). Each is read from its
	// environment variable too (--notes-dir from SWEATPANTS_NOTES_DIR). A
	// name the program, the application or another plugin uses stops
	// every command, naming both.
	Flags func(fs *flag.FlagSet)
	// Start, when set, is called by every command that runs turns, once
	// its flags are read, the database is open and the plugin's
	// migrations are applied, before any turn runs. Its error stops the
	// command.
	Start func(ctx context.Context, env Env) error
	// Stop, when set, is called when a command whose Start succeeded ends,
	// after its last turn stopped and before the database closes.
	Stop func(ctx context.Context) error
}

// Route is one route a plugin serves.
type Route struct {
	// Method is the HTTP method, such as "GET"; empty is every method.
	Method string
	// Path is the route, such as "/notes" or "/notes/:id" (a segment
	// starting with a colon matches any one segment; a trailing * any
	// rest).
	Path    string
	Handler http.Handler
}

// Command is a command of a plugin's, run as NAME [flags]: as the
// program's own, it takes flags and no arguments.
type Command struct {
	// Name is what the command line names; Args what follows it in the
	// program's usage ("[flags]"); Does what it does in a few words, for
	// the program's usage; Help, when set, what it does in a paragraph,
	// for its own.
	Name, Args, Does, Help string
	// Flags, when set, defines its flags; they are read from the
	// environment as every command's are.
	Flags func(fs *flag.FlagSet)
	// Run runs it once its flags are read.
	Run func(ctx context.Context, env CommandEnv) error
}

// CommandEnv is what a plugin's command runs with.
type CommandEnv struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// Env is what Start is handed.
type Env struct {
	// Command is the command that runs: "serve", "chat", or another that
	// runs or replays turns.
	Command string
	// DB is the command's database, where the plugin's migrations made
	// its tables.
	DB DB
	// Getenv reads the environment the program was given.
	Getenv func(string) string
	// Log is the command's log.
	Log *slog.Logger
}

// DB is the command's database as an application or a plugin sees it:
// tables of its own beside the framework's. It runs on SQLite or on
// PostgreSQL, as the command's --db says; statements are written with
// $1…$n for parameters, which both engines take.
type DB interface {
	// Engine names the database: "sqlite" or "postgres".
	Engine() string
	// QueryContext and QueryRowContext read, from the pool of readers.
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	// Write runs fn in a write transaction and commits it, as the
	// framework commits its own writes: on SQLite through the one
	// connection that writes, possibly in one transaction with other
	// writes (and then again alone if one of them failed), on PostgreSQL
	// again when the server chose it as a deadlock's victim. So fn may run
	// more than once, and must neither commit nor roll back tx. Writes
	// given the same key take turns across the nodes of one PostgreSQL
	// database: the key of a write that reads to decide. An empty key
	// takes no turn.
	Write(ctx context.Context, key string, fn func(ctx context.Context, tx *sql.Tx) error) error
	// Migrate applies the migrations named NNN_name.sql at the root of
	// files that the database has not had yet, in the order of their
	// numbers, in one transaction that records each under
	// name. Nodes that start together on one PostgreSQL database take
	// turns, so each migration is applied once. A migration applied keeps
	// its number: a change is a new file with a higher one.
	Migrate(ctx context.Context, name string, files fs.FS) error
}

// Tools is the tools of the plugin called name (Parts.Tools), for
// Loop.Sources: none where the program has no such plugin.
func Tools(name string) agents.ToolSource { return source(name) }

type source string

func (s source) Tools(ctx context.Context) ([]agents.AnyTool, error) {
	src := plugintools.From(ctx, string(s))
	if src == nil {
		return nil, nil
	}
	return src.Tools(ctx)
}

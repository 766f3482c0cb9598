// Package pluginhost is the extension of package plugin that only the
// program's built-in plugins use: the MCP client, telemetry (and the MCP
// server's parts that need the engine). They need what the public
// interface cannot show an outside author, because it is the engine's
// insides: the store's options before the database opens, the chat
// service's configuration before it is made, the running service and the
// settings page. A built-in plugin implements Extension beside
// plugin.Plugin; the program (app) asserts it, and calls its hooks where
// the wiring they replace used to be. Everything else a built-in plugin
// contributes, it contributes through plugin.Parts, as any plugin does.
package pluginhost

import (
	"context"
	"flag"
	"log/slog"
	"net"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Extension is the hooks of a built-in plugin, called in this order by
// each command that runs turns. Each may do nothing for a command it has
// no part in; an error stops the command, said as it is.
type Extension interface {
	// Opening is called once the command's flags are read and before its
	// database opens.
	Opening(ctx context.Context, o *Opening) error
	// Configure is called once the chat service's configuration is made
	// and before the service is.
	Configure(ctx context.Context, cfg *chat.Config) error
	// Serving is called by serve once the service runs, before the server
	// listens.
	Serving(ctx context.Context, s *Serving) error
}

// Opening is what a command opens its database with.
type Opening struct {
	// Command is the command that runs: "serve", "chat", "check", ...
	Command string
	// Store are the options the database opens with.
	Store *store.Options
	// Getenv reads the environment the program was given.
	Getenv func(string) string
	// Log is the command's log.
	Log *slog.Logger
}

// Serving is what serve runs, as its built-in plugins see it.
type Serving struct {
	Service *chat.Service
	DB      *store.DB
	// Addr is where the server listens.
	Addr net.Addr
	// MaxBody is the most bytes a request's body may hold (--max-body).
	MaxBody int64
	Log     *slog.Logger
	// SignIn says that people sign in (OpenID Connect or a trusted
	// header): their accounts may own what a plugin serves, as /mcp's
	// calls made with a personal MCP token.
	SignIn bool
	// Join, when a plugin sets it, lets a browser join a session the
	// plugin owns conversations in (GET and POST /join).
	Join *transport.Join
	// MCPServers, when a plugin sets it, gives the settings page the
	// outside MCP servers as they are now.
	MCPServers func() []templates.MCPServer
	// Logged are attributes the server's "serving" line says, in pairs as
	// slog takes them: what each plugin runs with.
	Logged []any
}

// Host is what the program does for a built-in plugin's command that
// runs turns, so that it runs what serve and chat run: the program
// implements it and hands it to each built-in plugin that is an Attacher,
// before it asks for the plugin's parts.
type Host interface {
	// TurnFlags defines on fs the flags every command that runs turns
	// has beside its own (--policy, --context-tokens, the application's
	// and the plugins'), and returns what opens the command's turns with
	// their values once fs is parsed: the database at db, locked for this
	// process, and the service's configuration over it.
	TurnFlags(fs *flag.FlagSet) func(ctx context.Context, command, db string, log *slog.Logger) (*Opened, error)
}

// Attacher is a built-in plugin with commands that run turns.
type Attacher interface {
	Attach(h Host)
}

// Opened is a command's database and the configuration of the chat
// service over it (what the program's commands open).
type Opened struct {
	DB   *store.DB
	Chat chat.Config
	// Close stops the plugins, closes the database and gives its lock
	// back.
	Close func()
}

// UsageError is a mistake in the command line of a built-in plugin's
// command: the program says it, points at the command's help and exits 2.
type UsageError struct {
	Command string
	Err     error
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

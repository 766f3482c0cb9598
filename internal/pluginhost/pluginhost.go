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
	"log/slog"
	"net"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/store"
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
	// MCPServers, when a plugin sets it, gives the settings page the
	// outside MCP servers as they are now.
	MCPServers func() []templates.MCPServer
	// Logged are attributes the server's "serving" line says, in pairs as
	// slog takes them: what each plugin runs with.
	Logged []any
}

package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/mcp"
	"github.com/sweatpants-go/sweatpants/backend/transport"
	"github.com/sweatpants-go/sweatpants/store"
)

// MCP. The tools of Config.Agents are served over MCP at /mcp by serve
// and over stdio by the mcp command (docs/mcp.md); package mcp does the
// serving, mounted through transport.Mount, the extension point for
// bindings.

// mcpCommand is the name of the command that serves MCP over stdio.
const mcpCommand = "mcp"

type mcpConfig struct {
	db      string
	agent   string
	policy  ruleFile
	servers serverFile
}

// mcpSynopsis heads the mcp command's usage.
func (p *program) mcpSynopsis() string {
	return fmt.Sprintf("Usage: %s mcp [flags]\n\n", p.cfg.Name) + wrap(
		"Serves the agents' tools over MCP on stdin and stdout, for a desktop client or an IDE to launch. "+
			"Each call runs as a turn of a conversation in the database; the model is chosen from the environment, as for serve (docs/mcp.md).")
}

// mcpFlags defines the mcp command's flags, and the application's.
func (p *program) mcpFlags(cfg *mcpConfig) *flag.FlagSet {
	fs := flag.NewFlagSet(mcpCommand, flag.ContinueOnError)
	*cfg = mcpConfig{db: "data/mcp.db"}
	fs.Var(nonEmptyFlag{&cfg.db}, "db", "SQLite database file (its own by default, apart from the server's); one process at a time may use it")
	fs.StringVar(&cfg.agent, "agent", "", "serve only this agent's tools (default: every agent's)")
	fs.Var(policyFlag{&cfg.policy}, "policy", policyUsage)
	fs.Var(serversFlag{&cfg.servers}, "mcp-servers", serversUsage)
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	return fs
}

// serveMCP serves the agents' tools over stdio until the client closes
// stdin or ctx ends. Nothing but the protocol is written to stdout.
func (p *program) serveMCP(ctx context.Context, args []string) error {
	var cfg mcpConfig
	err := parseFlags(p.mcpFlags(&cfg), p.mcpSynopsis(), args, p.getenv, p.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	tools := mcp.NewTools(p.cfg.Agents...)
	if len(p.cfg.Agents) == 0 {
		return fmt.Errorf("%s has no agents whose tools it serves over MCP (app.Config.Agents)", p.cfg.Name)
	}
	if cfg.agent != "" {
		if tools, err = tools.Only(cfg.agent); err != nil {
			return &usageError{mcpCommand, err}
		}
	}
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o, err := p.open(ctx, mcpCommand, cfg.db, cfg.policy.rules, cfg.servers, store.Options{}, log)
	if err != nil {
		return err
	}
	defer o.close()
	svc := chat.New(o.chat)
	defer svc.Close()
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Kinds: o.chat.Kinds, Owner: chat.NewSessionID(),
		Name: p.cfg.Name, Version: buildVersion(p.cfg.Name), Log: log})
	return mcp.Serve(ctx, srv, io.NopCloser(p.stdin), nopWriteCloser{p.stdout})
}

// nopWriteCloser is a writer whose Close does nothing: stdout stays the
// program's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpMount is /mcp for serve, or no mount when the application serves no
// agents' tools. Without a token it is refused beyond loopback.
func (p *program) mcpMount(svc *chat.Service, kindsOf chat.Config, token string, ln net.Listener, log *slog.Logger) ([]transport.Mount, error) {
	if len(p.cfg.Agents) == 0 {
		return nil, nil
	}
	if token == "" && !loopback(ln.Addr()) {
		return nil, fmt.Errorf("serving MCP on %s, beyond loopback, needs a bearer token: set --mcp-token or SWEATPANTS_MCP_TOKEN", ln.Addr())
	}
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: mcp.NewTools(p.cfg.Agents...), Kinds: kindsOf.Kinds, Owner: chat.NewSessionID(),
		Name: p.cfg.Name, Version: buildVersion(p.cfg.Name), Log: log})
	return []transport.Mount{{Path: "/mcp", Handler: mcp.Handler(srv, token)}}, nil
}

// loopback reports whether a listens on a loopback address only.
func loopback(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().IsLoopback()
}

package mcp

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/pluginhost"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport"
	"github.com/sweatpants-go/sweatpants/plugin"
)

// The MCP server as the program's built-in plugin: the tools of
// app.Config.Agents served at /mcp by serve and over stdio by the mcp
// command (docs/mcp.md), their calls run as turns of the assistant "mcp".
// It needs the running service, the database's secrets and the page's
// join, which the public interface does not show: it takes them through
// pluginhost (Extension, and Host for its command).

// command is the name of the command that serves MCP over stdio.
const command = "mcp"

// PluginConfig is what the application says of its MCP server.
type PluginConfig struct {
	// Name and Version are the program's, as the server's.
	Name, Version string
	// Agents are the agents whose tools are served; none serves no MCP.
	Agents []*agents.Agent
	// OwnNames, Extension and Tasks are app.Config.MCP's.
	OwnNames  bool
	Extension Extension
	Tasks     map[string]Task
}

// Plugin is the MCP server's plugin; NewPlugin makes it.
type Plugin struct {
	cfg  PluginConfig
	host pluginhost.Host

	// serve's flags.
	token string
	idle  time.Duration

	kinds   *kindset.Set // the service's, which answers are checked by
	handler http.Handler
}

var (
	_ pluginhost.Extension = (*Plugin)(nil)
	_ pluginhost.Attacher  = (*Plugin)(nil)
)

// NewPlugin returns the MCP server of cfg.
func NewPlugin(cfg PluginConfig) *Plugin { return &Plugin{cfg: cfg} }

// Name implements plugin.Plugin.
func (p *Plugin) Name() string { return "mcp" }

// Attach implements pluginhost.Attacher.
func (p *Plugin) Attach(h pluginhost.Host) { p.host = h }

// Parts implements plugin.Plugin: serve's flags, /mcp when there are
// agents, and the mcp command.
func (p *Plugin) Parts() plugin.Parts {
	parts := plugin.Parts{
		Flags: func(fs *flag.FlagSet) {
			if fs.Name() != "serve" {
				return
			}
			p.idle = DefaultSessionIdle
			fs.StringVar(&p.token, "mcp-token", "",
				"the bearer token MCP clients must send to /mcp; required when listening beyond loopback, where /mcp is open without one (docs/mcp.md)")
			fs.Var(positiveDuration{&p.idle}, "mcp-idle",
				"how long an MCP session of /mcp may go without a request before it is closed and forgotten (its client then begins a new one)")
		},
		Commands: []plugin.Command{p.command()},
	}
	if len(p.cfg.Agents) > 0 {
		parts.Routes = []plugin.Route{{Path: "/mcp", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.handler.ServeHTTP(w, r) // made by Serving, before serve listens
		})}}
	}
	return parts
}

// tools are the agents' tools as the application names them.
func (p *Plugin) tools() (*Tools, error) {
	tools := NewTools(p.cfg.Agents...)
	if !p.cfg.OwnNames {
		return tools, nil
	}
	tools, err := tools.OwnNames()
	if err != nil {
		return tools, fmt.Errorf("app.Config.MCP.OwnNames: %w", err)
	}
	return tools, nil
}

// Opening implements pluginhost.Extension; the server has no part in it.
func (p *Plugin) Opening(context.Context, *pluginhost.Opening) error { return nil }

// Configure adds the assistant whose turns the calls run as, when there
// are agents, and keeps the service's kinds, which the server checks
// answers by.
func (p *Plugin) Configure(_ context.Context, cfg *chat.Config) error {
	if len(p.cfg.Agents) > 0 {
		cfg.Assistants = registry.New(append(cfg.Assistants.All(), NewTools(p.cfg.Agents...).Assistant())...)
	}
	p.kinds = cfg.Kinds
	return nil
}

// Serving makes /mcp, and the way a browser joins the session of MCP
// calls to look at them (GET /join); nothing when the application serves
// no agents' tools. Its requests take --max-body bytes at most, as the
// pages' commands do, and its sessions end after --mcp-idle without a
// request. Beyond loopback it needs --mcp-token, or sign-in, and then each
// request a personal token of its account.
// Its streams' events are kept in the database, so a client resumes them
// after a restart too.
func (p *Plugin) Serving(ctx context.Context, s *pluginhost.Serving) error {
	if len(p.cfg.Agents) == 0 {
		return nil
	}
	// Beyond loopback a request needs a token: the program's (--mcp-token),
	// or, where people sign in, a personal one of theirs.
	personalOnly := p.token == "" && !loopback(s.Addr)
	if personalOnly && !s.SignIn {
		return fmt.Errorf("serving MCP on %s, beyond loopback, needs a bearer token: set --mcp-token or SWEATPANTS_MCP_TOKEN (or sign people in: each makes a personal token)", s.Addr)
	}
	tools, err := p.tools()
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(p.cfg.Tasks)) {
		if !tools.Has(name) {
			return fmt.Errorf("app.Config.MCP.Tasks names %q, which is no tool of app.Config.Agents; a task is named AGENT.TOOL", name)
		}
	}
	owner, secret, err := secrets(ctx, s.DB)
	if err != nil {
		return err
	}
	srv := NewServer(Config{Chat: s.Service, Tools: tools, Kinds: p.kinds, Owner: owner, PersonalOnly: personalOnly, Secret: secret, Events: s.DB, Sessions: s.DB,
		MaxBody: s.MaxBody, SessionIdle: p.idle, Name: p.cfg.Name, Version: p.cfg.Version, Log: s.Log, Extension: p.cfg.Extension, Tasks: p.cfg.Tasks})
	var accounts Accounts
	if s.SignIn {
		accounts = s.DB // personal MCP tokens, made on /settings/tokens
	}
	p.handler = Handler(srv, p.token, accounts)
	if !personalOnly { // the program's own session is nobody's to join otherwise
		s.Join = join(owner, p.token, s.DB.PinSession)
	}
	return nil
}

// command is the mcp command: the agents' tools over stdio until the
// client closes stdin or ctx ends. Nothing but the protocol is written to
// stdout.
func (p *Plugin) command() plugin.Command {
	var db, agent string
	var ownNames bool
	var open func(ctx context.Context, command, db string, log *slog.Logger) (*pluginhost.Opened, error)
	return plugin.Command{Name: command, Args: "[flags]", Does: "serve the agents' tools over MCP on stdio",
		Help: "Serves the agents' tools over MCP on stdin and stdout, for a desktop client or an IDE to launch. " +
			"Each call runs as a turn of a conversation in the database; the model is chosen from the environment, as for serve (docs/mcp.md).",
		Flags: func(fs *flag.FlagSet) {
			db, agent, ownNames = "data/mcp.db", "", false
			fs.Var(nonEmpty{&db}, "db", "the database: a SQLite file (its own by default, apart from the server's), which one process at a time may use, or a postgres:// URL")
			fs.StringVar(&agent, "agent", "", "serve only this agent's tools (default: every agent's)")
			fs.BoolVar(&ownNames, "own-names", false, "list the tools under their own names, without the agent's name and a dot before them")
			open = p.host.TurnFlags(fs)
		},
		Run: func(ctx context.Context, env plugin.CommandEnv) error {
			if len(p.cfg.Agents) == 0 {
				return fmt.Errorf("%s has no agents whose tools it serves over MCP (app.Config.Agents)", p.cfg.Name)
			}
			tools := NewTools(p.cfg.Agents...)
			var err error
			if agent != "" {
				if tools, err = tools.Only(agent); err != nil {
					return &pluginhost.UsageError{Command: command, Err: err}
				}
			}
			if ownNames || p.cfg.OwnNames {
				if tools, err = tools.OwnNames(); err != nil {
					return &pluginhost.UsageError{Command: command, Err: fmt.Errorf("%w: serve one agent's tools (--agent)", err)}
				}
			}
			log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			o, err := open(ctx, command, db, log)
			if err != nil {
				return err
			}
			defer o.Close()
			svc := chat.New(o.Chat)
			defer svc.Close()
			owner, secret, err := secrets(ctx, o.DB)
			if err != nil {
				return err
			}
			// No tasks here: they ride the stateless requests of
			// 2026-07-28, which only /mcp serves.
			srv := NewServer(Config{Chat: svc, Tools: tools, Kinds: o.Chat.Kinds, Owner: owner, Secret: secret,
				Name: p.cfg.Name, Version: p.cfg.Version, Log: log, Extension: p.cfg.Extension})
			return Serve(ctx, srv, io.NopCloser(env.Stdin), nopWriteCloser{env.Stdout})
		},
	}
}

// nopWriteCloser is a writer whose Close does nothing: stdout stays the
// program's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// join lets a browser join the session of MCP calls with the MCP token:
// who may call the tools may see their conversations. Without a token,
// which serve allows on loopback only, no key is asked. The session is
// recorded, pinned, when a browser first joins it: pinned, a conversation
// the browser starts never rotates it away (see store.PinSession).
func join(owner, token string, pin func(context.Context, string) error) *transport.Join {
	j := &transport.Join{What: "the conversations of MCP calls", Session: func(ctx context.Context, key string) (string, error) {
		if token != "" && subtle.ConstantTimeCompare([]byte(key), []byte(token)) != 1 {
			return "", apperr.Errorf(apperr.Invalid, "That is not the MCP token this server was started with (--mcp-token or SWEATPANTS_MCP_TOKEN).")
		}
		if err := pin(ctx, owner); err != nil {
			return "", err
		}
		return owner, nil
	}}
	if token != "" {
		j.KeyLabel = "The MCP token"
	}
	return j
}

// secrets are the session that owns the conversations of MCP calls and
// the key that seals their requestState, both kept in the database: the
// same after a restart, so a stateless call's retry finds its turn.
func secrets(ctx context.Context, db *store.DB) (owner string, key []byte, err error) {
	id, err := db.Secret(ctx, "mcp-owner", 16)
	if err != nil {
		return "", nil, err
	}
	key, err = db.Secret(ctx, "mcp-request-state", 32)
	if err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(id), key, nil
}

// loopback reports whether a listens on a loopback address only.
func loopback(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().IsLoopback()
}

// positiveDuration is a flag of a duration above zero.
type positiveDuration struct{ p *time.Duration }

func (f positiveDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return errors.New("want a positive duration such as 1h or 10m")
	}
	*f.p = d
	return nil
}

func (f positiveDuration) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}

// nonEmpty is a flag of a string that must not be empty.
type nonEmpty struct{ p *string }

func (f nonEmpty) Set(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	*f.p = s
	return nil
}

func (f nonEmpty) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

package app

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
	"net/netip"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport"
)

// MCP. The tools of Config.Agents are served over MCP at /mcp by serve
// and over stdio by the mcp command (docs/mcp.md); package mcp does the
// serving, mounted through transport.Mount, the extension point for
// bindings.

// MCP is how an application serves its agents' tools over MCP, beyond
// the default.
type MCP struct {
	// OwnNames lists each tool under its own name ("getWeather") rather
	// than as AGENT.TOOL ("weather.getWeather"), for clients that expect
	// the names the tools were written with. The tools served must not
	// share a name: a command that serves them refuses to start, naming
	// the two. The mcp command's --own-names chooses it for one run.
	OwnNames bool
	// Extension is what the application serves beside the tools, written
	// against the MCP SDK: resources, prompts, completion. Its handlers
	// answer outside any conversation; nothing of them is recorded.
	Extension MCPExtension
	// Tasks are the tools whose calls /mcp serves as tasks to clients that
	// take the tasks extension, by qualified name ("AGENT.TOOL"):
	// polled, answered later, cancelled, surviving a restart (docs/mcp.md).
	Tasks map[string]MCPTask
}

// MCPExtension is what an application serves over MCP beside its agents'
// tools — resources, prompts, completion — written against the SDK
// directly. The agents' tools run as recorded turns of a conversation;
// what an extension adds is answered by its own handlers, outside any
// conversation, and nothing of it is recorded: it suits what is read, not
// what acts or asks.
//
// Two hooks, because the SDK takes some handlers only when its server is
// made and the rest only once it is.
type MCPExtension struct {
	// Options, when set, sets the handlers the SDK's server takes when it
	// is made: CompletionHandler, SubscribeHandler, UnsubscribeHandler,
	// Instructions. The protocol revisions the server speaks stay the
	// binding's.
	Options func(*sdk.ServerOptions)
	// Add, when set, adds to the SDK's server once it is made and holds
	// the agents' tools: AddResource, AddResourceTemplate, AddPrompt.
	Add func(*sdk.Server)
}

// MCPTask says how a tool's calls are served as tasks, for clients that
// take the tasks extension (revision 2026-07-28): the call answers at
// once with a task id, and the client polls the task, answers its
// questions whenever it likes and may cancel it. A task is the call's
// turn in its conversation, so it survives a restart as the turn does.
type MCPTask struct {
	// Required refuses a call of the tool from a client that does not take
	// tasks (-32021, the missing capability named), where otherwise it is
	// served as any call, by waiting for its end.
	Required bool
	// AfterInput serves the call's first questions as any call of
	// 2026-07-28 does (input_required and a requestState), and makes the
	// call a task once the client answers them: for a tool that gathers
	// what it needs, then works long.
	AfterInput bool
}

// extension is e as the MCP binding takes it.
func (e MCPExtension) extension() mcp.Extension {
	return mcp.Extension{Options: e.Options, Add: e.Add}
}

// tasks are ts as the MCP binding takes them.
func tasks(ts map[string]MCPTask) map[string]mcp.Task {
	if ts == nil {
		return nil
	}
	out := make(map[string]mcp.Task, len(ts))
	for name, t := range ts {
		out[name] = mcp.Task{Required: t.Required, AfterInput: t.AfterInput}
	}
	return out
}

// mcpCommand is the name of the command that serves MCP over stdio.
const mcpCommand = "mcp"

type mcpConfig struct {
	db       string
	agent    string
	ownNames bool
	policy   ruleFile

	// contextTokens is the tokens a request may hold; 0: no bound.
	contextTokens int
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
	fs.Var(nonEmptyFlag{&cfg.db}, "db", "the database: a SQLite file (its own by default, apart from the server's), which one process at a time may use, or a postgres:// URL")
	fs.StringVar(&cfg.agent, "agent", "", "serve only this agent's tools (default: every agent's)")
	fs.BoolVar(&cfg.ownNames, "own-names", false, "list the tools under their own names, without the agent's name and a dot before them")
	fs.Var(policyFlag{&cfg.policy}, "policy", policyUsage)
	contextTokensFlag(fs, &cfg.contextTokens, "")
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	p.pluginFlags(fs) // a clash was refused before any command ran
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
	if cfg.ownNames || p.cfg.MCP.OwnNames {
		if tools, err = tools.OwnNames(); err != nil {
			return &usageError{mcpCommand, fmt.Errorf("%w: serve one agent's tools (--agent)", err)}
		}
	}
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o, err := p.open(ctx, mcpCommand, cfg.db, cfg.policy.rules, cfg.contextTokens, store.Options{}, log)
	if err != nil {
		return err
	}
	defer o.close()
	svc := chat.New(o.chat)
	defer svc.Close()
	owner, secret, err := mcpSecrets(ctx, o.db)
	if err != nil {
		return err
	}
	// No tasks here: they ride the stateless requests of 2026-07-28, which
	// only /mcp serves.
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Kinds: o.chat.Kinds, Owner: owner, Secret: secret,
		Name: p.cfg.Name, Version: buildVersion(p.cfg.Name), Log: log, Extension: p.cfg.MCP.Extension.extension()})
	return mcp.Serve(ctx, srv, io.NopCloser(p.stdin), nopWriteCloser{p.stdout})
}

// nopWriteCloser is a writer whose Close does nothing: stdout stays the
// program's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpMount is /mcp for serve, and the way a browser joins the session of
// MCP calls to look at them (GET /join); none when the application serves
// no agents' tools. Its requests take --max-body bytes at most, as the
// pages' commands do, and its sessions end after --mcp-idle without a
// request. Without a token (--mcp-token) it is refused beyond loopback. Its
// streams' events are kept in db, so a client resumes them after a
// restart too.
func (p *program) mcpMount(ctx context.Context, db *store.DB, svc *chat.Service, kindsOf chat.Config, cfg serveConfig, ln net.Listener, log *slog.Logger) ([]transport.Mount, *transport.Join, error) {
	token := cfg.mcpToken
	if len(p.cfg.Agents) == 0 {
		return nil, nil, nil
	}
	if token == "" && !loopback(ln.Addr()) {
		return nil, nil, fmt.Errorf("serving MCP on %s, beyond loopback, needs a bearer token: set --mcp-token or SWEATPANTS_MCP_TOKEN", ln.Addr())
	}
	tools := mcp.NewTools(p.cfg.Agents...)
	if p.cfg.MCP.OwnNames {
		var err error
		if tools, err = tools.OwnNames(); err != nil {
			return nil, nil, fmt.Errorf("app.Config.MCP.OwnNames: %w", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.cfg.MCP.Tasks)) {
		if !tools.Has(name) {
			return nil, nil, fmt.Errorf("app.Config.MCP.Tasks names %q, which is no tool of app.Config.Agents; a task is named AGENT.TOOL", name)
		}
	}
	owner, secret, err := mcpSecrets(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Kinds: kindsOf.Kinds, Owner: owner, Secret: secret, Events: db, Sessions: db,
		MaxBody: cfg.maxBody, SessionIdle: cfg.mcpIdle, Name: p.cfg.Name, Version: buildVersion(p.cfg.Name), Log: log, Extension: p.cfg.MCP.Extension.extension(), Tasks: tasks(p.cfg.MCP.Tasks)})
	return []transport.Mount{{Path: "/mcp", Handler: mcp.Handler(srv, token)}}, mcpJoin(owner, token, db.PinSession), nil
}

// mcpJoin lets a browser join the session of MCP calls with the MCP token:
// who may call the tools may see their conversations. Without a token,
// which serve allows on loopback only, no key is asked. The session is
// recorded, pinned, when a browser first joins it: pinned, a conversation
// the browser starts never rotates it away (see store.PinSession).
func mcpJoin(owner, token string, pin func(context.Context, string) error) *transport.Join {
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

// mcpSecrets are the session that owns the conversations of MCP calls and
// the key that seals their requestState, both kept in the database: the
// same after a restart, so a stateless call's retry finds its turn.
func mcpSecrets(ctx context.Context, db *store.DB) (owner string, key []byte, err error) {
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

package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pluginhost"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/plugin"
	"github.com/sweatpants-go/sweatpants/policy"
)

// opened is a command's database and the configuration of the chat
// service over it.
type opened struct {
	db   *store.DB
	chat chat.Config
	// sched is the scheduled messages' wiring, whose service is there
	// once chat.New made the chat service of chat.
	sched *scheduling
	// close closes the database and gives its lock back.
	close func()
}

// open opens what a command's turns run on: the database at path, locked
// for this process (lockDB), the model, the default middleware (requests
// trimmed to contextTokens, from the command's --context-tokens), the
// permission policy (the application's rules, then rules, read from the
// command's --policy), the plugins (their migrations, Start and scopes;
// the built-in ones' hooks), the application's own middleware, its kinds,
// and what its Setup makes of them. The
// chat.Config it returns has Store, Assistants, Model, Kinds, Scope,
// DecideByRule and Log set; the command adds its own settings before
// chat.New. Every command that runs the application's turns, or replays
// them, opens them here, so that all of them run the same code.
func (p *program) open(ctx context.Context, command, path string, rules []policy.Rule, contextTokens int, opts store.Options, log *slog.Logger) (*opened, error) {
	for _, ext := range p.extensions() {
		if err := ext.Opening(ctx, &pluginhost.Opening{Command: command, Store: &opts, Getenv: p.getenv, Log: log}); err != nil {
			return nil, err
		}
	}
	db, release, err := openStore(ctx, p.cfg.Name, path, opts)
	if err != nil {
		return nil, err
	}
	stopPlugins, err := p.startPlugins(ctx, plugin.Env{Command: command, DB: db.App(), Getenv: p.getenv, Log: log}, db)
	// The plugins stop first: a command an outside MCP server runs as
	// ends with us.
	o := &opened{db: db, close: func() { stopPlugins(); db.Close(); release() }}
	if err != nil {
		o.close()
		return nil, err
	}
	cfg, err := p.chatConfig(ctx, command, db, rules, contextTokens, log)
	if err != nil {
		o.close()
		return nil, err
	}
	for _, ext := range p.extensions() {
		if err := ext.Configure(ctx, &cfg); err != nil {
			o.close()
			return nil, err
		}
	}
	o.sched = &scheduling{db: db, log: log}
	cfg.Scope, cfg.Clocked = within(cfg.Scope, o.sched.scope), o.sched.clocked
	o.chat = cfg
	return o, nil
}

// chatConfig is the service configuration every command shares: the
// model and the root scope of every turn, from the environment unless the
// application gives them, with the program's policy (Config.Policy, then
// rules) and requests trimmed to contextTokens, and the application's
// assistants with the elicit kinds they ask with, whose rules their
// answers are checked by. A rule of the
// application's that cannot be read stops the command, as a file's does.
func (p *program) chatConfig(ctx context.Context, command string, db *store.DB, rules []policy.Rule, contextTokens int, log *slog.Logger) (chat.Config, error) {
	provider := p.cfg.Model
	if provider == nil {
		var err error
		if provider, err = model(p.getenv); err != nil {
			return chat.Config{}, err
		}
	}
	if err := policy.Check(p.cfg.Policy...); err != nil {
		return chat.Config{}, fmt.Errorf("app.Config.Policy: %w", err)
	}
	root, err := rootScope(p.getenv, append(slices.Clip(p.cfg.Policy), rules...), contextTokens)
	if err != nil {
		return chat.Config{}, err
	}
	_, isOffline := provider.(*offline.Provider)
	assistants, scope := p.cfg.Assistants, p.cfg.Scope
	if p.cfg.Setup != nil {
		turns, err := p.cfg.Setup(ctx, Env{Command: command, DB: db.App(), Model: provider, Offline: isOffline, Getenv: p.getenv, Log: log})
		if err != nil {
			return chat.Config{}, err
		}
		if len(turns.Assistants) > 0 {
			if err := sameNames(p.cfg.Assistants, turns.Assistants); err != nil {
				return chat.Config{}, err
			}
			assistants = turns.Assistants
		}
		scope = within(scope, turns.Scope)
	}
	for _, a := range assistants {
		if err := policy.Check(a.Policy...); err != nil {
			return chat.Config{}, fmt.Errorf("the policy of assistant %s: %w", a.Name, err)
		}
	}
	return chat.Config{
		Store:      db,
		Log:        log,
		Assistants: registry.New(assistants...),
		Model:      provider,
		Kinds:      kindset.New(append(elicit.BuiltinKinds(), p.pluginKinds()...)...),
		Scope:      within(within(root, p.pluginScope()), scope),
		// The offline model cannot weigh words: a plain rule decides what a
		// message typed while a question waits is.
		DecideByRule: isOffline,
		// The files people send are read for the model from the store, in
		// every command: a turn resumed at the terminal or checked before
		// a deploy is given them as the server gave them.
		Files: files.New(db, files.Options{}),
	}, nil
}

// within returns the scope that makes a turn's context with outer, then
// inner inside it; either may be nil.
func within(outer, inner func(context.Context) context.Context) func(context.Context) context.Context {
	switch {
	case inner == nil:
		return outer
	case outer == nil:
		return inner
	}
	return func(ctx context.Context) context.Context { return inner(outer(ctx)) }
}

// sameNames checks that Setup's assistants are Config's, by name, with
// the same default: the help, which runs no Setup, names Config's.
func sameNames(declared, made []agents.Assistant) error {
	names := func(as []agents.Assistant) []string {
		out := make([]string, len(as))
		for i, a := range as {
			out[i] = a.Name
		}
		slices.Sort(out)
		return out
	}
	if d, m := names(declared), names(made); !slices.Equal(d, m) {
		return fmt.Errorf("setup made the assistants %q, but app.Config.Assistants, which the help names, are %q", m, d)
	}
	if made[0].Name != declared[0].Name {
		return fmt.Errorf("setup made %s the default assistant, but the help names app.Config.Assistants' first, %s", made[0].Name, declared[0].Name)
	}
	return nil
}

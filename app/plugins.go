package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/internal/pluginhost"
	"github.com/sweatpants-go/sweatpants/internal/plugintools"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/telemetry"
	"github.com/sweatpants-go/sweatpants/internal/transport"
	"github.com/sweatpants-go/sweatpants/plugin"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// Plugins (docs/plugins.md). The program reads each plugin's parts once,
// checks them all before any command runs, and then wires each part where
// the application's own would go: routes beside the pages, commands in
// the table, tool sources and scopes in every turn's context, kinds with
// the application's, migrations and Start in open, Stop when it closes.

// plug is one plugin of the program with what it contributes.
type plug struct {
	name  string
	parts plugin.Parts
	// ext is a built-in plugin's extension; nil for any other.
	ext pluginhost.Extension
}

// builtinPlugins are the program's own plugins, before the application's:
// telemetry, the MCP client and the MCP server.
func (p *program) builtinPlugins() []plugin.Plugin {
	server := mcp.NewPlugin(mcp.PluginConfig{Name: p.cfg.Name, Version: buildVersion(p.cfg.Name), Agents: p.cfg.Agents,
		OwnNames: p.cfg.MCP.OwnNames, Extension: p.cfg.MCP.Extension.extension(), Tasks: tasks(p.cfg.MCP.Tasks)})
	return []plugin.Plugin{telemetry.NewPlugin(moduleVersion()), mcpconn.NewPlugin(p.cfg.Name, buildVersion(p.cfg.Name), p.cfg.MCPServers), server}
}

// extensions are the built-in plugins' extensions (package pluginhost).
func (p *program) extensions() []pluginhost.Extension {
	var out []pluginhost.Extension
	for _, pl := range p.plugs {
		if pl.ext != nil {
			out = append(out, pl.ext)
		}
	}
	return out
}

// readPlugins reads the parts of the application's plugins and checks
// what can be checked without a command: names, commands, kinds, forms,
// modules, flags and migrations. Routes are checked by serve, against the
// routes it serves.
func (p *program) readPlugins() error {
	p.plugs = nil
	seen := map[string]bool{}
	builtin := p.builtinPlugins()
	for i, pl := range append(builtin, p.cfg.Plugins...) {
		i -= len(builtin)
		if a, ok := pl.(pluginhost.Attacher); ok {
			a.Attach(p)
		}
		if pl == nil {
			return fmt.Errorf("app.Config.Plugins[%d] is nil", i)
		}
		name := pl.Name()
		if name == "" {
			return fmt.Errorf("app.Config.Plugins[%d] has no name", i)
		}
		if seen[name] {
			return fmt.Errorf("two plugins are named %q: a plugin's name must be its own", name)
		}
		seen[name] = true
		ext, _ := pl.(pluginhost.Extension)
		p.plugs = append(p.plugs, plug{name, pl.Parts(), ext})
	}
	checks := []func() error{p.checkPluginCommands, p.checkPluginKinds, p.checkPluginFlags}
	for _, pl := range p.plugs {
		checks = append(checks, func() error {
			if _, err := migrationVersions(pl.parts.Migrations); err != nil {
				return fmt.Errorf("plugin %s: %w", pl.name, err)
			}
			return nil
		})
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkPluginCommands refuses a plugin's command named as the program's or
// another plugin's.
func (p *program) checkPluginCommands() error {
	owner := map[string]string{}
	for _, c := range p.ownCommands() {
		owner[c.name] = "the program"
	}
	for _, pl := range p.plugs {
		for _, c := range pl.parts.Commands {
			if c.Name == "" || strings.HasPrefix(c.Name, "-") || c.Run == nil {
				return fmt.Errorf("plugin %s: a command needs a name that does not start with - and a Run", pl.name)
			}
			if was, dup := owner[c.Name]; dup {
				return fmt.Errorf("plugin %s: the command %q is %s's already", pl.name, c.Name, was)
			}
			owner[c.Name] = "plugin " + pl.name
		}
	}
	return nil
}

// checkPluginKinds refuses a kind, a component, a prompter or a browser
// module that a plugin names as the application or another plugin does.
func (p *program) checkPluginKinds() error {
	type part struct {
		what  string
		names func(pl plugin.Parts) []string
	}
	kindNames := func(ks []elicit.Registered) []string {
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = k.KindName()
		}
		return out
	}
	parts := []part{
		{"elicit kind", func(pp plugin.Parts) []string { return kindNames(pp.Kinds) }},
		{"browser component", func(pp plugin.Parts) []string { return slices.Collect(maps.Keys(pp.Components)) }},
		{"terminal prompter", func(pp plugin.Parts) []string { return slices.Collect(maps.Keys(pp.Prompters)) }},
		{"browser module", func(pp plugin.Parts) []string { return moduleNames(pp.Modules) }},
	}
	app := plugin.Parts{Kinds: append(elicit.BuiltinKinds(), p.cfg.Kinds...), Components: p.cfg.Components, Prompters: p.cfg.Prompters, Modules: p.cfg.Modules}
	for _, pt := range parts {
		owner := map[string]string{}
		for _, n := range pt.names(app) {
			owner[n] = "the application"
		}
		for _, pl := range p.plugs {
			for _, n := range slices.Sorted(slices.Values(pt.names(pl.parts))) {
				if was, dup := owner[n]; dup {
					return fmt.Errorf("plugin %s: the %s %q is %s's already", pl.name, pt.what, n, was)
				}
				owner[n] = "plugin " + pl.name
			}
		}
	}
	return nil
}

// moduleNames are the browser modules of fsys: its *.js files at the root.
func moduleNames(fsys fs.FS) []string {
	if fsys == nil {
		return nil
	}
	names, _ := fs.Glob(fsys, "*.js")
	return slices.DeleteFunc(names, func(n string) bool {
		info, err := fs.Stat(fsys, n)
		return err != nil || info.IsDir()
	})
}

// checkPluginFlags refuses a plugin's flag that a command that runs turns
// has already, the program's or the application's, or that another
// plugin defines.
func (p *program) checkPluginFlags() error {
	bare := *p
	bare.plugs = nil
	sets := []*flag.FlagSet{bare.serveFlags(&serveConfig{}), bare.chatFlags(&chatConfig{}),
		bare.checkFlags(new(string), &ruleFile{}, new(int))}
	for _, fs := range sets {
		if err := p.pluginFlags(fs); err != nil {
			return err
		}
	}
	// A plugin's command that runs turns defines the plugins' flags
	// through TurnFlags, which keeps the first clash.
	p.flagsErr = nil
	for _, pl := range p.plugs {
		for _, c := range pl.parts.Commands {
			if c.Flags != nil {
				c.Flags(flag.NewFlagSet(c.Name, flag.ContinueOnError))
			}
			if p.flagsErr != nil {
				return p.flagsErr
			}
		}
	}
	return nil
}

// TurnFlags implements pluginhost.Host: the flags of a built-in plugin's
// command that runs turns, as the program's own commands that do have
// them, and what opens its turns.
func (p *program) TurnFlags(fs *flag.FlagSet) func(ctx context.Context, command, db string, log *slog.Logger) (*pluginhost.Opened, error) {
	var rules ruleFile
	var contextTokens int
	fs.Var(policyFlag{&rules}, "policy", policyUsage)
	contextTokensFlag(fs, &contextTokens, "")
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	if err := p.pluginFlags(fs); err != nil && p.flagsErr == nil {
		p.flagsErr = err
	}
	return func(ctx context.Context, command, db string, log *slog.Logger) (*pluginhost.Opened, error) {
		o, err := p.open(ctx, command, db, rules.rules, contextTokens, store.Options{}, log)
		if err != nil {
			return nil, err
		}
		return &pluginhost.Opened{DB: o.db, Chat: o.chat, Close: o.close}, nil
	}
}

// pluginFlags defines the plugins' flags on fs, a command's that runs
// turns; a flag whose name is taken is left out, and the first such is
// the error (readPlugins has refused them before any command).
func (p *program) pluginFlags(fs *flag.FlagSet) error {
	var first error
	owner := map[string]string{}
	for _, pl := range p.plugs {
		if pl.parts.Flags == nil {
			continue
		}
		own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		pl.parts.Flags(own)
		own.VisitAll(func(f *flag.Flag) {
			if fs.Lookup(f.Name) != nil {
				if first == nil {
					was := cmpOr(owner[f.Name], "the program or the application")
					first = fmt.Errorf("plugin %s: the flag --%s of %s is %s's already", pl.name, f.Name, fs.Name(), was)
				}
				return
			}
			owner[f.Name] = "plugin " + pl.name
			fs.Var(f.Value, f.Name, f.Usage)
		})
	}
	return first
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// pluginCommands are the plugins' commands as the program's table holds
// them: each reads its flags from the command line and the environment as
// the program's own do.
func (p *program) pluginCommands() []command {
	var out []command
	for _, pl := range p.plugs {
		for _, c := range pl.parts.Commands {
			flags := func() *flag.FlagSet {
				fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
				if c.Flags != nil {
					c.Flags(fs)
				}
				return fs
			}
			help := c.Help
			if help == "" {
				help = strings.ToUpper(c.Does[:min(1, len(c.Does))]) + c.Does[min(1, len(c.Does)):] + "."
			}
			synopsis := strings.TrimSpace(fmt.Sprintf("Usage: %s %s %s", p.cfg.Name, c.Name, c.Args)) + "\n\n" + wrap(help)
			out = append(out, command{name: c.Name, args: c.Args, does: c.Does,
				run: func(ctx context.Context, args []string) error {
					fs := flags()
					err := parseFlags(fs, synopsis, args, p.getenv, p.stdout)
					if errors.Is(err, flag.ErrHelp) {
						return nil
					}
					if err != nil {
						return err
					}
					err = c.Run(ctx, plugin.CommandEnv{Stdin: p.stdin, Stdout: p.stdout, Stderr: p.stderr, Getenv: p.getenv})
					if u := (*pluginhost.UsageError)(nil); errors.As(err, &u) {
						return &usageError{u.Command, u.Err}
					}
					return err
				},
				help: func() { printFlags(p.stdout, flags(), synopsis) }})
		}
	}
	return out
}

// pluginScope makes a turn's context with each plugin's scope, in the
// order of Config.Plugins, and the plugins' tool sources for plugin.Tools.
func (p *program) pluginScope() func(context.Context) context.Context {
	sources := map[string]agents.ToolSource{}
	var scope func(context.Context) context.Context
	for _, pl := range p.plugs {
		if pl.parts.Tools != nil {
			sources[pl.name] = pl.parts.Tools
		}
		scope = within(scope, pl.parts.Scope)
	}
	if len(sources) == 0 {
		return scope
	}
	return within(func(ctx context.Context) context.Context { return plugintools.With(ctx, sources) }, scope)
}

// pluginKinds are the application's kinds with the plugins'.
func (p *program) pluginKinds() []elicit.Registered {
	out := slices.Clip(p.cfg.Kinds)
	for _, pl := range p.plugs {
		out = append(out, pl.parts.Kinds...)
	}
	return out
}

// components are the application's browser components with the plugins'.
func (p *program) components() component.Set {
	out := maps.Clone(p.cfg.Components)
	for _, pl := range p.plugs {
		if out == nil && len(pl.parts.Components) > 0 {
			out = component.Set{}
		}
		maps.Copy(out, pl.parts.Components)
	}
	return out
}

// prompters are the application's terminal prompters with the plugins'.
func (p *program) prompters() map[string]terminal.Prompter {
	out := maps.Clone(p.cfg.Prompters)
	for _, pl := range p.plugs {
		if out == nil && len(pl.parts.Prompters) > 0 {
			out = map[string]terminal.Prompter{}
		}
		maps.Copy(out, pl.parts.Prompters)
	}
	return out
}

// modules are the application's browser modules with the plugins', read
// once at start into one file system (their names were checked apart).
// It is the application's own when no plugin has any.
func (p *program) modules() (fs.FS, error) {
	if !slices.ContainsFunc(p.plugs, func(pl plug) bool { return pl.parts.Modules != nil }) {
		return p.cfg.Modules, nil
	}
	// MapFS is the standard library's file system held in a map: here,
	// the modules read from each.
	all := fstest.MapFS{}
	add := func(owner string, fsys fs.FS) error {
		for _, name := range moduleNames(fsys) {
			js, err := fs.ReadFile(fsys, name)
			if err != nil {
				return fmt.Errorf("%s: read the browser module %s: %w", owner, name, err)
			}
			all[name] = &fstest.MapFile{Data: js, Mode: 0o444}
		}
		return nil
	}
	if err := add("app.Config.Modules", p.cfg.Modules); err != nil {
		return nil, err
	}
	for _, pl := range p.plugs {
		if err := add("plugin "+pl.name, pl.parts.Modules); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// routes are the plugins' routes as the server mounts them, each named
// by its plugin for the server's check of clashes.
func (p *program) pluginRoutes() []transport.Mount {
	var out []transport.Mount
	for _, pl := range p.plugs {
		for _, r := range pl.parts.Routes {
			out = append(out, transport.Mount{Method: r.Method, Path: r.Path, Handler: r.Handler, Owner: "plugin " + pl.name})
		}
	}
	return out
}

// startPlugins applies each plugin's migrations and calls its Start, in
// the order of Config.Plugins. The stop it returns calls the Stop of each
// started, in the reverse order; it is set even when an error stops the
// start, for those started before it.
func (p *program) startPlugins(ctx context.Context, env plugin.Env, db *store.DB) (stop func(), err error) {
	var stops []func(context.Context) error
	stop = func() {
		for _, s := range slices.Backward(stops) {
			if err := s(context.WithoutCancel(ctx)); err != nil && env.Log != nil {
				env.Log.Warn("a plugin did not stop cleanly", "err", err)
			}
		}
	}
	for _, pl := range p.plugs {
		if pl.parts.Migrations != nil {
			if err := migratePlugin(ctx, db, pl.name, pl.parts.Migrations); err != nil {
				return stop, fmt.Errorf("plugin %s: %w", pl.name, err)
			}
		}
		if pl.parts.Start != nil {
			if err := pl.parts.Start(ctx, env); err != nil {
				return stop, fmt.Errorf("plugin %s: start: %w", pl.name, err)
			}
		}
		if pl.parts.Stop != nil {
			stops = append(stops, pl.parts.Stop)
		}
	}
	return stop, nil
}

// migratePlugin applies a plugin's migrations, recorded under its name
// with a prefix no application's Migrate name takes. Before, it refuses a
// migration the database had under a number that now holds another file,
// or none: a file added below one already applied, or renumbered, would
// never be applied, or be applied twice.
func migratePlugin(ctx context.Context, db *store.DB, name string, files fs.FS) error {
	record := "plugin:" + name
	versions, err := migrationVersions(files)
	if err != nil {
		return err
	}
	// Migrating nothing makes the table of records where there is none.
	if err := db.App().Migrate(ctx, record, fstest.MapFS{}); err != nil {
		return err
	}
	rows, err := db.App().QueryContext(ctx, `SELECT version, name FROM app_migrations WHERE app = $1 ORDER BY version`, record)
	if err != nil {
		return fmt.Errorf("read the migrations applied: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var had string
		if err := rows.Scan(&v, &had); err != nil {
			return fmt.Errorf("read the migrations applied: %w", err)
		}
		if now := versions[v]; now != had {
			return fmt.Errorf("the migrations are out of order: the database applied %s, which is %s now; "+
				"a migration applied keeps its number and a new one takes a number above the last", had, cmpOr(now, "gone"))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the migrations applied: %w", err)
	}
	return db.App().Migrate(ctx, record, files)
}

// migrationVersions reads the migrations of files: NNN_name.sql at the
// root, numbered from 1 with none missing or repeated, and numbered so
// that their names sort in the order of their numbers (the order they are
// applied in).
func migrationVersions(files fs.FS) (map[int]string, error) {
	if files == nil {
		return nil, nil
	}
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := map[int]string{}
	for i, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("the migration %s is not named NNN_name.sql", name)
		}
		if v != i+1 {
			return nil, fmt.Errorf("the migrations are out of order: %s is number %d of %q, want %03d (numbered from 001, none missing or repeated, with as many digits each)", name, i+1, names, i+1)
		}
		out[v] = name
	}
	return out, nil
}

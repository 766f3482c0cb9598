package mcpconn

import (
	"context"
	"errors"
	"flag"
	"os"
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/outsidetools"
	"github.com/sweatpants-go/sweatpants/internal/pluginhost"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
	"github.com/sweatpants-go/sweatpants/mcpclient"
	"github.com/sweatpants-go/sweatpants/plugin"
)

// Plugin is the MCP client as the program's built-in plugin: the
// servers of app.Config.MCPServers and of the file --mcp-servers names,
// in every turn's context for the sources of package mcpclient, started
// at once by serve and shown on its settings page. The check command,
// which only replays, never calls them. What it needs of serve it takes
// through pluginhost.Extension.
type Plugin struct {
	name, version string
	config        []mcpclient.Server
	file          serverFile
	servers       *Servers // nil: none
}

var _ pluginhost.Extension = (*Plugin)(nil)

// NewPlugin returns the MCP client of the program name at version, with
// the servers config (app.Config.MCPServers) before those of the file.
func NewPlugin(name, version string, config []mcpclient.Server) *Plugin {
	return &Plugin{name: name, version: version, config: config}
}

// Name implements plugin.Plugin.
func (p *Plugin) Name() string { return "mcp-client" }

// Parts implements plugin.Plugin.
func (p *Plugin) Parts() plugin.Parts {
	return plugin.Parts{
		Flags: func(fs *flag.FlagSet) {
			usage := serversUsage
			if fs.Name() == "check" {
				usage += "; give the server's (none is called)"
			}
			fs.Var(serversFlag{&p.file}, "mcp-servers", usage)
		},
		Start: func(ctx context.Context, env plugin.Env) error {
			all := append(slices.Clip(p.config), p.file.servers...)
			if len(all) == 0 {
				return nil
			}
			s, err := New(all, Options{Name: p.name, Version: p.version, Replay: env.Command == "check"})
			p.servers = s
			return err
		},
		Scope: func(ctx context.Context) context.Context {
			if p.servers == nil {
				return ctx
			}
			return outsidetools.With(ctx, p.servers)
		},
		// The servers close before the database: a command a server runs
		// as ends with the program.
		Stop: func(context.Context) error { p.servers.Close(); return nil },
	}
}

// Opening implements pluginhost.Extension; the client has no part in it.
func (p *Plugin) Opening(context.Context, *pluginhost.Opening) error { return nil }

// Configure implements pluginhost.Extension; the client has no part in it.
func (p *Plugin) Configure(context.Context, *chat.Config) error { return nil }

// Serving connects the servers at once, so that the settings page says
// how each is.
func (p *Plugin) Serving(ctx context.Context, s *pluginhost.Serving) error {
	p.servers.Start(ctx)
	s.MCPServers = func() []templates.MCPServer { return views(p.servers) }
	s.Logged = append(s.Logged, "mcp_servers", p.servers.Len())
	return nil
}

// views are the servers as the settings page shows them.
func views(s *Servers) []templates.MCPServer {
	var out []templates.MCPServer
	for _, st := range s.States() {
		v := templates.MCPServer{Name: st.Name, Where: st.Where, Status: string(st.Status), Err: st.Err, Since: st.Since}
		for _, t := range st.Tools {
			v.Tools = append(v.Tools, templates.MCPTool{Name: t.Name, Description: t.Description})
		}
		out = append(out, v)
	}
	return out
}

// serverFile is a file of outside MCP servers, read and checked when the
// flag is set, so that a file that cannot be read stops the program
// before anything starts, naming what is wrong in it.
type serverFile struct {
	path    string
	servers []mcpclient.Server
}

// serversFlag sets a serverFile.
type serversFlag struct{ p *serverFile }

func (f serversFlag) Set(path string) error {
	if path == "" {
		return errors.New("want a file of MCP servers")
	}
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	servers, err := mcpclient.Parse(path, file)
	if err != nil {
		return err
	}
	*f.p = serverFile{path: path, servers: servers}
	return nil
}

func (f serversFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.path
}

const serversUsage = `file of outside MCP servers whose tools the assistants may use, as {"mcpServers": {"NAME": {"command": …} or {"url": …, "token": …}}} (docs/mcp.md; default: none)`

package app

import (
	"errors"
	"os"
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// Outside MCP servers. The tools of the servers of Config.MCPServers and
// of the file --mcp-servers names are offered by every Loop whose Sources
// hold mcpclient.All (docs/mcp.md): the servers reach every turn through
// its context.

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

// outside makes the program's outside servers: the application's, then
// the file's. None is a nil *Servers, which offers no tools.
// The check, which only replays, never calls them.
func (p *program) outside(command string, file serverFile) (*mcpconn.Servers, error) {
	all := append(slices.Clip(p.cfg.MCPServers), file.servers...)
	if len(all) == 0 {
		return nil, nil
	}
	return mcpconn.New(all, mcpconn.Options{Name: p.cfg.Name, Version: buildVersion(p.cfg.Name), Replay: command == CheckCommand})
}

// serverViews are the outside servers as the settings page shows them.
func serverViews(s *mcpconn.Servers) []templates.MCPServer {
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

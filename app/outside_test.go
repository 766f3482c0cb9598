package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// TestABadServersFileStopsTheProgram: serve, chat and check read the file
// --mcp-servers (or SWEATPANTS_MCP_SERVERS) names before anything starts,
// and refuse one that cannot be read as a bad command line, saying what
// is wrong in it.
func TestABadServersFileStopsTheProgram(t *testing.T) {
	misspelt := writeFile(t, "misspelt.json", `{"mcpServers": {"files": {"comand": "mcp-files"}}}`)
	neither := writeFile(t, "neither.json", `{"mcpServers": {"files": {"args": ["x"]}}}`)
	for _, cmd := range []string{"serve", "chat", "check"} {
		tests := []struct {
			name string
			args []string
			env  map[string]string
			want string
		}{
			{"a misspelt setting", []string{"--mcp-servers", misspelt}, nil,
				fmt.Sprintf("invalid value %q for flag -mcp-servers: %s: json: unknown field \"comand\"", misspelt, misspelt)},
			{"a server with no command or url, by the variable", nil, map[string]string{"SWEATPANTS_MCP_SERVERS": neither},
				fmt.Sprintf("invalid value %q for SWEATPANTS_MCP_SERVERS: %s: server files: give a command or a url", neither, neither)},
		}
		for _, tt := range tests {
			t.Run(cmd+" "+tt.name, func(t *testing.T) {
				db := filepath.Join(t.TempDir(), "x.db")
				p := newProgram(testConfig(), func(k string) string { return tt.env[k] }, strings.NewReader(""), io.Discard, io.Discard)
				err := p.run(t.Context(), append([]string{cmd, "--db", db}, tt.args...))
				var usage *usageError
				if !errors.As(err, &usage) || usage.cmd != cmd {
					t.Fatalf("got %v, want a usage error of %s (exit 2)", err, cmd)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("got %v, want it to say %q", err, tt.want)
				}
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("the database was opened (%v): the refusal came too late", err)
				}
			})
		}
	}
	out, _, err := runWith(testConfig(), "help", "serve")
	if err != nil || !strings.Contains(out, "--mcp-servers (SWEATPANTS_MCP_SERVERS)") {
		t.Errorf("help serve does not list --mcp-servers (%v):\n%s", err, out)
	}
}

// TestTheServersReachEveryTurn: the servers of app.Config.MCPServers and
// of the file --mcp-servers names are in every turn's context, where a
// Loop's mcpclient.All finds them; none is none.
func TestTheServersReachEveryTurn(t *testing.T) {
	lister := agents.Assistant{Name: "lister", Turn: func(ctx context.Context, message string) (string, error) {
		var names []string
		for _, s := range mcpconn.From(ctx).States() {
			names = append(names, s.Name+" at "+s.Where)
		}
		return "servers: " + strings.Join(names, ", "), nil
	}}
	cfg := Config{Name: testName, Assistants: []agents.Assistant{lister},
		MCPServers: []mcpclient.Server{{Name: "search", URL: "https://search.example/mcp", Token: "t"}}}
	file := writeFile(t, "servers.json", `{"mcpServers": {"files": {"command": "mcp-files", "args": ["--root", "/srv"], "env": {"K": "secret"}}}}`)
	run := func(args ...string) string {
		var out strings.Builder
		p := newProgram(cfg, func(string) string { return "" }, strings.NewReader("which?\n"), &out, io.Discard)
		if err := p.run(t.Context(), append([]string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}, args...)); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got, want := run("--mcp-servers", file), "servers: search at https://search.example/mcp, files at mcp-files --root /srv"; !strings.Contains(got, want) {
		t.Errorf("with the file, the turn saw:\n%s\nwant %q", got, want)
	}
	cfg.MCPServers = nil
	if got, want := run(), "servers: \n"; !strings.Contains(got, want) {
		t.Errorf("with none, the turn saw:\n%s\nwant %q", got, want)
	}
}

package mcpclient_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// TestAServersFileNamesWhatItsCommandInherits: inheritEnv names the
// program's variables a command gets; it is refused for a server by URL
// (which runs no command) and with a name no variable can have.
func TestAServersFileNamesWhatItsCommandInherits(t *testing.T) {
	servers, err := mcpclient.Parse("ok.json", strings.NewReader(`{"mcpServers": {"files": {"command": "mcp-files", "env": {"LOG": "warn"}, "inheritEnv": ["HTTPS_PROXY", "SSL_CERT_FILE"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := servers[0].InheritEnv, []string{"HTTPS_PROXY", "SSL_CERT_FILE"}; !slices.Equal(got, want) {
		t.Errorf("inheritEnv is %q, want %q", got, want)
	}
	for _, tt := range []struct{ name, file, want string }{
		{"for a url", `{"mcpServers": {"search": {"url": "https://search.example/mcp", "inheritEnv": ["HOME"]}}}`,
			"server search: inheritEnv is for a command, and a url runs none"},
		{"a name with =", `{"mcpServers": {"files": {"command": "mcp-files", "inheritEnv": ["A=B"]}}}`,
			`server files: "A=B" is not the name of an environment variable`},
		{"an empty name in env", `{"mcpServers": {"files": {"command": "mcp-files", "env": {"": "x"}}}}`,
			`server files: "" is not the name of an environment variable`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcpclient.Parse("bad.json", strings.NewReader(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

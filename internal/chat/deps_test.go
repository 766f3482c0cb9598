package chat_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The live conversation is domain code: it links no HTTP, as it links no
// SQL driver, so that whatever carries it (the browser's stream, the
// terminal, MCP over stdio) is an adapter above it.
func TestChatLinksNoHTTPOrSQL(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{"net/http", "database/sql"} {
		if slices.Contains(deps, banned) {
			t.Errorf("internal/chat depends on %s", banned)
		}
	}
}

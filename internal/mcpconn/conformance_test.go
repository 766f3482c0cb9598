package mcpconn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/mcpclient"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// The client side of the official conformance suite. The suite runs a
// client program against a server of its own for each scenario: this
// test binary is that program (TestMain runs conformanceClient when the
// suite sets MCP_CONFORMANCE_SCENARIO), a client made of package
// mcpclient as the program's turns use it.

// clientScenarios are the client scenarios issue #28 names.
var clientScenarios = []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "request-metadata"}

// TestConformanceClientScenarios runs each scenario of the suite against
// this package's client, when the Makefile says where node 22 and the
// suite are (MCP_NODE, MCP_CONFORMANCE).
func TestConformanceClientScenarios(t *testing.T) {
	node, suite := os.Getenv("MCP_NODE"), os.Getenv("MCP_CONFORMANCE")
	if node == "" || suite == "" {
		t.Skip("MCP_NODE and MCP_CONFORMANCE are unset: the conformance suite is not installed (make test installs it and sets them)")
	}
	for _, scenario := range clientScenarios {
		t.Run(scenario, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.CommandContext(t.Context(), node, suite, "client", "--command", os.Args[0], "--scenario", scenario, "-o", out)
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
			res, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(res), "OVERALL: PASSED") {
				t.Errorf("scenario %s failed (%v):\n%s", scenario, err, res)
			}
		})
	}
}

// conformanceClient is the client program the suite runs: it connects to
// the server at url as an outside server of the program's, lists its
// tools as a turn does, and makes the scenario's call, a question of the
// server's answered as a user who accepts the form as it is (its
// defaults) would. It returns the exit code.
func conformanceClient(scenario, url string) int {
	if err := runScenario(scenario, url); err != nil {
		fmt.Fprintf(os.Stderr, "scenario %s: %v\n", scenario, err)
		return 1
	}
	return 0
}

func runScenario(scenario, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	servers, err := mcpconn.New([]mcpclient.Server{{Name: "conformance", URL: url}}, mcpconn.Options{Name: "sweatpants-conformance", Version: "1"})
	if err != nil {
		return err
	}
	defer servers.Close()
	// What a turn gives a tool: a scope numbering its calls, and someone
	// to answer its questions.
	ctx = durable.WithScope(mcpconn.With(ctx, servers), "conformance")
	ctx = primitive.Provide(ctx, middleware.Elicit, func(context.Context, elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{}`)}, nil
	})
	tools, err := mcpclient.All().Tools(ctx)
	if err != nil {
		return err
	}
	call := map[string]struct{ tool, input string }{
		"tools_call":                          {"add_numbers", `{"a":5,"b":3}`},
		"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
		"sse-retry":                           {"test_reconnection", `{}`},
	}[scenario]
	if call.tool == "" {
		return nil // initialize, request-metadata: connected and listed
	}
	for _, t := range tools {
		if t.Info().Name == call.tool {
			out, err := agents.CallJSON(ctx, t, json.RawMessage(call.input))
			fmt.Fprintf(os.Stderr, "%s: %s\n", call.tool, out)
			return err
		}
	}
	return fmt.Errorf("the server lists no tool %s", call.tool)
}

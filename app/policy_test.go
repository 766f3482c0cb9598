package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/policy"
)

// writeFile writes content to a file named name in a test's directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// gatekeeper is an assistant whose turn asks the policy about a few tool
// calls and replies with its decisions, one a line.
func gatekeeper() agents.Assistant {
	calls := []policy.Call{
		{Agent: "files", Tool: "delete_all", Effects: policy.Writes},
		{Agent: "flights", Tool: "book", Args: json.RawMessage(`{"price":600}`), Effects: policy.Spends},
		{Agent: "flights", Tool: "book", Args: json.RawMessage(`{"price":300}`), Effects: policy.Spends},
		{Agent: "weather", Tool: "now"},
		{Agent: "mail", Tool: "send", Effects: policy.Writes},
	}
	return agents.Assistant{Name: "gatekeeper", Turn: func(ctx context.Context, message string) (string, error) {
		var b strings.Builder
		for _, c := range calls {
			d := policy.Decide(ctx, c, nil)
			fmt.Fprintf(&b, "%s/%s %s: %s by %s %s\n", c.Agent, c.Tool, c.Args, d.Action, d.By, d.Rule)
		}
		return b.String(), nil
	}}
}

// TestTheProgramsPolicyDecidesEveryTurn: the rules of app.Config.Policy
// and of the file --policy names are the program's level of every turn's
// policy, the application's first; what the application's own scope sets
// inside narrows it and cannot widen it.
func TestTheProgramsPolicyDecidesEveryTurn(t *testing.T) {
	file := writeFile(t, "policy.rules", "# the operator's\nfinalDeny */delete*\nallow flights/*\n")
	cfg := Config{Name: testName, Assistants: []agents.Assistant{gatekeeper()},
		Policy: []policy.Rule{{Action: policy.Ask, Tool: "flights/book", When: policy.If("price", ">", 500), Source: "app"}},
		// The application's scope tries to allow everything: it is inside
		// the program's level, so it lifts nothing.
		Scope: func(ctx context.Context) context.Context {
			return policy.Program(ctx, policy.Rule{Action: policy.Allow, Tool: "*", Source: "scope"})
		},
	}
	var out strings.Builder
	p := newProgram(cfg, func(string) string { return "" }, strings.NewReader("which may run?\n"), &out, io.Discard)
	if err := p.run(t.Context(), []string{"chat", "--db", filepath.Join(t.TempDir(), "x.db"), "--policy", file}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"files/delete_all : finalDeny by rule finalDeny */delete* (policy.rules:2)",
		`flights/book {"price":600}: ask by rule ask flights/book if price > 500 (app)`,
		`flights/book {"price":300}: allow by rule allow flights/* (policy.rules:3)`,
		"weather/now : allow by default",
		"mail/send : ask by default",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the turn did not decide %q:\n%s", want, &out)
		}
	}

	// Without --policy the application's rules stand alone.
	out.Reset()
	p = newProgram(cfg, func(string) string { return "" }, strings.NewReader("and now?\n"), &out, io.Discard)
	if err := p.run(t.Context(), []string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"files/delete_all : ask by default", `flights/book {"price":600}: ask by rule`, `flights/book {"price":300}: ask by default`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("without the file, the turn did not decide %q:\n%s", want, &out)
		}
	}
}

// TestABadPolicyFileStopsTheProgram: serve, chat and check read the file
// --policy (or SWEATPANTS_POLICY) names before anything starts, and refuse
// one that cannot be read as a bad command line, naming each bad line.
func TestABadPolicyFileStopsTheProgram(t *testing.T) {
	bad := writeFile(t, "bad.rules", "allow weather/*\npermit flights/*\nask flights/book if price >> 500\n")
	missing := filepath.Join(t.TempDir(), "missing.rules")
	for _, cmd := range []string{"serve", "chat", "check"} {
		tests := []struct {
			name string
			args []string
			env  map[string]string
			want []string
		}{
			{"the flag", []string{"--policy", bad}, nil, []string{
				fmt.Sprintf("invalid value %q for flag -policy: %s:2: unknown action \"permit\" (want allow, ask, deny or finalDeny)", bad, bad),
				fmt.Sprintf("\n%s:3: unknown operator \">>\"", bad)}},
			{"the variable", nil, map[string]string{"SWEATPANTS_POLICY": bad}, []string{
				fmt.Sprintf("invalid value %q for SWEATPANTS_POLICY: %s:2: unknown action", bad, bad)}},
			{"a file that is not there", []string{"--policy", missing}, nil, []string{
				fmt.Sprintf("invalid value %q for flag -policy: open %s: no such file or directory", missing, missing)}},
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
				for _, want := range tt.want {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("got %v, want it to say %q", err, want)
					}
				}
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("the database was opened (%v): the refusal came too late", err)
				}
			})
		}
	}
	out, _, err := runWith(testConfig(), "help", "serve")
	if err != nil || !strings.Contains(out, "--policy (SWEATPANTS_POLICY)") {
		t.Errorf("help serve does not list --policy (%v):\n%s", err, out)
	}
}

// TestAnApplicationsRulesAreChecked: a rule an application builds in code
// that cannot be read — in Config.Policy or an assistant's Policy — stops
// the program at start, naming where it is and what is wrong, rather than
// fail closed unseen in every turn.
func TestAnApplicationsRulesAreChecked(t *testing.T) {
	cfg := testConfig()
	cfg.Policy = []policy.Rule{{Action: "permit", Tool: "weather/*", Source: "app"}}
	_, _, err := runWith(cfg, "chat", "--db", filepath.Join(t.TempDir(), "x.db"))
	if err == nil || !strings.Contains(err.Error(), `app.Config.Policy: rule permit weather/* (app): unknown action "permit"`) {
		t.Errorf("a bad rule of the application: %v", err)
	}
	cfg = testConfig()
	cfg.Assistants[1].Policy = []policy.Rule{{Action: policy.Deny, Tool: "files/[a-", Source: "agent echo"}}
	_, _, err = runWith(cfg, "chat", "--db", filepath.Join(t.TempDir(), "x.db"))
	if err == nil || !strings.Contains(err.Error(), `the policy of assistant echo: rule deny files/[a- (agent echo): bad glob "[a-"`) {
		t.Errorf("a bad rule of an assistant: %v", err)
	}
}

package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/policy"
)

// TestAnEditTheRulesForbidIsAskedAgain: arguments a client edits on an
// approval into ones a rule forbids are refused, and the client is asked
// again, told which rule refused them; the call then runs as the client
// answers the second time.
func TestAnEditTheRulesForbidIsAskedAgain(t *testing.T) {
	eachRevision(t, testAnEditTheRulesForbidIsAskedAgain)
}

func testAnEditTheRulesForbidIsAskedAgain(t *testing.T, rev string) {
	forbid := policy.Rule{Action: policy.Deny, Tool: "notes/keep", When: policy.If("greeting", "~", "*password*")}
	tools := mcp.NewTools(testAgents()...)
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true,
		Scope: func(ctx context.Context) context.Context { return policy.Program(ctx, forbid) }})
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: chat.NewSessionID(), Name: "sweatpants-test", Version: "test"})
	var (
		mu    sync.Mutex
		asked []string
	)
	opts := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Message)
		if len(asked) == 1 {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": "once", "args": `{"greeting":"my password"}`}}, nil
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": "once"}}, nil
	}}
	cs := connectHTTPAt(t, rev, mcp.Handler(srv, "", nil), opts, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "notes.keep", Arguments: map[string]any{"greeting": "milk"}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || !strings.HasPrefix(asked[1], "Your answer was refused: ") || !strings.Contains(asked[1], forbid.String()) {
		t.Fatalf("the client was asked %q; want the approval asked again, saying the rule %q refused the edit", asked, forbid)
	}
	if res.IsError || text(res) != `{"text":"kept milk"}` {
		t.Errorf("result = %q (error: %v); want the call as asked, kept", text(res), res.IsError)
	}
}

package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/turn"
)

// TestKindsAClientCannotShowAreAskedAsForms: the device's location and the
// clipboard, which an MCP client has no way to reach, are asked as forms of
// their answers, the message carrying what the browser's card would show
// (the text to copy); the answers are recorded as the kinds' own.
func TestKindsAClientCannotShowAreAskedAsForms(t *testing.T) { eachRevision(t, testKindsAsForms) }

func testKindsAsForms(t *testing.T, rev string) {
	a := agents.New("desk", "Uses the device.")
	agents.NewTool(a, "share", "Copies a code and asks where the user is", func(ctx context.Context, _ struct{}) (string, error) {
		w, err := turn.Ask(ctx, elicit.WriteClipboard, "Copy your booking code", elicit.ClipboardWriteInput{Text: "ABC-123"})
		if err != nil {
			return "", err
		}
		l, err := turn.Ask(ctx, elicit.LocateDevice, "Where are you?", elicit.LocationInput{Accuracy: "low"})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("copied=%v at %.1f,%.1f", w.Content.Copied, l.Content.Lat, l.Content.Lng), nil
	})
	tools := mcp.NewTools(a)
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: chat.NewSessionID(), Name: "t", Version: "1"})
	var (
		mu    sync.Mutex
		asked []string
	)
	opts := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		mu.Unlock()
		if strings.HasPrefix(req.Params.Message, "Copy") {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"copied": true}}, nil
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"lat": 59.9, "lng": 10.7}}, nil
	}}
	cs := connectHTTPAt(t, rev, mcp.Handler(srv, "", nil), opts, nil)
	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "desk.share", Arguments: map[string]any{}})); got != `"copied=true at 59.9,10.7"` {
		t.Errorf("result = %s; want both answers taken", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || !strings.Contains(asked[0], "ABC-123") {
		t.Errorf("asked %q; want the clipboard's question with the text to copy, then the location's", asked)
	}
}

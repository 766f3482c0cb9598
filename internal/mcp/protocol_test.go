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
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/protocol"
)

type spotArgs struct {
	Accuracy string `json:"accuracy"`
}

type spotProgress struct {
	Status string `json:"status"`
}

type spot struct {
	Lat float64 `json:"lat" min:"-90" max:"90"`
	Lng float64 `json:"lng" min:"-180" max:"180"`
}

type stroke struct {
	X, Y int
}

type signature struct {
	Strokes []stroke `json:"strokes"`
}

var (
	// getSpot's result is a flat form: a client can answer it for the
	// device. sign's is not: a list of strokes no form holds.
	getSpot = somewhere(protocol.Declare[spotArgs, spotProgress, spot]("get-spot", "Share where you are"))
	sign    = protocol.Declare[struct{}, spotProgress, signature]("sign", "Sign with a finger")
)

// somewhere gives m a rule of its own, beyond its result's schema: no
// device is at 0,0.
func somewhere(m *protocol.Method[spotArgs, spotProgress, spot]) *protocol.Method[spotArgs, spotProgress, spot] {
	m.Check(func(_ spotArgs, s spot) elicit.FieldErrors {
		if s.Lat == 0 && s.Lng == 0 {
			return elicit.FieldErrors{{Field: "lat", Message: "is in the sea off Africa: no device is there"}}
		}
		return nil
	})
	return m
}

// methodServer is the MCP server of an agent whose tool "desk.locate"
// calls getSpot and "desk.sign" calls sign, each saying how the call
// ended.
func methodServer(t *testing.T) *mcp.Server {
	t.Helper()
	a := agents.New("desk", "Uses the device.")
	agents.NewTool(a, "locate", "Asks where the user is", func(ctx context.Context, _ struct{}) (string, error) {
		out, err := protocol.Invoke(ctx, getSpot, "Where are you?", spotArgs{Accuracy: "high"}, nil)
		return fmt.Sprintf("%s %.1f,%.1f", out.Status, out.Result.Lat, out.Result.Lng), err
	})
	agents.NewTool(a, "sign", "Asks for a signature", func(ctx context.Context, _ struct{}) (string, error) {
		out, err := protocol.Invoke(ctx, sign, "Sign here", struct{}{}, nil)
		return fmt.Sprintf("%s %d strokes", out.Status, len(out.Result.Strokes)), err
	})
	tools := mcp.NewTools(a)
	kinds := kindset.New(getSpot, sign)
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true, Kinds: kinds})
	return mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Kinds: kinds, Owner: chat.NewSessionID(), Name: "t", Version: "1"})
}

// TestAMethodIsAskedAsAFormOrUnsupported: a method a conversation over MCP
// calls is asked of the client as a form of its result when one holds it,
// the answer checked as a browser's is (a result the method's rules refuse
// is not recorded, and the client is asked again, told why); a method no form holds, and any method for a client
// that cannot be asked, is answered unsupported at once, the client never
// asked.
func TestAMethodIsAskedAsAFormOrUnsupported(t *testing.T) { eachRevision(t, testMethodsOverMCP) }

func testMethodsOverMCP(t *testing.T, rev string) {
	srv := methodServer(t)
	var (
		mu    sync.Mutex
		asked []string
	)
	opts := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Message)
		if len(asked) == 1 {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"lat": 0.0, "lng": 0.0}}, nil
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"lat": 59.9, "lng": 10.7}}, nil
	}}
	cs := connectHTTPAt(t, rev, mcp.Handler(srv, "", nil), opts, nil)
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}

	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "desk.locate", Arguments: map[string]any{}})); got != `"done 59.9,10.7"` {
		t.Errorf("locate = %s; want the client's second answer, done", got)
	}
	if a := seen(); len(a) != 2 || !strings.HasPrefix(a[0], "Where are you?") || !strings.HasPrefix(a[1], "Your answer was refused") || !strings.Contains(a[1], "no device is there") {
		t.Errorf("asked %q; want the method's form, then again saying why its first answer was refused", a)
	}

	res := callTool(t, cs, &sdk.CallToolParams{Name: "desk.sign", Arguments: map[string]any{}})
	if got := text(&sdk.CallToolResult{Content: res.Content[:1]}); got != `"unsupported 0 strokes"` {
		t.Errorf("sign = %s; want unsupported", got)
	}
	if got := text(res); !strings.Contains(got, `answered unsupported`) || !strings.Contains(got, `"strokes"`) {
		t.Errorf("sign = %s; want it to say why the method was answered unsupported", got)
	}
	if a := seen(); len(a) != 2 {
		t.Errorf("asked %q; want the client never asked to sign", a)
	}

	// A client that cannot be asked has no implementation of any method.
	plain := connectHTTPAt(t, rev, mcp.Handler(srv, "", nil), nil, nil)
	if got := text(callTool(t, plain, &sdk.CallToolParams{Name: "desk.locate", Arguments: map[string]any{}})); got != `"unsupported 0.0,0.0"` {
		t.Errorf("locate by a client that cannot be asked = %s; want unsupported", got)
	}
}

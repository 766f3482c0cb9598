package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/turn"
)

type toppings struct {
	Toppings []string `json:"toppings" enum:"cheese,olives,basil" min:"1" max:"2"`
}

var toppingsForm = elicit.Form[toppings]()

// TestAMultipleChoiceReachesTheClient: a question whose field is a list of
// choices from an enum is asked as a multiple choice of revision
// 2025-11-25 (an array of enum strings with its bounds), and the client's
// choices reach the tool.
func TestAMultipleChoiceReachesTheClient(t *testing.T) {
	pizza := agents.New("pizza", "Makes pizza.")
	agents.NewTool(pizza, "order", "Asks for toppings", func(ctx context.Context, _ struct{}) (string, error) {
		r, err := turn.Ask(ctx, toppingsForm, "Which toppings?", struct{}{})
		if err != nil || r.Action != elicit.Accept {
			return "no pizza", err
		}
		return strings.Join(r.Content.Toppings, "+"), nil
	})
	var (
		mu     sync.Mutex
		schema string
	)
	opts := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		schema = jsonOf(req.Params.RequestedSchema)
		mu.Unlock()
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"toppings": []any{"cheese", "basil"}}}, nil
	}}
	cs := connectHTTP(t, mcp.Handler(serverOf(t, mcp.NewTools(pizza), mcp.Extension{}).srv, "", nil), opts, nil)
	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "pizza.order"})); got != `"cheese+basil"` {
		t.Errorf("result = %s; want the client's choices", got)
	}
	mu.Lock()
	defer mu.Unlock()
	want := `"toppings":{"items":{"enum":["cheese","olives","basil"],"type":"string"},"maxItems":2,"minItems":1,"title":"Toppings","type":"array"}`
	if !strings.Contains(schema, want) {
		t.Errorf("the requested schema = %s; want it to hold %s", schema, want)
	}
}

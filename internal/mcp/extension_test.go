package mcp_test

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/mcp"
)

// TestAnExtensionServesResourcesPromptsAndCompletion: what an application
// adds through an Extension is served beside the agents' tools.
func TestAnExtensionServesResourcesPromptsAndCompletion(t *testing.T) {
	ext := mcp.Extension{
		Options: func(o *sdk.ServerOptions) {
			o.CompletionHandler = func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
				return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{"Paris"}}}, nil
			}
		},
		Add: func(s *sdk.Server) {
			s.AddResource(&sdk.Resource{Name: "menu", URI: "test://menu", MIMEType: "text/plain"},
				func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
					return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "soup"}}}, nil
				})
			s.AddPrompt(&sdk.Prompt{Name: "greet", Arguments: []*sdk.PromptArgument{{Name: "city"}}},
				func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
					return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello from " + req.Params.Arguments["city"]}}}}, nil
				})
		},
	}
	f := serverOf(t, mcp.NewTools(testAgents()...), ext)
	cs := connectHTTP(t, mcp.Handler(f.srv, "", nil), nil, nil)
	ctx := context.Background()

	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil || caps.Tools == nil {
		t.Errorf("capabilities = %+v; want tools, resources, prompts and completions", caps)
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://menu"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "soup" {
		t.Errorf("read test://menu = %+v, %v; want soup", read, err)
	}
	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"city": "Lyon"}})
	if err != nil || len(p.Messages) != 1 || text(&sdk.CallToolResult{Content: []sdk.Content{p.Messages[0].Content}}) != "Hello from Lyon" {
		t.Errorf("prompt greet = %+v, %v", p, err)
	}
	c, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: sdk.CompleteParamsArgument{Name: "city", Value: "Pa"}})
	if err != nil || len(c.Completion.Values) != 1 || c.Completion.Values[0] != "Paris" {
		t.Errorf("complete = %+v, %v; want Paris", c, err)
	}
	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 2, "b": 3}})); got != `{"sum":5}` {
		t.Errorf("calc.add = %s; the tools are served beside", got)
	}
}

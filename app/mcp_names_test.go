package app

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPOwnNamesOverStdio: mcp --agent NAME --own-names lists that
// agent's tools under the names they were written with.
func TestMCPOwnNamesOverStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		p := newProgram(mcpTestConfig(), func(string) string { return "" }, inR, outW, io.Discard)
		done <- p.run(context.Background(), []string{"mcp", "--db", filepath.Join(t.TempDir(), "mcp.db"), "--agent", "host", "--own-names"})
		outW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := answering().Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "greet" {
		t.Fatalf("tools = %+v, %v; want greet alone", tools, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call greet: %+v, %v", res, err)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("mcp: %v", err)
	}
}

// TestServeMCPWithTheApplicationsChoices: Config.MCP lists the tools at
// /mcp under their own names, with the resources its Extension adds.
func TestServeMCPWithTheApplicationsChoices(t *testing.T) {
	cfg := mcpTestConfig()
	cfg.MCP = MCP{OwnNames: true, Extension: MCPExtension{Add: func(s *sdk.Server) {
		s.AddResource(&sdk.Resource{Name: "menu", URI: "test://menu"},
			func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "soup"}}}, nil
			})
	}}}
	addr := startServerWith(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := answering().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "greet" {
		t.Errorf("tools = %+v, %v; want greet alone", tools, err)
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://menu"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "soup" {
		t.Errorf("read test://menu = %+v, %v; want soup", read, err)
	}
}

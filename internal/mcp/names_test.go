package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/mcp"
)

// TestToolsServedUnderTheirOwnNames: with OwnNames a client lists and
// calls the tools by the names they were written with, and the
// conversation records the call under the qualified name all the same.
func TestToolsServedUnderTheirOwnNames(t *testing.T) {
	all := mcp.NewTools(testAgents()...)
	host, err := all.Only("host")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := host.OwnNames()
	if err != nil {
		t.Fatal(err)
	}
	f := serverOf(t, tools, mcp.Extension{})
	cs := connectHTTP(t, mcp.Handler(f.srv, "", nil), nil, nil)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if want := []string{"add", "greet", "tag"}; !slices.Equal(names, want) { // the SDK lists them by name
		t.Errorf("tools = %q; want %q", names, want)
	}
	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"greeting": "Ann"}})); got != `{"text":"added Ann"}` {
		t.Errorf("add = %s; want host's add", got)
	}
	convs, err := f.svc.Conversations(context.Background(), f.owner)
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %v, %v", convs, err)
	}
	started, _ := runsOf(t, f.svc, f.owner, convs[0].ID)
	if len(started) == 0 || started[0].Call == nil || started[0].Call.Tool != "host.add" {
		t.Errorf("the conversation's runs = %+v; want its first message to name host.add", started)
	}
}

// TestOwnNamesThatClashAreRefused: two agents' tools of one name cannot
// both be served under it; the error names them.
func TestOwnNamesThatClashAreRefused(t *testing.T) {
	_, err := mcp.NewTools(testAgents()...).OwnNames()
	if err == nil || !strings.Contains(err.Error(), "calc.add") || !strings.Contains(err.Error(), "host.add") {
		t.Errorf("err = %v; want one naming calc.add and host.add", err)
	}
}

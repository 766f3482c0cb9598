package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
)

// serverOf is an MCP server of tools on a chat service of a fresh
// database, with ext beside them.
func serverOf(t *testing.T, tools *mcp.Tools, ext mcp.Extension) fixture {
	t.Helper()
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	owner := chat.NewSessionID()
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: owner, Name: "sweatpants-test", Version: "test", Extension: ext})
	return fixture{svc: svc, srv: srv, owner: owner}
}

// TestAToolsContentReachesTheClientAsBlocks: a tool that returns
// agents.Content gives the client its blocks — text, an image, a sound,
// an embedded resource — not their JSON; a tool that returns any other
// object still gives it as text and structured content.
func TestAToolsContentReachesTheClientAsBlocks(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	media := agents.New("media", "Shows things.")
	agents.NewTool(media, "show", "Shows a picture", func(context.Context, struct{}) (agents.Content, error) {
		return agents.Content{Blocks: []agents.Block{
			agents.Text("A picture:"),
			agents.Image(png, "image/png"),
			agents.Audio([]byte("RIFF"), "audio/wav"),
			agents.Embed(agents.Resource{URI: "test://note", MIMEType: "text/plain", Text: "a note"}),
		}}, nil
	})
	agents.NewTool(media, "size", "Says a size", func(context.Context, struct{}) (map[string]any, error) {
		return map[string]any{"content": "big"}, nil // an object with a member "content" is not Content
	})
	cs := connectHTTP(t, mcp.Handler(serverOf(t, mcp.NewTools(media), mcp.Extension{}).srv, "", nil), nil, nil)

	res := callTool(t, cs, &sdk.CallToolParams{Name: "media.show"})
	if len(res.Content) != 4 {
		t.Fatalf("content = %s; want four blocks", jsonOf(res.Content))
	}
	if c, ok := res.Content[0].(*sdk.TextContent); !ok || c.Text != "A picture:" {
		t.Errorf("block 0 = %s; want the text", jsonOf(res.Content[0]))
	}
	if c, ok := res.Content[1].(*sdk.ImageContent); !ok || string(c.Data) != string(png) || c.MIMEType != "image/png" {
		t.Errorf("block 1 = %s; want the image", jsonOf(res.Content[1]))
	}
	if c, ok := res.Content[2].(*sdk.AudioContent); !ok || string(c.Data) != "RIFF" || c.MIMEType != "audio/wav" {
		t.Errorf("block 2 = %s; want the sound", jsonOf(res.Content[2]))
	}
	if c, ok := res.Content[3].(*sdk.EmbeddedResource); !ok || c.Resource.URI != "test://note" || c.Resource.Text != "a note" {
		t.Errorf("block 3 = %s; want the embedded resource", jsonOf(res.Content[3]))
	}
	if res.StructuredContent != nil {
		t.Errorf("structured content = %s; want none beside blocks", jsonOf(res.StructuredContent))
	}

	res = callTool(t, cs, &sdk.CallToolParams{Name: "media.size"})
	if got := text(res); got != `{"content":"big"}` || res.StructuredContent == nil {
		t.Errorf("result = %q, structured %s; want the object as text and structured content", got, jsonOf(res.StructuredContent))
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

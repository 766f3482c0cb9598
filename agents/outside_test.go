package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/llm"
)

// source is a ToolSource of fixed tools and error.
type source struct {
	tools []agents.AnyTool
	err   error
}

func (s source) Tools(context.Context) ([]agents.AnyTool, error) { return s.tools, s.err }

// TestALoopOffersTheToolsItsSourcesFind: an outside tool is shown to the
// model with its schema as written and called with the model's
// arguments unchecked (its program checks them); one whose name a tool of
// the loop has is left out, and the model is told so, as it is told what
// a source could not list.
func TestALoopOffersTheToolsItsSourcesFind(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"anyOf":[{"type":"string"},{"type":"null"}]}},"$defs":{}}`)
	var got json.RawMessage
	search := agents.Outside(agents.ToolInfo{Agent: "web", Name: "search", Description: "Searches the web"}, schema,
		func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			got = in
			return json.RawMessage(`"found it"`), nil
		})
	clash := agents.Outside(agents.ToolInfo{Agent: "web", Name: "getWeather"}, json.RawMessage(`{"type":"object"}`), nil)
	var runs int
	m := &scripted{replies: []llm.Response{calls(llm.ToolCall{ID: "1", Name: "search", Arguments: `{"q":null}`}), text("Done.")}}
	loop := agents.Loop{System: "Be brief.", Agents: []*agents.Agent{weatherAgent(&runs)},
		Sources: []agents.ToolSource{source{tools: []agents.AnyTool{search, clash}, err: errors.New("the server files is down")}}}
	if _, err := loop.Run(m.provide(context.Background()), []llm.Message{{Role: llm.User, Content: "find"}}); err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"q":null}` {
		t.Errorf("the outside tool got %s, want the model's arguments as they were", got)
	}
	req := m.requests[0]
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
		if s.Name == "search" && string(s.Parameters) != string(schema) {
			t.Errorf("the model was shown the schema %s, want %s as written", s.Parameters, schema)
		}
	}
	if strings.Join(names, ",") != "getWeather,search" {
		t.Errorf("the model was offered %v, want getWeather and search", names)
	}
	system := req.Messages[0].Content
	for _, want := range []string{"Be brief.", "the server files is down", "the tool getWeather of web is left out"} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt %q does not say %q", system, want)
		}
	}
}

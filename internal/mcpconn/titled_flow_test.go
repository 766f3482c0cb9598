package mcpconn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// titledServer asks, when its tool paint is called, the question of
// testdata/titled_options.json, and says what it was answered: as the
// reference server does, by an elicitation/create request ("titled"), or
// in the multi-round-trip way ("titled-mrtr").
func titledServer(behave string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "titled", Version: "1"}, nil)
	type in struct {
		Wall string `json:"wall"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "paint", Description: "Asks about you"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
			raw, err := os.ReadFile(filepath.Join("testdata", "titled_options.json"))
			if err != nil {
				return nil, nil, err
			}
			// Sent as written, in its order, as a server in another
			// language sends it (a Go map would sort it).
			params := &mcp.ElicitParams{Message: "Tell me about you", RequestedSchema: json.RawMessage(raw)}
			var res *mcp.ElicitResult
			if behave == "titled-mrtr" {
				r, ok := req.Params.InputResponses["about"].(*mcp.ElicitResult)
				if !ok {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"about": params}}, nil, nil
				}
				res = r
			} else if res, err = req.Session.Elicit(ctx, params); err != nil {
				return nil, nil, err
			}
			answer, _ := json.Marshal(res.Content)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + string(answer)}}}, nil, nil
		})
	return s
}

// TestAServersTitledQuestionIsAnsweredWithChoices: an outside server's
// question with titled options, over stdio and over HTTP, asked either
// way (over stdio the SDK's server asks in the multi-round-trip way
// alone): the form has its fields in the question's order and its options
// as choices; an answer its schema refuses is refused while the question
// waits; the answer the form makes of the user's picks reaches the
// server, which takes it.
func TestAServersTitledQuestionIsAnsweredWithChoices(t *testing.T) {
	for _, tt := range []struct {
		name   string
		server func(t *testing.T) mcpclient.Server
	}{
		{"over stdio, in the multi-round-trip way", func(*testing.T) mcpclient.Server { return stdioPaint("titled-mrtr") }},
		{"over HTTP, asked by a request", func(t *testing.T) mcpclient.Server { return httpTitled(t, "titled", false) }},
		{"over HTTP, in the multi-round-trip way", func(t *testing.T) mcpclient.Server { return httpTitled(t, "titled-mrtr", false) }},
		{"over HTTP answering in JSON, in the multi-round-trip way", func(t *testing.T) mcpclient.Server { return httpTitled(t, "titled-mrtr", true) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t, &painter{}, tt.server(t))
			id := a.send("me")
			a.answer(id, a.question(id, "approval"), `{"choice":"once"}`)
			form := a.question(id, "form")
			s := form.Request.Schema
			want := []string{"name", "email", "homepage", "birthdate", "meetAt", "age", "subscribe", "size", "pet", "color", "toppings", "friends"}
			if !slices.Equal(s.FieldOrder(), want) {
				t.Errorf("the form's fields are in the order %q, want the question's %q", s.FieldOrder(), want)
			}
			if got := s.Properties["friends"].Items; got == nil || !slices.Equal(got.Enum, []string{"fish-1", "cat-2", "dog-3"}) || got.Label("dog-3") != "Dog" {
				t.Errorf("the titled multiple choice is %+v, want the options fish-1, cat-2, dog-3 shown as Goldfish, Cat, Dog", got)
			}

			bad := chat.Answer{Action: elicit.Accept, Content: []byte(`{"name":"Ada","pet":"fish-1","toppings":["cheese"],"friends":["[\"fish-1\"]"]}`)}
			if err := a.svc.Answer(t.Context(), session, id, form.Request.ID, bad); err == nil {
				t.Fatal("an answer the question's schema refuses was taken")
			}
			if again := a.question(id, "form"); again.Request.ID != form.Request.ID {
				t.Fatalf("after a refused answer the question is %s, want the same one, %s, still waiting", again.Request.ID, form.Request.ID)
			}

			content, errs := s.FromForm(url.Values{
				"name": {"Ada"}, "email": {"ada@example.com"}, "homepage": {""}, "birthdate": {"1990-12-10"},
				"meetAt": {""}, "age": {""}, "subscribe": {"false"}, "size": {"medium"}, "pet": {"cat-2"},
				"color": {"#00f"}, "toppings": {"", "basil"}, "friends": {"", "fish-1", "dog-3"},
			})
			if len(errs) > 0 {
				t.Fatalf("the form refuses the answer: %v", errs)
			}
			// A program answering in JSON may say an optional field it
			// leaves empty as null, which the server's schema refuses.
			var fields map[string]any
			if err := json.Unmarshal(content, &fields); err != nil {
				t.Fatal(err)
			}
			fields["homepage"] = nil
			content, _ = json.Marshal(fields)
			a.answer(id, form, string(content))
			reply := strings.ReplaceAll(a.reply(id), `\"`, `"`) // the result, a JSON string in the reply
			for _, want := range []string{`accept {`, `"friends":["fish-1","dog-3"]`, `"pet":"cat-2"`, `"toppings":["basil"]`, `"color":"#00f"`} {
				if !strings.Contains(reply, want) {
					t.Errorf("the server was answered %q, want it to hold %s", reply, want)
				}
			}
			if strings.Contains(reply, "homepage") || strings.Contains(reply, "null") {
				t.Errorf("the server was answered %q, want the fields left empty left out", reply)
			}
		})
	}
}

// httpTitled serves titledServer over Streamable HTTP, answering in event
// streams or, with jsonAnswers, in JSON.
func httpTitled(t *testing.T, behave string, jsonAnswers bool) mcpclient.Server {
	s := titledServer(behave)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonAnswers}))
	t.Cleanup(ts.Close)
	return mcpclient.Server{Name: "titled", URL: ts.URL}
}

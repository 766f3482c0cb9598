package mcpconn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// The kit of these tests: an outside MCP server made with the SDK (the
// paint server, whose tool asks which color and reports progress), served
// over HTTP in process or over stdio by this test binary run again
// (TestMain), and a conversation whose model calls its tool.

// counts counts what the paint server was asked.
type counts struct{ lists, calls atomic.Int32 }

type paintIn struct {
	Wall string `json:"wall" jsonschema:"the wall to paint"`
}

// paintServer is the outside server. Its tool paint asks the user which
// color (a form with an enum and a default), reports progress, and says
// what it painted; with die, it exits the process mid-call instead, and
// with hang it does not answer until released.
func paintServer(n *counts, behave string, release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "paint", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/list":
				n.lists.Add(1)
			case "tools/call":
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); !ok || p.InputResponses == nil {
					n.calls.Add(1) // a call, not its retry with the user's answer
				}
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "paint", Description: "Paints a wall in the color the user picks"},
		func(ctx context.Context, req *mcp.CallToolRequest, in paintIn) (*mcp.CallToolResult, any, error) {
			switch behave {
			case "die":
				os.Exit(3)
			case "hang":
				select {
				case <-ctx.Done():
				case <-release:
				}
				return nil, nil, ctx.Err()
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "Mixing the paint"})
			}
			// Asked the multi-round-trip way, which the SDK serves to
			// clients of every revision.
			res, ok := req.Params.InputResponses["color"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"color": &mcp.ElicitParams{
					Message: "Which color for the " + in.Wall + "?", RequestedSchema: map[string]any{
						"type": "object",
						"properties": map[string]any{
							"color": map[string]any{"type": "string", "enum": []string{"red", "blue"}, "default": "red"},
						},
						"required": []string{"color"},
					}}}}, nil, nil
			}
			if res.Action != "accept" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "nothing painted: " + res.Action}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("painted the %s %v", in.Wall, res.Content["color"])}}}, nil, nil
		})
	return s
}

// httpPaint serves the paint server over Streamable HTTP, checking the
// bearer token when one is given.
func httpPaint(t *testing.T, n *counts, behave, token string) *httptest.Server {
	release := make(chan struct{})
	s := paintServer(n, behave, release)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(release) // a call that hangs ends
		// The SDK's server waits on a question of a client that went
		// away (a turn stopped while it waited) past the session's end:
		// its handler's context is not cancelled. Closing waits on that
		// handler, so it is given a bound, and the rest is left to the
		// end of the process.
		closed := make(chan struct{})
		go func() {
			ts.CloseClientConnections()
			ts.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(2 * time.Second):
			t.Log("the paint server still waits on a question nobody will answer; left to the process's end")
		}
	})
	return ts
}

// stdioEnv is the variable that makes this test binary the paint server
// over stdio (TestMain); its value is how the server behaves.
const stdioEnv = "MCPCLIENT_TEST_PAINT"

// stdioPaint is the paint server as a command: this test binary.
func stdioPaint(behave string) mcpclient.Server {
	return mcpclient.Server{Name: "paint", Command: os.Args[0], Env: map[string]string{stdioEnv: behave}}
}

func TestMain(m *testing.M) {
	if behave, ok := os.LookupEnv(stdioEnv); ok {
		os.Exit(serveStdio(behave))
	}
	if dir, ok := os.LookupEnv(hostEnv); ok {
		os.Exit(host(dir))
	}
	if scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO"); scenario != "" && len(os.Args) > 1 {
		os.Exit(conformanceClient(scenario, os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// painter is the model: it calls paint with the user's message as the
// wall while paint is offered and not called yet; then, with askAfter,
// asks the user whether that is all (ask_user); then answers with every
// tool result of the turn and the system prompt's note, if any. It keeps
// the tools it was offered at each call.
type painter struct {
	askAfter bool
	mu       sync.Mutex
	calls    int
	offered  [][]string
}

func (*painter) Name() string { return "painter" }

func (p *painter) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	p.mu.Lock()
	p.calls++
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	p.offered = append(p.offered, names)
	p.mu.Unlock()
	var wall, system string
	var results []string
	called := map[string]bool{}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.System:
			system = m.Content
		case llm.User:
			wall = m.Content
		case llm.Assistant:
			for _, c := range m.ToolCalls {
				called[c.Name] = true
			}
		case llm.Tool:
			results = append(results, m.Content)
		}
	}
	offered := func(name string) bool {
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
	switch {
	case offered("paint") && !called["paint"]:
		args, _ := json.Marshal(map[string]string{"wall": wall})
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "paint", Arguments: string(args)}}}, nil
	case p.askAfter && offered(agents.AskUserTool) && !called[agents.AskUserTool]:
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c2", Name: agents.AskUserTool, Arguments: `{"question":"Anything else?","kind":"confirm"}`}}}, nil
	}
	reply := "done: " + strings.Join(results, " | ")
	if i := strings.Index(system, "unavailable"); i >= 0 {
		reply += " (note: " + system[i:] + ")"
	}
	return llm.Response{Content: reply}, nil
}

func (p *painter) offers() [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.offered
}

// app is one run of a program whose assistant's loop takes the outside
// servers' tools, on a database file that outlives it.
type app struct {
	t       *testing.T
	path    string
	model   *painter
	servers []mcpclient.Server
	svc     *chat.Service
	db      *store.DB
	outside *mcpconn.Servers
}

const session = "s1"

func newApp(t *testing.T, model *painter, servers ...mcpclient.Server) *app {
	a := &app{t: t, path: filepath.Join(t.TempDir(), "app.db"), model: model, servers: servers}
	a.start()
	t.Cleanup(a.stop)
	return a
}

func (a *app) start() {
	outside, err := mcpconn.New(a.servers, mcpconn.Options{Name: "test", Version: "1"})
	if err != nil {
		a.t.Fatal(err)
	}
	reg := a.registry()
	a.db = storetest.OpenAt(a.t, a.path)
	a.outside = outside
	a.svc = chat.New(chat.Config{Store: a.db, Assistants: reg, Model: a.model, Kinds: kindset.New(elicit.BuiltinKinds()...),
		Scope: func(ctx context.Context) context.Context { return mcpconn.With(ctx, outside) }})
}

// registry holds the painter: a loop that takes the outside servers'
// tools.
func (a *app) registry() *registry.Assistants {
	loop := agents.Loop{System: "You paint walls.", Sources: []agents.ToolSource{mcpclient.All()}, AskUser: true}
	return registry.New(agents.Assistant{Name: "painter", Turn: loop.Turn})
}

func (a *app) stop() {
	if a.svc != nil {
		a.svc.Close()
		a.outside.Close()
		a.db.Close()
		a.svc = nil
	}
}

// send starts a conversation with text.
func (a *app) send(text string) string {
	a.t.Helper()
	c, err := a.svc.Create(a.t.Context(), session, "painter")
	if err != nil {
		a.t.Fatal(err)
	}
	if err := a.svc.Send(a.t.Context(), session, c.ID, text); err != nil {
		a.t.Fatal(err)
	}
	return c.ID
}

// question waits for the pending question of kind.
func (a *app) question(id, kind string) *pageview.ElicitView {
	a.t.Helper()
	v := chattest.WaitView(a.t, a.svc, session, id, "a question of kind "+kind, func(v pageview.View) bool {
		e := chattest.PendingElicit(v)
		return e != nil && e.Request.Kind == kind
	})
	return chattest.PendingElicit(v)
}

func (a *app) answer(id string, e *pageview.ElicitView, content string) {
	a.t.Helper()
	if err := a.svc.Answer(a.t.Context(), session, id, e.Request.ID, chat.Answer{Action: elicit.Accept, Content: []byte(content)}); err != nil {
		a.t.Fatalf("answer %s: %v", e.Request.Kind, err)
	}
}

// reply waits for the turn's reply, for at most its deadline.
func (a *app) reply(id string) string {
	a.t.Helper()
	v := chattest.WaitView(a.t, a.svc, session, id, "the reply", func(v pageview.View) bool {
		if v.Status.Running || len(v.Items) == 0 {
			return false
		}
		k := v.Items[len(v.Items)-1].Kind
		return k == tree.AssistantMessage || k == tree.TurnError
	})
	return v.Items[len(v.Items)-1].Text
}

// waitFor waits for cond, for at most ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

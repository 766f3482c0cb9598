package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The agents these tests serve: one whose tool asks nothing, one whose
// tool reports progress and asks the user's name.
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type greetIn struct {
	Greeting string `json:"greeting"`
}

type greetOut struct {
	Text string `json:"text"`
}

type name struct {
	Name string `json:"name" default:"friend"`
}

var nameForm = elicit.Form[name]()

func testAgents() []*agents.Agent {
	calc := agents.New("calc", "Adds numbers.")
	agents.NewTool(calc, "add", "Adds two numbers", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	host := agents.New("host", "Greets people.")
	agents.NewTool(host, "greet", "Greets the user by name", func(ctx context.Context, in greetIn) (greetOut, error) {
		turn.Log(ctx, slog.LevelInfo, "greeting someone", "greeting", in.Greeting)
		if err := turn.Notify(ctx, "looking for a name", 0.5); err != nil {
			return greetOut{}, err
		}
		r, err := turn.Ask(ctx, nameForm, "What is your name?", struct{}{})
		if err != nil {
			return greetOut{}, err
		}
		if r.Action != elicit.Accept {
			return greetOut{Text: in.Greeting + ", stranger"}, nil
		}
		return greetOut{Text: in.Greeting + ", " + r.Content.Name}, nil
	})
	// A second tool named add, of another agent, must not clash.
	agents.NewTool(host, "add", "Adds a guest", func(_ context.Context, in greetIn) (greetOut, error) {
		return greetOut{Text: "added " + in.Greeting}, nil
	})
	notes := agents.New("notes", "Keeps notes.")
	agents.NewTool(notes, "keep", "Keeps a note", func(_ context.Context, in greetIn) (greetOut, error) {
		return greetOut{Text: "kept " + in.Greeting}, nil
	}).Does(policy.Writes)
	agents.NewTool(host, "tag", "Asks for tags, a list a form over MCP cannot hold", func(ctx context.Context, _ struct{}) (string, error) {
		r, err := turn.Ask(ctx, tagsForm, "Which tags?", struct{}{})
		if err != nil {
			return "", err
		}
		return "answered " + string(r.Action), nil
	})
	agents.NewTool(calc, "divide", "Divides a by b", func(_ context.Context, in addIn) (addOut, error) {
		if in.B == 0 {
			return addOut{}, errors.New("cannot divide by zero")
		}
		return addOut{Sum: in.A / in.B}, nil
	})
	return []*agents.Agent{calc, host, notes}
}

type tags struct {
	Tags []string `json:"tags"`
}

var tagsForm = elicit.Form[tags]()

// fixture is a chat service on a fresh database with the MCP server of the
// test agents.
type fixture struct {
	svc   *chat.Service
	srv   *mcp.Server
	owner string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	tools := mcp.NewTools(testAgents()...)
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	owner := chat.NewSessionID()
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: owner, Name: "sweatpants-test", Version: "test"})
	return fixture{svc: svc, srv: srv, owner: owner}
}

// revisions are the protocol revisions the server speaks that differ in
// how a question inside a call reaches the client: by elicitation/create
// while the call runs, or in an input_required result.
var revisions = []string{"2025-11-25", "2026-07-28"}

// eachRevision runs test once with a client of each revision.
func eachRevision(t *testing.T, test func(t *testing.T, rev string)) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) { test(t, rev) })
	}
}

// connectHTTP connects a client of the latest revision over Streamable
// HTTP to h.
func connectHTTP(t *testing.T, h http.Handler, opts *sdk.ClientOptions, hc *http.Client) *sdk.ClientSession {
	t.Helper()
	return connectHTTPAt(t, "", h, opts, hc)
}

// connectHTTPAt connects a client of revision rev ("": the latest) over
// Streamable HTTP to h, and checks the revision is the one spoken.
func connectHTTPAt(t *testing.T, rev string, h http.Handler, opts *sdk.ClientOptions, hc *http.Client) *sdk.ClientSession {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; rev != "" && got != rev {
		t.Fatalf("the server speaks %s to a client of %s", got, rev)
	}
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, params *sdk.CallToolParams) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("call %s: %v", params.Name, err)
	}
	if res.IsError {
		t.Fatalf("call %s failed: %s", params.Name, text(res))
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsAreListedQualifiedWithTheirSchemas(t *testing.T) {
	f := newFixture(t)
	cs := connectHTTP(t, mcp.Handler(f.srv, "", nil), nil, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl
	}
	for _, want := range []string{"calc.add", "host.greet", "host.add"} {
		if got[want] == nil {
			t.Fatalf("tools listed: %v; want %s among them", keys(got), want)
		}
	}
	if d := got["calc.add"].Description; d != "Adds two numbers" {
		t.Errorf("calc.add's description = %q", d)
	}
	schema, _ := json.Marshal(got["calc.add"].InputSchema)
	if !strings.Contains(string(schema), `"a"`) || !strings.Contains(string(schema), `"integer"`) {
		t.Errorf("calc.add's input schema = %s; want its fields a and b, integers", schema)
	}
}

func keys(m map[string]*sdk.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestACallIsATurnOfTheClientsConversation(t *testing.T) {
	eachRevision(t, testACallIsATurnOfTheClientsConversation)
}

func testACallIsATurnOfTheClientsConversation(t *testing.T, rev string) {
	f := newFixture(t)
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), nil, nil)
	res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 2, "b": 3}})
	if got := text(res); got != `{"sum":5}` {
		t.Errorf("text = %q; want the JSON result", got)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if string(sc) != `{"sum":5}` {
		t.Errorf("structured content = %s", sc)
	}
	convs, err := f.svc.Conversations(context.Background(), f.owner)
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %v, %v; want one", convs, err)
	}
	// A session's conversation holds its calls; a call of 2026-07-28 has
	// one of its own, named after its tool too.
	title := map[string]string{"2025-11-25": "MCP: test-client", "2026-07-28": "MCP: test-client: calc.add"}[rev]
	if convs[0].Title != title || convs[0].Agent != mcp.AssistantName {
		t.Errorf("conversation = %+v; want it titled with the client and held by the mcp assistant", convs[0])
	}
	_, completed := runsOf(t, f.svc, f.owner, convs[0].ID)
	var reply bool
	for _, c := range completed {
		reply = reply || (c.Status == tree.OutcomeReplied && c.Outcome != nil && string(c.Outcome.Output) == `{"sum":5}`)
	}
	if !reply {
		t.Errorf("the conversation holds no reply with the result: %+v", completed)
	}
	// Another agent's tool of the same name is its own.
	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "host.add", Arguments: map[string]any{"greeting": "Ann"}})); got != `{"text":"added Ann"}` {
		t.Errorf("host.add = %q", got)
	}
}

func TestAQuestionReachesTheClientAndItsAnswerIsRecorded(t *testing.T) {
	eachRevision(t, testAQuestionReachesTheClientAndItsAnswerIsRecorded)
}

func testAQuestionReachesTheClientAndItsAnswerIsRecorded(t *testing.T, rev string) {
	f := newFixture(t)
	var (
		mu       sync.Mutex
		asked    []string
		progress []string
	)
	opts := &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			schema, _ := json.Marshal(req.Params.RequestedSchema)
			asked = append(asked, req.Params.Message+" "+string(schema))
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bea"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Message)
		},
	}
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), opts, nil)
	params := &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{"greeting": "Hello"}}
	params.SetProgressToken("p1")
	res := callTool(t, cs, params)
	if got := text(res); got != `{"text":"Hello, Bea"}` {
		t.Errorf("result = %q; want the client's answer used", got)
	}
	mu.Lock()
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "What is your name? ") || !strings.Contains(asked[0], `"default":"friend"`) {
		t.Errorf("asked = %q; want the form once, with its default", asked)
	}
	mu.Unlock()
	// The client hands notifications to their handler apart from results,
	// so the progress may be seen after the call returns.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		seen := slices.Clone(progress)
		mu.Unlock()
		if len(seen) > 0 && seen[0] == "looking for a name" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress = %q; want the tool's notify", seen)
		}
	}
	convs, _ := f.svc.Conversations(context.Background(), f.owner)
	v, err := f.svc.View(context.Background(), f.owner, convs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var answer string
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.Response != nil {
			answer = string(it.Elicit.Response.Action) + " " + string(it.Elicit.Response.Content)
		}
	}
	if answer != `accept {"name":"Bea"}` {
		t.Errorf("recorded answer = %q; want the client's", answer)
	}
}

func TestAClientThatCannotBeAskedGetsTheAutomaticAnswer(t *testing.T) {
	eachRevision(t, testAClientThatCannotBeAskedGetsTheAutomaticAnswer)
}

func testAClientThatCannotBeAskedGetsTheAutomaticAnswer(t *testing.T, rev string) {
	f := newFixture(t)
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), nil, nil)
	res := callTool(t, cs, &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{"greeting": "Hi"}})
	if got := text(res); got != `{"text":"Hi, friend"}` {
		t.Errorf("result = %q; want the form's default, answered automatically", got)
	}
}

func TestTheTokenIsRequiredWhenSet(t *testing.T) {
	f := newFixture(t)
	ts := httptest.NewServer(mcp.Handler(f.srv, "s3cret", nil))
	t.Cleanup(ts.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, auth := range []string{"", "Bearer wrong", "s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d; want 401", auth, resp.StatusCode)
		}
	}
	cs := connectHTTP(t, mcp.Handler(f.srv, "s3cret", nil), nil, &http.Client{Transport: bearer{"s3cret"}})
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("with the token: %v", err)
	}
}

// bearer adds a bearer token to each request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestACrossOriginRequestIsRefused(t *testing.T) {
	f := newFixture(t)
	ts := httptest.NewServer(mcp.Handler(f.srv, "", nil))
	t.Cleanup(ts.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d; want 403", resp.StatusCode)
	}
}

// TestAnApprovalReachesTheClient: a tool that writes runs under the
// policy's ask, whose approval the client answers as a form.
func TestAnApprovalReachesTheClient(t *testing.T) { eachRevision(t, testAnApprovalReachesTheClient) }

func testAnApprovalReachesTheClient(t *testing.T, rev string) {
	for _, tc := range []struct {
		action string
		choice string
		want   string // the result, or words of the error
		failed bool
	}{
		{"accept", "once", `{"text":"kept milk"}`, false},
		{"accept", "deny", "the user denied it", true},
		// A client's decline of an approval is the user's no, not an
		// approval nobody was there to give.
		{"decline", "", "the user denied it", true},
	} {
		t.Run(tc.action+" "+tc.choice, func(t *testing.T) {
			f := newFixture(t)
			var (
				mu      sync.Mutex
				message string
			)
			opts := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				mu.Lock()
				message = req.Params.Message
				mu.Unlock()
				if tc.action != "accept" {
					return &sdk.ElicitResult{Action: tc.action}, nil
				}
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": tc.choice}}, nil
			}}
			cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), opts, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "notes.keep", Arguments: map[string]any{"greeting": "milk"}})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(message, "keep") || !strings.Contains(message, "milk") {
				t.Errorf("the approval asked %q; want it to name the tool and its arguments", message)
			}
			if got := text(res); res.IsError != tc.failed || (!tc.failed && got != tc.want) || (tc.failed && !strings.Contains(got, tc.want)) {
				t.Errorf("result = %q (error: %v); want %q (error: %v)", text(res), res.IsError, tc.want, tc.failed)
			}
		})
	}
}

// TestTheToolsLogReachesAClientThatAskedForIt: turn.Log inside a tool is a
// logging message to a client that set a level.
func TestTheToolsLogReachesAClientThatAskedForIt(t *testing.T) {
	eachRevision(t, testTheToolsLogReachesAClientThatAskedForIt)
}

func testTheToolsLogReachesAClientThatAskedForIt(t *testing.T, rev string) {
	f := newFixture(t)
	var (
		mu    sync.Mutex
		lines []string
	)
	opts := &sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
		b, _ := json.Marshal(req.Params.Data)
		mu.Lock()
		lines = append(lines, string(req.Params.Level)+" "+req.Params.Logger+" "+string(b))
		mu.Unlock()
	}}
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), opts, nil)
	params := &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{"greeting": "Hey"}}
	askForLogs(t, cs, rev, params, "info")
	callTool(t, cs, params)
	want := `info host.greet {"greeting":"Hey","message":"greeting someone"}`
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		got := slices.Contains(lines, want)
		seen := slices.Clone(lines)
		mu.Unlock()
		if got {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log lines = %q; want %q among them", seen, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// askForLogs asks for the log lines at level and above of the call of
// params: for the session by logging/setLevel before 2026-07-28, in the
// call's _meta since.
func askForLogs(t *testing.T, cs *sdk.ClientSession, rev string, params *sdk.CallToolParams, level sdk.LoggingLevel) {
	t.Helper()
	if rev >= "2026-07-28" {
		params.SetMeta(map[string]any{sdk.MetaKeyLogLevel: level})
		return
	}
	if err := cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: level}); err != nil {
		t.Fatal(err)
	}
}

// TestAQuestionAFormCannotHoldIsDeclinedSayingWhy: a list field has no
// place in an MCP form; the client is not asked, and is told why.
func TestAQuestionAFormCannotHoldIsDeclinedSayingWhy(t *testing.T) {
	eachRevision(t, testAQuestionAFormCannotHoldIsDeclinedSayingWhy)
}

func testAQuestionAFormCannotHoldIsDeclinedSayingWhy(t *testing.T, rev string) {
	f := newFixture(t)
	var (
		mu    sync.Mutex
		asked int
		lines []string
	)
	opts := &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			asked++
			mu.Unlock()
			return &sdk.ElicitResult{Action: "cancel"}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			mu.Lock()
			lines = append(lines, fmt.Sprint(req.Params.Data))
			mu.Unlock()
		},
	}
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), opts, nil)
	params := &sdk.CallToolParams{Name: "host.tag", Arguments: map[string]any{}}
	askForLogs(t, cs, rev, params, "warning")
	// The tool's result comes first; what the client was told of the
	// question follows it, for a client that reads no logs.
	res := callTool(t, cs, params)
	if got := text(&sdk.CallToolResult{Content: res.Content[:1]}); got != `"answered decline"` {
		t.Errorf("result = %s; want the question declined", got)
	}
	if got := text(res); !strings.Contains(got, `its field "tags" is of type "array"`) {
		t.Errorf("result = %s; want it to say why the question was declined", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n, seen := asked, slices.Clone(lines)
		mu.Unlock()
		if n != 0 {
			t.Fatalf("the client was asked %d times; want never", n)
		}
		if len(seen) == 1 && strings.Contains(seen[0], `its field "tags" is of type "array"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log lines = %q; want one saying why the question was declined", seen)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAFailedToolIsAnErrorResult: the tool's error reaches the client as
// an error result with its words.
func TestAFailedToolIsAnErrorResult(t *testing.T) { eachRevision(t, testAFailedToolIsAnErrorResult) }

func testAFailedToolIsAnErrorResult(t *testing.T, rev string) {
	f := newFixture(t)
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), nil, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calc.divide", Arguments: map[string]any{"a": 1, "b": 0}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "cannot divide by zero") {
		t.Errorf("result = %q (error: %v); want an error result with the tool's words", text(res), res.IsError)
	}
}

// TestACancelledCallStopsItsTurn: a call the client gives up on while its
// question waits is stopped in the conversation, and the session's next
// call runs. (A call of 2026-07-28 has no session: while its question is
// with the client, the server holds nothing of it but the waiting turn,
// which the client's retry can still continue; see stateless_test.go.)
func TestACancelledCallStopsItsTurn(t *testing.T) {
	rev := "2025-11-25"
	f := newFixture(t)
	asked, gone := make(chan struct{}, 1), make(chan struct{})
	opts := &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked <- struct{}{}
		select { // the person never answers
		case <-ctx.Done():
		case <-gone:
		}
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}}
	cs := connectHTTPAt(t, rev, mcp.Handler(f.srv, "", nil), opts, nil)
	t.Cleanup(func() { close(gone) }) // before the client closes, which waits on its handlers
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{"greeting": "Yo"}})
		errc <- err
	}()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the question never reached the client")
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	convs, err := f.svc.Conversations(context.Background(), f.owner)
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %v, %v", convs, err)
	}
	chattest.WaitView(t, f.svc, f.owner, convs[0].ID, "the call's turn stopped", func(v pageview.View) bool {
		return !v.Status.Running && len(v.Items) > 0 && v.Items[len(v.Items)-1].Kind == tree.Stopped
	})
	if got := text(callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 1, "b": 1}})); got != `{"sum":2}` {
		t.Errorf("the next call = %q", got)
	}
}

package mcp_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/turn"
)

type age struct {
	Age int `json:"age" min:"0" max:"150"`
}

var ageForm = elicit.Form[age]()

// statelessFixture serves, on one database across restarts, a tool that
// asks a name, then an age, and counts how often its work runs.
type statelessFixture struct {
	t      *testing.T
	tools  *mcp.Tools
	secret []byte
	owner  string
	ran    atomic.Int32
	db     chat.Store
	svc    *chat.Service
	url    string
	close  func()
}

func newStatelessFixture(t *testing.T) *statelessFixture {
	f := &statelessFixture{t: t, secret: []byte(strings.Repeat("k", 32)), owner: chat.NewSessionID()}
	a := agents.New("clerk", "Registers people.")
	agents.NewTool(a, "register", "Registers a person", func(ctx context.Context, _ struct{}) (string, error) {
		n, err := turn.Ask(ctx, nameForm, "What is your name?", struct{}{})
		if err != nil {
			return "", err
		}
		y, err := turn.Ask(ctx, ageForm, "How old are you?", struct{}{})
		if err != nil {
			return "", err
		}
		f.ran.Add(1) // the work the answers are for, done once
		return n.Content.Name + " is " + strconv.Itoa(y.Content.Age), nil
	})
	f.tools = mcp.NewTools(a)
	f.db = storetest.Open(t)
	f.start()
	t.Cleanup(func() { f.close() })
	return f
}

// start serves the tool on a fresh chat service over db, as a restarted
// server would.
func (f *statelessFixture) start() {
	f.svc = chat.New(chat.Config{Store: f.db, Assistants: registry.New(f.tools.Assistant()), Model: offline.New(), DecideByRule: true})
	srv := mcp.NewServer(mcp.Config{Chat: f.svc, Tools: f.tools, Owner: f.owner, Secret: f.secret, Name: "t", Version: "1"})
	ts := httptest.NewServer(mcp.Handler(srv, "", nil))
	f.url = ts.URL
	f.close = func() {
		// As a server that goes down: nothing recorded after the service
		// stops, connections cut.
		f.svc.Close()
		ts.CloseClientConnections()
		ts.Close()
	}
}

// restart stops the service and starts another on the same database.
func (f *statelessFixture) restart() {
	f.close()
	f.start()
}

// client connects a 2026-07-28 client that handles input_required itself.
func (f *statelessFixture) client() *sdk.ClientSession {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "retrier", Version: "1"}, &sdk.ClientOptions{
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
		// The capability is declared; the handler is never called, since
		// the test answers the input requests itself.
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, errors.New("not asked this way")
		},
	})
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		f.t.Fatalf("connect: %v", err)
	}
	f.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls clerk.register with the input responses and state given.
func call(t *testing.T, cs *sdk.ClientSession, responses sdk.InputResponseMap, state string) (*sdk.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: "clerk.register", Arguments: map[string]any{},
		InputResponses: responses, RequestState: state})
}

// question is the one elicitation a result asks for, and its key.
func question(t *testing.T, res *sdk.CallToolResult) (string, *sdk.ElicitParams) {
	t.Helper()
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("result = %+v; want input_required with one input request and a requestState", res)
	}
	for key, r := range res.InputRequests {
		p, ok := r.(*sdk.ElicitParams)
		if !ok {
			t.Fatalf("input request %s is a %T; want an elicitation", key, r)
		}
		return key, p
	}
	panic("unreachable")
}

func accept(content map[string]any) *sdk.ElicitResult {
	return &sdk.ElicitResult{Action: "accept", Content: content}
}

// TestAStatelessCallAsksByInputRequiredAndARestartLosesNothing: a call of
// 2026-07-28 whose turn asks answers input_required; the client's retry
// with the answer and the requestState continues the recorded turn, across
// a restart of the server between any two requests, and a retry sent twice
// does the work once.
func TestAStatelessCallAsksByInputRequiredAndARestartLosesNothing(t *testing.T) {
	f := newStatelessFixture(t)
	res, err := call(t, f.client(), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	key, q := question(t, res)
	if q.Message != "What is your name?" {
		t.Errorf("asked %q; want the tool's question", q.Message)
	}

	f.restart()
	res, err = call(t, f.client(), sdk.InputResponseMap{key: accept(map[string]any{"name": "Ada"})}, res.RequestState)
	if err != nil {
		t.Fatalf("the retry after a restart: %v", err)
	}
	key, q = question(t, res)
	if q.Message != "How old are you?" {
		t.Errorf("asked %q; want the tool's second question", q.Message)
	}

	f.restart()
	answer := sdk.InputResponseMap{key: accept(map[string]any{"age": 36})}
	first, err := call(t, f.client(), answer, res.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	if first.NeedsInput() || first.IsError || text(first) != `"Ada is 36"` {
		t.Fatalf("result = %+v (%s); want the tool's result", first, text(first))
	}
	again, err := call(t, f.client(), answer, res.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	if text(again) != text(first) {
		t.Errorf("the same retry again = %s; want the same result, %s", text(again), text(first))
	}
	if n := f.ran.Load(); n != 1 {
		t.Errorf("the tool's work ran %d times; want once", n)
	}
}

// TestARequestStateThatWasChangedIsRefused: a requestState is the server's
// own; changed by a byte, or handed to another tool, it is a protocol error
// and records nothing.
func TestARequestStateThatWasChangedIsRefused(t *testing.T) {
	f := newStatelessFixture(t)
	cs := f.client()
	res, err := call(t, cs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := question(t, res)
	answer := sdk.InputResponseMap{key: accept(map[string]any{"name": "Eve"})}
	for _, state := range []string{res.RequestState + "x", "x" + res.RequestState[1:], "garbage"} {
		_, err = call(t, cs, answer, state)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("a call with requestState %q: err = %v; want invalid params", state, err)
		}
	}
	// The untouched state still works: nothing was recorded meanwhile.
	res, err = call(t, cs, answer, res.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	if _, q := question(t, res); q.Message != "How old are you?" {
		t.Errorf("asked %q after the genuine retry; want the second question", q.Message)
	}
}

// TestAMissingOrRefusedAnswerIsAskedAgain: a retry without the answer to a
// question asks it again; an answer the question's rules refuse asks it
// again saying why, and is not recorded.
func TestAMissingOrRefusedAnswerIsAskedAgain(t *testing.T) {
	f := newStatelessFixture(t)
	cs := f.client()
	res, err := call(t, cs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := question(t, res)
	res, err = call(t, cs, sdk.InputResponseMap{"another": accept(map[string]any{"name": "Eve"})}, res.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	again, q := question(t, res)
	if again != key || q.Message != "What is your name?" {
		t.Errorf("asked %s %q; want the same question again", again, q.Message)
	}
	res, err = call(t, cs, sdk.InputResponseMap{key: accept(map[string]any{"name": "Eve"})}, res.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	ageKey, _ := question(t, res)
	res, err = call(t, cs, sdk.InputResponseMap{ageKey: accept(map[string]any{"age": 400})}, res.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	_, q = question(t, res)
	if !strings.HasPrefix(q.Message, "Your answer was refused: ") || !strings.HasSuffix(q.Message, "How old are you?") {
		t.Errorf("asked %q; want the age asked again, saying why the answer was refused", q.Message)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the tool's work ran %d times on a refused answer", n)
	}
}

// TestACallCutOffWhileItsQuestionWaitsIsTakenOverByItsRetry: a session of
// 2025-11-25 ends while its call's question waits (here the server is
// restarted on the same database); the client's retry of the same call in
// a new session is asked the waiting question, not the ones answered
// before, and the call finishes once, in its first conversation.
func TestACallCutOffWhileItsQuestionWaitsIsTakenOverByItsRetry(t *testing.T) {
	f := newStatelessFixture(t)
	asked := make(chan string, 4)
	waiting := make(chan struct{})
	first := f.sessionClient(func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked <- req.Params.Message
		if req.Params.Message == "How old are you?" {
			<-waiting // the person is still thinking when the server goes down
			return nil, errors.New("gone")
		}
		return accept(map[string]any{"name": "Ada"}), nil
	})
	go call(t, first, nil, "") //nolint:errcheck // cut off below
	for _, want := range []string{"What is your name?", "How old are you?"} {
		if got := <-asked; got != want {
			t.Fatalf("asked %q; want %q", got, want)
		}
	}
	f.restart()
	defer close(waiting)

	var retried []string
	second := f.sessionClient(func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		retried = append(retried, req.Params.Message)
		return accept(map[string]any{"age": 36}), nil
	})
	res, err := call(t, second, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if text(res) != `"Ada is 36"` {
		t.Errorf("the retry's result = %s; want the call finished with both answers", text(res))
	}
	if len(retried) != 1 || retried[0] != "How old are you?" {
		t.Errorf("the retry was asked %q; want only the question that waited", retried)
	}
	convs, err := f.svc.Conversations(context.Background(), f.owner)
	if err != nil || len(convs) != 1 {
		t.Errorf("conversations = %d (%v); want the call's first one, finished there", len(convs), err)
	}
	if n := f.ran.Load(); n != 1 {
		t.Errorf("the tool's work ran %d times; want once", n)
	}
}

// sessionClient connects a 2025-11-25 client that answers questions with
// answer while the call runs.
func (f *statelessFixture) sessionClient(answer func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "sessions", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: answer})
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		f.t.Fatalf("connect: %v", err)
	}
	f.t.Cleanup(func() { cs.Close() })
	return cs
}

// TestAStatelessCallsConversationIsNamedAfterItsClientAndTool: each call of
// 2026-07-28 is a conversation of its own; its title says who called what,
// so that a list of them reads.
func TestAStatelessCallsConversationIsNamedAfterItsClientAndTool(t *testing.T) {
	f := newStatelessFixture(t)
	if _, err := call(t, f.client(), nil, ""); err != nil {
		t.Fatal(err)
	}
	convs, err := f.svc.Conversations(context.Background(), f.owner)
	if err != nil || len(convs) != 1 || convs[0].Title != "MCP: retrier: clerk.register" {
		t.Errorf("conversations = %+v (%v); want one titled MCP: retrier: clerk.register", convs, err)
	}
}

// TestARefusedAnswersReasonIsInTheCallsResult: a client of 2025-11-25 that
// set no logging level and whose answer the question's rules refuse reads
// why in the call's result, where it looks, not only in a log message.
func TestARefusedAnswersReasonIsInTheCallsResult(t *testing.T) {
	f := newStatelessFixture(t)
	cs := f.sessionClient(func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		if req.Params.Message == "How old are you?" {
			return accept(map[string]any{"age": 400}), nil
		}
		return accept(map[string]any{"name": "Ada"}), nil
	})
	res, err := call(t, cs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	// The SDK checks the answer against the form's schema before the
	// question's own rules do; either way the reason names the bound.
	if got := text(res); !strings.Contains(got, `"How old are you?"`) || !strings.Contains(got, "150") || !strings.Contains(got, "cancelled") {
		t.Errorf("the call's result = %q; want it to say why the answer was refused", got)
	}
}

package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// restartable serves /mcp at one address from a server the test restarts
// on the same database, as a program restarted behind the same port: the
// client keeps its URL, what answers it is new.
type restartable struct {
	t      *testing.T
	db     *store.DB
	tools  *mcp.Tools
	owner  string
	secret []byte
	ts     *httptest.Server
	// accounts, when set, are the personal tokens /mcp takes, beside the
	// program's token "program-token".
	accounts mcp.Accounts

	mu  sync.Mutex
	svc *chat.Service
	h   http.Handler
}

func newRestartable(t *testing.T) *restartable { return newRestartableWith(t, nil) }

// newRestartableWith is newRestartable taking personal tokens too.
func newRestartableWith(t *testing.T, accounts mcp.Accounts) *restartable {
	r := &restartable{t: t, db: storetest.Open(t), tools: mcp.NewTools(testAgents()...),
		owner: chat.NewSessionID(), secret: []byte(strings.Repeat("s", 32)), accounts: accounts}
	r.start()
	r.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		h := r.h
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(func() {
		r.ts.CloseClientConnections()
		r.ts.Close()
		r.mu.Lock()
		defer r.mu.Unlock()
		r.svc.Close()
	})
	return r
}

// start starts a server on the database.
func (r *restartable) start() {
	svc := chat.New(chat.Config{Store: r.db, Assistants: registry.New(r.tools.Assistant()), Model: offline.New(), DecideByRule: true})
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: r.tools, Owner: r.owner, Secret: r.secret, Events: r.db, Sessions: r.db, Name: "t", Version: "1"})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.svc, r.h = svc, mcp.Handler(srv, "", nil)
	if r.accounts != nil {
		r.h = mcp.Handler(srv, "program-token", r.accounts)
	}
}

// restart stops the server as SIGKILL would (nothing recorded after, its
// connections cut) and starts another on the same database.
func (r *restartable) restart() {
	r.mu.Lock()
	old := r.svc
	r.mu.Unlock()
	old.Close()
	r.start()
	r.ts.CloseClientConnections()
}

func (r *restartable) service() *chat.Service {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.svc
}

// The server restarts while a call's question is with the go-sdk client
// (2025-11-25). The client's stream of the call breaks; it resumes it with
// Last-Event-ID from the restarted server, and answers the question. The
// answer reaches the call's turn, the call's result reaches the client on
// the resumed stream, and the user was asked once.
func TestAnAnswerAfterARestartReachesTheCallWhoseResultComesOnTheResumedStream(t *testing.T) {
	r := newRestartable(t)
	asked, restarted := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	opts := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		if n.Add(1) == 1 {
			close(asked)
			<-restarted // the user answers while the server restarts
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Each request on a connection of its own, as after a real restart: a
	// connection kept alive across the test's restart could be reused for
	// the answer after the server closed it, and a POST failed so is not
	// sent again by the client (nor would it be by a browser).
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go-client", Version: "1"}, opts).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.ts.URL, HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })

	type outcome struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{"greeting": "Hi"}})
		done <- outcome{res, err}
	}()
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the client was not asked the question")
	}
	r.restart()
	close(restarted)

	var got outcome
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the call got neither a result nor an error within 20s of the restart")
	}
	if got.err != nil {
		t.Fatalf("the call after the restart: %v", got.err)
	}
	if txt := text(got.res); got.res.IsError || !strings.Contains(txt, "Hi, Ada") {
		t.Errorf("the call's result = %q (error %v); want the greeting with the answer given across the restart", txt, got.res.IsError)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("the user was asked %d times; want once", got)
	}
	svc := r.service()
	convs, err := svc.Conversations(ctx, r.owner)
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %d (%v); want the call's one", len(convs), err)
	}
	v, err := svc.View(ctx, r.owner, convs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, it := range v.Items {
		if it.Elicit != nil {
			a := string(it.Elicit.State)
			if it.Elicit.Response != nil {
				a += " " + string(it.Elicit.Response.Action)
			}
			answers = append(answers, a)
		}
	}
	if len(answers) != 1 || answers[0] != string(pageview.Answered)+" "+string(elicit.Accept) {
		t.Errorf("the conversation's questions: %q; want one, accepted", answers)
	}
}

// A call cut off by a restart that its client then cancels is stopped, as
// a call the client cancels before a restart is: the turn does not wait on
// for an answer nobody will give, and the session's next call runs.
func TestACallCutOffByARestartAndCancelledIsStopped(t *testing.T) {
	r := newRestartable(t)
	asked, gone := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	opts := &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		if n.Add(1) == 1 {
			close(asked)
		}
		select { // the user never answers
		case <-gone:
		case <-ctx.Done():
		}
		return nil, context.Canceled
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}} // see the test above
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go-client", Version: "1"}, opts).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.ts.URL, HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	t.Cleanup(func() { close(gone) }) // before the client closes
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{"greeting": "Hi"}})
		done <- err
	}()
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the client was not asked the question")
	}
	r.restart()
	stop() // the client gives up on the call: notifications/cancelled, to the restarted server
	<-done

	svc := r.service()
	convs, err := svc.Conversations(ctx, r.owner)
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %d (%v); want the call's one", len(convs), err)
	}
	chattest.WaitView(t, svc, r.owner, convs[0].ID, "the cancelled call's turn stopped", func(v pageview.View) bool {
		return !v.Status.Running && !v.Status.Waiting && len(v.Items) > 0 && v.Items[len(v.Items)-1].Kind == tree.Stopped
	})
	res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 2, "b": 3}})
	if got := text(res); got != `{"sum":5}` {
		t.Errorf("the session's next call = %q; want it run", got)
	}
}

package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/turn"
)

// taskFixture serves, on one database across restarts, tools served as
// tasks: worker.review asks a name then does its work (counted), and
// worker.wait works until it is stopped.
type taskFixture struct {
	t      *testing.T
	tools  *mcp.Tools
	secret []byte
	owner  string
	ran    atomic.Int32
	// release lets worker.slow end its work; started counts its starts.
	release chan struct{}
	started atomic.Int32
	db      chat.Store
	url     string
	close   func()
}

func newTaskFixture(t *testing.T) *taskFixture {
	f := &taskFixture{t: t, secret: []byte(strings.Repeat("t", 32)), owner: chat.NewSessionID(), release: make(chan struct{})}
	a := agents.New("worker", "Works long.")
	agents.NewTool(a, "slow", "Works until the test lets it end", func(ctx context.Context, _ struct{}) (string, error) {
		f.started.Add(1)
		select {
		case <-f.release:
			return "worked", nil
		case <-ctx.Done():
			return "", context.Cause(ctx)
		}
	})
	agents.NewTool(a, "review", "Asks whose work to review, then reviews it", func(ctx context.Context, _ struct{}) (string, error) {
		n, err := turn.Ask(ctx, nameForm, "Whose work?", struct{}{})
		if err != nil {
			return "", err
		}
		f.ran.Add(1)
		return "reviewed the work of " + n.Content.Name, nil
	})
	agents.NewTool(a, "wait", "Works until it is stopped", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", context.Cause(ctx)
	})
	agents.NewTool(a, "quick", "Answers at once", func(context.Context, struct{}) (string, error) {
		return "done", nil
	})
	f.tools = mcp.NewTools(a)
	f.db = storetest.Open(t)
	f.start()
	t.Cleanup(func() { f.close() })
	return f
}

// start serves the tools on a fresh chat service over db, as a restarted
// server would.
func (f *taskFixture) start() {
	svc := chat.New(chat.Config{Store: f.db, Assistants: registry.New(f.tools.Assistant()), Model: offline.New(), DecideByRule: true})
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: f.tools, Owner: f.owner, Secret: f.secret, Name: "t", Version: "1",
		Tasks: map[string]mcp.Task{"worker.review": {}, "worker.wait": {}, "worker.quick": {}, "worker.slow": {}}})
	ts := httptest.NewServer(mcp.Handler(srv, "", nil))
	f.url = ts.URL
	f.close = func() {
		svc.Close()
		ts.CloseClientConnections()
		ts.Close()
	}
}

func (f *taskFixture) restart() {
	f.close()
	f.start()
}

// rpcReply is a JSON-RPC response.
type rpcReply struct {
	status int
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// takesTasks is the _meta of a 2026-07-28 client that takes tasks and
// can be asked.
var takesTasks = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "poller", "version": "1"},
	"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
}

// post sends one JSON-RPC request over HTTP, as a client of 2026-07-28
// does (the SDK's client knows no tasks), with meta as its _meta.
func (f *taskFixture) post(method string, params map[string]any, meta map[string]any, header ...string) rpcReply {
	f.t.Helper()
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, f.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	// The routing headers SEP-2243 asks for: the method, and what it names.
	req.Header.Set("Mcp-Method", method)
	if n, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", n)
	} else if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		f.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := rpcReply{status: resp.StatusCode}
	if err := json.Unmarshal(b, &r); err != nil {
		f.t.Fatalf("%s answered %d %s: %v", method, resp.StatusCode, b, err)
	}
	return r
}

// ok returns r's result, failing the test on an error.
func (f *taskFixture) ok(what string, r rpcReply) map[string]json.RawMessage {
	f.t.Helper()
	if r.Error != nil {
		f.t.Fatalf("%s: error %d %s", what, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// create calls tool and returns the id of the task it answers with.
func (f *taskFixture) create(tool string) string {
	f.t.Helper()
	res := f.ok("tools/call", f.post("tools/call", map[string]any{"name": tool, "arguments": map[string]any{}}, takesTasks))
	if str(res["resultType"]) != "task" || str(res["taskId"]) == "" {
		f.t.Fatalf("tools/call of %s = %v; want a task", tool, res)
	}
	return str(res["taskId"])
}

// until polls the task until its status is status, and returns the task.
func (f *taskFixture) until(id, status string) map[string]json.RawMessage {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := f.ok("tasks/get", f.post("tasks/get", map[string]any{"taskId": id}, takesTasks))
		if got := str(res["status"]); got == status {
			return res
		} else if time.Now().After(deadline) {
			f.t.Fatalf("the task is %s (%v); want %s", got, res, status)
		}
		time.Sleep(20 * time.Millisecond) // a poll's interval, not a synchronization
	}
}

// TestATaskIsPolledAnsweredLaterAndReadAcrossRestarts: a call served as a
// task answers at once with the task; polled after a restart, the task
// says the question its turn waits on; answered later, after another
// restart, it completes with the tool's result, its work done once.
func TestATaskIsPolledAnsweredLaterAndReadAcrossRestarts(t *testing.T) {
	f := newTaskFixture(t)
	id := f.create("worker.review")

	f.restart()
	got := f.until(id, "input_required")
	var reqs map[string]struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(got["inputRequests"], &reqs); err != nil || len(reqs) != 1 {
		t.Fatalf("inputRequests = %s; want one", got["inputRequests"])
	}
	var key string
	for k, r := range reqs {
		key = k
		if r.Method != "elicitation/create" || r.Params.Message != "Whose work?" {
			t.Errorf("input request = %+v; want the tool's question as elicitation/create", r)
		}
	}

	f.restart()
	answer := map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}
	ack := f.ok("tasks/update", f.post("tasks/update", answer, takesTasks))
	if str(ack["resultType"]) != "complete" || ack["status"] != nil {
		t.Errorf("tasks/update = %v; want a bare acknowledgement", ack)
	}
	f.ok("tasks/update again", f.post("tasks/update", answer, takesTasks)) // a retry records nothing twice
	done := f.until(id, "completed")
	var res sdk.CallToolResult
	if err := json.Unmarshal(done["result"], &res); err != nil || text(&res) != `"reviewed the work of Ada"` {
		t.Errorf("result = %s; want the tool's result", done["result"])
	}
	if n := f.ran.Load(); n != 1 {
		t.Errorf("the tool's work ran %d times; want once", n)
	}
}

// TestATaskCutOffByARestartGoesOn: a task whose tool was working when
// the server went down is taken up again when it is next polled, and
// completes.
func TestATaskCutOffByARestartGoesOn(t *testing.T) {
	f := newTaskFixture(t)
	id := f.create("worker.slow")
	f.until(id, "working")
	for deadline := time.Now().Add(10 * time.Second); f.started.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the tool did not start")
		}
	}
	f.restart()
	f.until(id, "working")
	close(f.release)
	done := f.until(id, "completed")
	var res sdk.CallToolResult
	if err := json.Unmarshal(done["result"], &res); err != nil || text(&res) != `"worked"` {
		t.Errorf("result = %s; want the tool's result", done["result"])
	}
	if n := f.started.Load(); n != 2 {
		t.Errorf("the tool started %d times; want twice, cut off by the restart and taken up after it", n)
	}
}

// TestATaskIsCancelled: cancelling a working task stops its turn, and the
// task says so; cancelling it again is acknowledged alike.
func TestATaskIsCancelled(t *testing.T) {
	f := newTaskFixture(t)
	id := f.create("worker.wait")
	f.until(id, "working")
	for range 2 {
		ack := f.ok("tasks/cancel", f.post("tasks/cancel", map[string]any{"taskId": id}, takesTasks))
		if str(ack["resultType"]) != "complete" || len(ack) != 1 {
			t.Errorf("tasks/cancel = %v; want a bare acknowledgement", ack)
		}
		f.until(id, "cancelled")
	}
}

// TestATaskIsRefusedWhatItCannotBe: a changed task id is no task; a
// client that did not declare the extension is told so; a routing header
// that contradicts the body is refused.
func TestATaskIsRefusedWhatItCannotBe(t *testing.T) {
	f := newTaskFixture(t)
	id := f.create("worker.quick")
	for _, forged := range []string{id + "x", "x" + id[1:], "nonsense"} {
		if r := f.post("tasks/get", map[string]any{"taskId": forged}, takesTasks); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("tasks/get of a changed id = %+v; want -32602", r)
		}
	}
	plain := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		if r := f.post(m, map[string]any{"taskId": id}, plain); r.Error == nil || r.Error.Code != -32021 {
			t.Errorf("%s without the extension = %+v; want -32021", m, r)
		}
	}
	for _, h := range [][]string{{"Mcp-Name", "another"}, {"Mcp-Name", ""}, {"Mcp-Method", "tasks/cancel"}} {
		r := f.post("tasks/get", map[string]any{"taskId": id}, takesTasks, h...)
		if r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32020 {
			t.Errorf("tasks/get with %s: %q = %d %+v; want 400 and -32020", h[0], h[1], r.status, r)
		}
	}
	if got := str(f.until(id, "completed")["taskId"]); got != id {
		t.Errorf("the task's id = %q; want %q", got, id)
	}
}

// TestARefusedAnswerToATaskIsSaidAndAskedAgain: an answer the question's
// rules refuse is an error saying why, and the question stays pending.
func TestARefusedAnswerToATaskIsSaidAndAskedAgain(t *testing.T) {
	f := newTaskFixture(t)
	id := f.create("worker.review")
	var reqs map[string]json.RawMessage
	json.Unmarshal(f.until(id, "input_required")["inputRequests"], &reqs)
	for key := range reqs {
		bad := map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": 5}}}}
		r := f.post("tasks/update", bad, takesTasks)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "refused") {
			t.Errorf("tasks/update with a wrong answer = %+v; want -32602 saying it was refused", r)
		}
	}
	f.until(id, "input_required")
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the tool's work ran %d times on a refused answer", n)
	}
}

// TestATaskToolCalledWithoutTheExtensionAnswersItsResult: a client that
// does not take tasks calls the same tool as any other, and gets its
// result.
func TestATaskToolCalledWithoutTheExtensionAnswersItsResult(t *testing.T) {
	f := newTaskFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "plain", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "worker.quick", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != `"done"` {
		t.Fatalf("call = %+v, %v; want the tool's result", res, err)
	}
}

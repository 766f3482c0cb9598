package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// JSON-RPC error codes the tasks surface answers with.
const (
	codeInvalidParams     = -32602
	codeHeaderMismatch    = -32020 // an Mcp-Method or Mcp-Name header that the body contradicts (SEP-2243)
	codeMissingCapability = -32021 // the client did not declare what the request needs (SEP-2575)
)

// rpcError is a JSON-RPC error of the tasks surface.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
	status  int    // the HTTP status it is answered with; 200 when zero
}

func (e *rpcError) Error() string { return e.Message }

// rpcRequest is the part of a JSON-RPC request the tasks surface reads.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	Meta           map[string]any             `json:"_meta"`
}

// tasks serves the tasks extension beside next, the SDK's stateless
// handler. It is written by hand because go-sdk v1.8.0 has no tasks: its
// server refuses a method it does not know (tasks/get, tasks/update,
// tasks/cancel) before any middleware of its sees the request, and a
// tools/call handler of its can only return a CallToolResult, never the
// CreateTaskResult a task's call answers. So the requests of the tasks
// surface are read here, on their way to the SDK: those of the three
// methods, and a tools/call of a tool Config.Tasks names from a client
// that takes tasks, are answered here; any other goes on to next
// untouched. A server without tasks serves next alone.
func (s *Server) tasks(next http.Handler) http.Handler {
	if len(s.cfg.Tasks) == 0 {
		return next
	}
	listed := map[string]string{} // the name a tool is called by → its qualified name
	for _, q := range s.cfg.Tools.order {
		listed[s.cfg.Tools.listedName(q)] = q
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		// Bounded as the SDK bounds the bodies it reads.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
		if err != nil {
			status := http.StatusBadRequest
			if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
				status = http.StatusRequestEntityTooLarge
			}
			http.Error(w, "The request's body could not be read: "+err.Error(), status)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m rpcRequest
		if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || m.Method == "" {
			next.ServeHTTP(w, r) // a notification, a batch, or not JSON-RPC: the SDK's to answer
			return
		}
		if h := strings.TrimSpace(r.Header.Get("Mcp-Method")); h != "" && h != m.Method {
			reply(w, m.ID, nil, &rpcError{Code: codeHeaderMismatch, status: http.StatusBadRequest,
				Message: fmt.Sprintf("the Mcp-Method header says %q but the request is %q", h, m.Method)})
			return
		}
		var res any
		switch m.Method {
		case "tasks/get", "tasks/update", "tasks/cancel":
			res, err = s.serveTask(r.Context(), r, m)
		case "tools/call":
			var handled bool
			if res, handled, err = s.callTask(r.Context(), r.Header, m, listed); !handled {
				next.ServeHTTP(w, r)
				return
			}
		default:
			next.ServeHTTP(w, r)
			return
		}
		reply(w, m.ID, res, err)
	})
}

// takesTasks reports whether a request's _meta says its client takes the
// tasks extension.
func takesTasks(meta map[string]any) bool {
	caps, _ := meta[sdk.MetaKeyClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[tasksExtension]
	return ok
}

// errNoTasks is the answer to a request that needs the tasks extension
// from a client that did not declare it.
var errNoTasks = &rpcError{Code: codeMissingCapability,
	Message: "this request needs the client capability " + tasksExtension + ", which the request's client capabilities do not declare",
	Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}}}

// callTask serves a tools/call as a task when the tool is one and the
// client takes tasks; handled is false for a call the SDK serves as any
// other.
func (s *Server) callTask(ctx context.Context, h http.Header, m rpcRequest, listed map[string]string) (res any, handled bool, err error) {
	var p sdk.CallToolParamsRaw
	if json.Unmarshal(m.Params, &p) != nil {
		return nil, false, nil // the SDK says what is wrong with it
	}
	name, ok := listed[p.Name]
	t, isTask := s.cfg.Tasks[name]
	switch {
	case !ok || !isTask:
		return nil, false, nil
	case !takesTasks(p.Meta):
		if t.Required {
			return nil, true, errNoTasks
		}
		return nil, false, nil
	case t.AfterInput && p.RequestState == "":
		return nil, false, nil // its questions first, by input_required
	}
	if err := routing(h, p.Name); err != nil {
		return nil, true, err
	}
	p.Name = name
	req := &sdk.CallToolRequest{Params: &p}
	if !t.AfterInput {
		res, err = s.startTask(ctx, req, name)
		return res, true, err
	}
	st, err := open(s.cfg.Secret, p.RequestState)
	if err != nil || st.Tool != name {
		return nil, true, &rpcError{Code: codeInvalidParams, Message: errState.Error()}
	}
	res, err = s.escalate(ctx, req, st)
	return res, true, err
}

// serveTask answers tasks/get, tasks/update and tasks/cancel.
func (s *Server) serveTask(ctx context.Context, r *http.Request, m rpcRequest) (any, error) {
	var p taskParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "the params of " + m.Method + " cannot be read: " + err.Error()}
	}
	if !takesTasks(p.Meta) {
		return nil, errNoTasks
	}
	if err := routing(r.Header, p.TaskID); err != nil {
		return nil, err
	}
	st, err := open(taskKey(s.cfg.Secret), p.TaskID)
	if err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("there is no task %q: a task id is one this server gave", p.TaskID)}
	}
	req := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: st.Tool, Meta: p.Meta}}
	switch m.Method {
	case "tasks/get":
		return s.look(ctx, req, p.TaskID, st)
	case "tasks/update":
		return ack, s.update(ctx, req, st, p.InputResponses)
	default:
		// Stopping a turn that has ended already is no error: a cancel is
		// acknowledged alike whatever the task's state.
		if err := s.cfg.Chat.Stop(ctx, s.ownerOf(ctx), st.Conv); err != nil && apperr.CodeOf(err) != apperr.Conflict {
			return nil, fmt.Errorf("stop the task's turn: %w", err)
		}
		return ack, nil
	}
}

// routing checks the headers SEP-2243 asks of a request, as the SDK
// checks those of the requests it serves: Mcp-Method, and Mcp-Name saying
// what the request names (the tool called, the task). The method itself
// was checked against the body already (tasks).
func routing(h http.Header, name string) error {
	if h.Get("Mcp-Method") == "" {
		return &rpcError{Code: codeHeaderMismatch, status: http.StatusBadRequest, Message: "the request has no Mcp-Method header"}
	}
	if got := strings.TrimSpace(h.Get("Mcp-Name")); got != name {
		return &rpcError{Code: codeHeaderMismatch, status: http.StatusBadRequest,
			Message: fmt.Sprintf("the Mcp-Name header says %q but the request names %q", got, name)}
	}
	return nil
}

// ack is the answer to tasks/update and tasks/cancel: the task's state is
// for the next tasks/get to say.
var ack = map[string]string{"resultType": "complete"}

// update records the client's answers to the task's pending questions,
// keyed by their ids, through the path a stateless call's retry takes
// (watch.answers). Answers to anything else are ignored; a question left
// unanswered stays pending.
func (s *Server) update(ctx context.Context, req *sdk.CallToolRequest, st taskState, responses map[string]json.RawMessage) error {
	w := s.newWatch(req, s.ownerOf(ctx), st.Conv, true)
	es, err := w.openRun(ctx)
	if err != nil {
		return fmt.Errorf("read the conversation of the task: %w", err)
	}
	es.Close()
	mine := map[string]json.RawMessage{}
	st.Asked = map[string]string{}
	for _, q := range w.pending {
		if resp, ok := responses[q.ID]; ok {
			mine[q.ID] = resp
			st.Asked[q.ID] = q.ID
		}
	}
	b, err := json.Marshal(mine)
	if err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	if err := json.Unmarshal(b, &req.Params.InputResponses); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: "the input responses cannot be read: " + err.Error()}
	}
	if err := w.answers(ctx, st); err != nil {
		return err
	}
	return w.refusal()
}

// reply writes a JSON-RPC response: res, or err as its error. An error
// that is not the protocol's is said as an internal one.
func reply(w http.ResponseWriter, id json.RawMessage, res any, err error) {
	out := map[string]any{"jsonrpc": "2.0", "id": id}
	status := http.StatusOK
	var re *rpcError
	var je *jsonrpc.Error
	switch {
	case err == nil:
		out["result"] = res
	case errors.As(err, &re):
		out["error"] = re
		if re.status != 0 {
			status = re.status
		}
	case errors.As(err, &je):
		out["error"] = je
	default:
		out["error"] = &rpcError{Code: -32603, Message: err.Error()}
	}
	b, merr := json.Marshal(out)
	if merr != nil {
		http.Error(w, "the answer could not be written: "+merr.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// tasksExtension is the name of the tasks extension (SEP-2663), under
// which a client and a server say they take tasks.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Task says how a tool's calls are served as tasks, for clients that take
// the tasks extension (revision 2026-07-28): the call answers at once with
// a task id, and the client polls the task (tasks/get), answers its
// questions whenever it likes (tasks/update) and may cancel it
// (tasks/cancel). A task is the call's turn in its conversation, so it
// survives a restart as the turn does. A tool not named in Config.Tasks is
// never a task.
type Task struct {
	// Required refuses a call of the tool from a client that does not take
	// tasks (-32021, the missing capability named), where otherwise it is
	// served as any call, by waiting for its end.
	Required bool
	// AfterInput serves the call's first questions as any call of
	// 2026-07-28 does (input_required and a requestState), and makes the
	// call a task once the client answers them: for a tool that gathers
	// what it needs, then works long.
	AfterInput bool
}

// taskState is what a task id names: the conversation of the call's turn
// and the tool it calls. It is sealed as a requestState is, under a key
// of its own (taskKey), so neither can stand for the other.
type taskState = state

// taskKey is the key task ids are sealed under, derived from the secret
// that seals requestStates.
func taskKey(secret []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("sweatpants mcp task id"))
	return h.Sum(nil)
}

// Task statuses, as the extension names them.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// taskPollInterval is how often a client is told to poll a working task.
const taskPollInterval = time.Second

// task is a task as the extension says it: the fields of CreateTaskResult
// and, filled in by look, of the DetailedTask tasks/get answers.
type task struct {
	ResultType    string           `json:"resultType"`
	TaskID        string           `json:"taskId"`
	Status        string           `json:"status"`
	StatusMessage string           `json:"statusMessage,omitempty"`
	CreatedAt     string           `json:"createdAt"`
	LastUpdatedAt string           `json:"lastUpdatedAt"`
	TTLMs         *int64           `json:"ttlMs"` // null: the record is kept, never expired
	PollInterval  int64            `json:"pollIntervalMs"`
	InputRequests json.RawMessage  `json:"inputRequests,omitempty"`
	Result        *json.RawMessage `json:"result,omitempty"`
	Error         *taskError       `json:"error,omitempty"`
}

// taskError is a failed task's error, as a JSON-RPC error says it.
type taskError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// newTask is the envelope of the task id names in conversation c.
func newTask(id string, c tree.Conversation, status string) task {
	return task{ResultType: "task", TaskID: id, Status: status,
		CreatedAt: stamp(c.Created), LastUpdatedAt: stamp(c.Updated), PollInterval: taskPollInterval.Milliseconds()}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// startTask starts the call req as a task: its turn in a conversation of
// its own, as a first stateless call starts it, and the task that names
// it. A call the conversation refuses is answered at once, as a tool error.
func (s *Server) startTask(ctx context.Context, req *sdk.CallToolRequest, name string) (any, error) {
	owner := s.ownerOf(ctx)
	c, err := s.cfg.Chat.Create(ctx, owner, AssistantName)
	if err != nil {
		return nil, fmt.Errorf("start the conversation of the task: %w", err)
	}
	if err := s.cfg.Chat.Rename(ctx, owner, c.ID, titleOf(req.ClientInfo())+": "+name); err != nil {
		return nil, fmt.Errorf("name the conversation of the task: %w", err)
	}
	if err := s.send(ctx, owner, c.ID, call{Tool: name, Arguments: req.Params.Arguments, Stateless: true}); err != nil {
		return errorResult(apperr.MessageOf(err)), nil
	}
	return newTask(seal(taskKey(s.cfg.Secret), taskState{Conv: c.ID, Tool: name}), c, taskWorking), nil
}

// escalate makes a call that gathered its input by input_required a task
// (Task.AfterInput): the client's answers are recorded as a retry's are,
// and the task names the same turn.
func (s *Server) escalate(ctx context.Context, req *sdk.CallToolRequest, st state) (any, error) {
	w := s.newWatch(req, s.ownerOf(ctx), st.Conv, true)
	es, err := w.openRun(ctx)
	if err != nil {
		return nil, err
	}
	defer es.Close()
	if err := w.answers(ctx, st); err != nil {
		return nil, err
	}
	if err := w.refusal(); err != nil {
		return nil, err
	}
	return newTask(seal(taskKey(s.cfg.Secret), taskState{Conv: st.Conv, Tool: st.Tool}), es.Conversation(), taskWorking), nil
}

// look is the task id names, as tasks/get answers it: its run's state as
// its conversation's event stream tells it. Questions the client can be
// asked are its input requests, keyed by the questions' ids; one it cannot
// be asked (it did not say it takes elicitation, or no form holds the
// question) is answered here, as a stateless call answers it, and the turn
// goes on.
func (s *Server) look(ctx context.Context, req *sdk.CallToolRequest, id string, st taskState) (task, error) {
	w := s.newWatch(req, s.ownerOf(ctx), st.Conv, true)
	es, err := w.openRun(ctx)
	if err != nil {
		return task{}, fmt.Errorf("read the conversation of the task: %w", err)
	}
	defer es.Close()
	t := newTask(id, es.Conversation(), taskWorking)
	t.ResultType = "complete"
	res, done := w.step(ctx)
	switch {
	case !done:
		if p := w.now; p != nil {
			t.StatusMessage = p.Message
		}
	case len(w.inputs) > 0:
		t.Status = taskInputRequired
		if t.InputRequests, err = json.Marshal(res.InputRequests); err != nil {
			return task{}, fmt.Errorf("write the task's input requests: %w", err)
		}
	default:
		switch w.end.Status {
		case tree.OutcomeFailed:
			t.Status = taskFailed
			t.Error = &taskError{Code: -32603, Message: text(res)}
		case tree.OutcomeStopped:
			t.Status = taskCancelled
		default:
			t.Status = taskCompleted
			b, err := json.Marshal(res)
			if err != nil {
				return task{}, fmt.Errorf("write the task's result: %w", err)
			}
			raw := json.RawMessage(b)
			t.Result = &raw
		}
	}
	return t, nil
}

// text is the words of a result's text blocks.
func text(res *sdk.CallToolResult) string {
	var out string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			out += t.Text
		}
	}
	return out
}

// refusal is the answers a question's rules refused, as an error for the
// client to correct them: a task's questions are asked again on its next
// poll, without the words a retry's input_required carries.
func (w *watch) refusal() error {
	var whys []string
	for _, id := range slices.Sorted(maps.Keys(w.refused)) {
		whys = append(whys, fmt.Sprintf("the answer to %s was refused: %s", id, w.refused[id]))
	}
	if len(whys) == 0 {
		return nil
	}
	return &rpcError{Code: codeInvalidParams, Message: strings.Join(whys, "; ")}
}

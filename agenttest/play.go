package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Run runs a's turn on message in process, against the scripted model
// and user in opts, and returns what happened. The test fails, naming
// every problem and telling the run, when the run breaks its script (see
// Play), or when the turn fails and ExpectError was not given.
func Run(t testing.TB, a agents.Assistant, message string, opts ...Option) Transcript {
	t.Helper()
	tr, err := Play(t.Context(), a, message, opts...)
	if err != nil {
		t.Fatalf("agenttest: %s: %v", a.Name, err)
	}
	return tr
}

// Play runs a's turn on message in process, as Run does, for code with no
// test at hand (an Example). The turn's calls go to the scripts and
// settings in opts; nothing is recorded, so nothing is replayed. Its tool
// calls are decided by the permission policy as the service decides them
// (consent.go): a tool with effects asks the user's approval, which a
// step answers (Approve), unless a rule allows it.
//
// Play is strict. The error is a *ScriptError, naming each problem and
// telling the run, when a model step or a user step was not used; when the
// model was called more often than it has steps, or a step's expectation
// (WhenAsked, Check) does not hold; when a scripted tool call's arguments
// do not fit the input of the tool as offered (an ask_user with a
// misnamed field included), or a scripted ask_user call asked the user
// nothing; when the turn asked a question no user step expects, or a
// step's answer does not fit its question (a field it lacks, a value its
// schema or its kind's rules refuse, an action it does not allow); and
// when the turn failed, unless ExpectError was given (or replied, when it
// was). At the first problem of a call the turn ends.
func Play(ctx context.Context, a agents.Assistant, message string, opts ...Option) (Transcript, error) {
	cfg := configure(opts)
	r := &run{cfg: cfg, kinds: cfg.checker(), tr: Transcript{Message: message}}
	r.line(messageLine(message))
	cfg.model.watch()
	reply, err := a.Turn(r.context(ctx, a), message)

	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.tr
	tr.Reply, tr.Err = reply, err
	if err != nil {
		tr.Reply = ""
	}
	tr.lines = append(tr.lines, endLine(reply, err))
	stopped := isStop(err)
	problems := append(cfg.model.check(), cfg.user.check()...)
	if stopped { // the turn ended at a problem: what the scripts hold past it is no news
		problems = append(cfg.model.found(), cfg.user.found()...)
	}
	switch {
	case err == nil && cfg.expectError:
		problems = append(problems, fmt.Sprintf("the turn replied %q, and the script expects it to fail", clip(reply)))
	case err != nil && !stopped && !cfg.expectError:
		problems = append(problems, fmt.Sprintf("the turn failed: %v", err))
	}
	if len(problems) > 0 {
		return tr, &ScriptError{Problems: problems, Transcript: &tr}
	}
	return tr, nil
}

// run is one turn run in process: the cores of the primitives, which
// answer from the scripts and write the transcript.
type run struct {
	cfg   config
	kinds *kindset.Set

	mu      sync.Mutex // turn.Together runs calls at once
	tr      Transcript
	states  map[primitive.StateKey]json.RawMessage // the agents' state, as the turn changed it
	forks   forkStates                             // the state each tried block began from (fork.go)
	calls   int                                    // the tool calls made so far (consent.go)
	allowed map[toolKey]string                     // the tools the user allowed beyond a call, by approval
}

// context gives the turn's code its primitives, as the server does, with
// the scripts behind them.
func (r *run) context(ctx context.Context, a agents.Assistant) context.Context {
	if r.cfg.scope != nil {
		ctx = r.cfg.scope(ctx)
	}
	ctx = policy.Narrow(ctx, a.Policy...) // the assistant's rules, inside the program's
	// Now, Random and Version are the clock's, chance's and the newest
	// code's: nothing is replayed in process.
	ctx = primitive.Cores{
		Elicit: r.elicit, Notify: r.notify, Show: r.show, Sample: r.sample, Log: r.log, History: r.history,
		StateGet: r.stateGet, StateSet: r.stateSet, Fork: r.fork, ForkEnd: r.forkEnd,
	}.Provide(ctx, a.Name)
	// turn.OpenFile reads the files the user's script gave.
	ctx = primitive.Files.With(ctx, r.cfg.user.files.open)
	ctx = agents.ToolAPI.Around(ctx, r.guard, middleware.Max) // decided before anything else sees the call
	return agents.ToolAPI.Around(ctx, r.tool, middleware.Min) // next to the tool itself
}

// stateGet reads a state as the turn left it: a turn run in process starts
// from every state's initial value.
func (r *run) stateGet(_ context.Context, k primitive.StateKey) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.states[k], nil
}

func (r *run) stateSet(_ context.Context, ch primitive.StateChange) (struct{}, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.states == nil {
		r.states = map[primitive.StateKey]json.RawMessage{}
	}
	r.states[ch.StateKey] = ch.Value
	return struct{}{}, nil
}

func (r *run) line(l string) {
	r.mu.Lock()
	r.tr.lines = append(r.tr.lines, l)
	r.mu.Unlock()
}

func (r *run) elicit(_ context.Context, req elicit.Request) (elicit.Response, error) {
	r.cfg.model.heard(req)
	resp, err := r.cfg.user.answer(req, r.kinds)
	if err != nil {
		return resp, err
	}
	q := Question{Request: req, Answer: resp}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rememberLocked(req, resp)
	r.tr.Questions = append(r.tr.Questions, q)
	r.tr.lines = append(r.tr.lines, questionLine(q))
	return resp, nil
}

func (r *run) notify(_ context.Context, p middleware.Progress) (struct{}, error) {
	n := Notice{Message: p.Message, Fraction: p.Fraction}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tr.Notices = append(r.tr.Notices, n)
	r.tr.lines = append(r.tr.lines, noticeLine(n))
	return struct{}{}, nil
}

func (r *run) show(_ context.Context, f figure.Figure) (struct{}, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tr.Figures = append(r.tr.Figures, f)
	r.tr.lines = append(r.tr.lines, figureLine(f))
	return struct{}{}, nil
}

func (r *run) log(_ context.Context, e middleware.LogEntry) (struct{}, error) {
	l := Log{Level: e.Level, Message: e.Message, Attrs: e.Attrs}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tr.Logs = append(r.tr.Logs, l)
	r.tr.lines = append(r.tr.lines, logLine(l))
	return struct{}{}, nil
}

// history is the conversation so far: the message alone.
func (r *run) history(context.Context, struct{}) ([]llm.Message, error) {
	return []llm.Message{{Role: llm.User, Content: r.tr.Message}}, nil
}

// sample calls the model the turn's scope names, else the scripted one.
func (r *run) sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	model := middleware.Model.Get(ctx)
	if model == nil {
		model = r.cfg.model
	}
	resp, err := primitive.Complete(ctx, model, req, nil)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tr.Requests = append(r.tr.Requests, req)
	r.tr.lines = append(r.tr.lines, modelLine(req, resp, err))
	return resp, err
}

// tool records each tool call that runs.
func (r *run) tool(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
		out, err := next(ctx, c)
		call := ToolCall{Agent: c.Agent, Tool: c.Tool, Input: c.Input, Output: out, Err: err}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.tr.Tools = append(r.tr.Tools, call)
		r.tr.lines = append(r.tr.lines, toolLine(call))
		return out, err
	}
}

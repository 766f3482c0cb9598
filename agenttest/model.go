package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
)

// ModelScript is a scripted model: an llm.Provider that answers each call
// with the next of its steps, in order, and checks what it is asked and
// what its steps do. Made by Model, it is an Option of Run, Play and Serve,
// and it can be handed to anything that takes a provider (app.Config's
// Model); Err then says how it went. A script serves one run.
//
// A call takes the first step not used yet whose expectations (WhenAsked,
// Check) it meets, and steps with none in order: so model calls made at
// once (tools that call the model, run together), which arrive in either
// order, each take the step that expects them.
type ModelScript struct {
	steps []ModelStep

	mu       sync.Mutex
	used     []bool
	requests []llm.Request
	problems []string
	// asks are the ask_user calls the script made whose question was not
	// seen asked yet, by call id; watched says whether a run reports the
	// questions asked to the script (heard), so that it can tell.
	asks    map[string]string
	watched bool
}

// Model returns a model that answers its calls with steps, in order.
func Model(steps ...ModelStep) *ModelScript {
	m := &ModelScript{steps: steps, used: make([]bool, len(steps)), asks: map[string]string{}}
	id := 0
	for i := range m.steps {
		m.steps[i].calls = slices.Clone(m.steps[i].calls)
		for j := range m.steps[i].calls {
			if m.steps[i].calls[j].ID == "" {
				id++
				m.steps[i].calls[j].ID = fmt.Sprintf("call-%d", id)
			}
		}
	}
	return m
}

func (m *ModelScript) apply(c *config) { c.model = m }

// Name names the provider: agenttest.
func (m *ModelScript) Name() string { return "agenttest" }

// Requests returns what the model was asked, one request per call, in the
// order the calls came.
func (m *ModelScript) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// Err says how the script went: every problem found in the calls so far
// and every step not used, or nil when the model was called once per step
// and each call went as scripted.
func (m *ModelScript) Err() error {
	if ps := m.check(); len(ps) > 0 {
		return &ScriptError{Problems: ps}
	}
	return nil
}

// found lists the problems found so far.
func (m *ModelScript) found() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.problems)
}

// check lists the problems found and the steps not used, once the script
// should be over.
func (m *ModelScript) check() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ps := slices.Clone(m.problems)
	for i, step := range m.steps {
		if !m.used[i] {
			ps = append(ps, fmt.Sprintf("model step %d (%s) was never used: the model was called %s",
				i+1, step, times(len(m.requests))))
		}
	}
	if len(m.problems) == 0 { // after a problem the turn ended, and asked nothing more
		for _, id := range slices.Sorted(maps.Keys(m.asks)) {
			ps = append(ps, fmt.Sprintf("the model's ask_user call %s (%q) asked the user nothing", id, m.asks[id]))
		}
	}
	return ps
}

// Complete answers req with the next step. A call that breaks the script
// (one too many, a step whose expectation req does not meet, a tool call
// that does not fit the tools offered) is a problem of the script, and the
// call fails with an error that ends the turn.
func (m *ModelScript) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	n := len(m.requests)
	if problem := m.unaskedLocked(req); problem != "" {
		return llm.Response{}, m.failLocked(problem)
	}
	i, problem := m.pickLocked(req)
	switch {
	case i < 0:
		return llm.Response{}, m.failLocked(fmt.Sprintf("the model was called a %s time, and the script has %s; it was asked: %s",
			ordinal(n), plural(len(m.steps), "step"), lastMessage(req)))
	case problem != "":
		return llm.Response{}, m.failLocked(fmt.Sprintf("model call %d (step %d, %s): %s", n, i+1, m.steps[i], problem))
	}
	step := m.steps[i]
	if step.broken != "" {
		return llm.Response{}, m.failLocked(fmt.Sprintf("model call %d (step %d): %s", n, i+1, step.broken))
	}
	if step.fail != nil {
		return llm.Response{}, step.fail
	}
	for _, c := range step.calls {
		if problem := callProblem(req, c); problem != "" {
			return llm.Response{}, m.failLocked(fmt.Sprintf("model call %d (step %d): %s", n, i+1, problem))
		}
	}
	for _, c := range step.calls {
		if c.Name == agents.AskUserTool && m.watched {
			var in agents.AskUserInput
			json.Unmarshal([]byte(c.Arguments), &in)
			m.asks[c.ID] = in.Question
		}
	}
	resp := llm.Response{Content: step.text, Model: "scripted", Provider: m.Name(), FinishReason: "stop"}
	if len(step.calls) > 0 {
		resp.ToolCalls, resp.FinishReason = slices.Clone(step.calls), "tool_calls"
	}
	if onDelta != nil && resp.Content != "" {
		onDelta(resp.Content)
	}
	return resp, nil
}

// pickLocked marks and returns the step that answers req: the first one
// not used whose expectations req meets; else the first one not used, with
// why req does not meet its expectations; -1 when every step is used.
func (m *ModelScript) pickLocked(req llm.Request) (int, string) {
	first, problem := -1, ""
	for i, step := range m.steps {
		if m.used[i] {
			continue
		}
		p := step.problem(req)
		if p == "" {
			m.used[i] = true
			return i, ""
		}
		if first < 0 {
			first, problem = i, p
		}
	}
	if first >= 0 {
		m.used[first] = true
	}
	return first, problem
}

// heard tells the script that the turn asked the user req: an ask_user
// call of the script asking it did what it was written for.
func (m *ModelScript) heard(req elicit.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, q := range m.asks {
		if q == req.Message {
			delete(m.asks, id)
			return
		}
	}
}

// watch has the script check that its ask_user calls ask the user: a run
// that reports every question asked (heard) calls it.
func (m *ModelScript) watch() {
	m.mu.Lock()
	m.watched = true
	m.mu.Unlock()
}

// unaskedLocked finds, among the tool results req hands back, one of an
// ask_user call of the script that asked the user nothing: the loop told
// the model why instead, which is what the problem quotes.
func (m *ModelScript) unaskedLocked(req llm.Request) string {
	for _, msg := range req.Messages {
		if msg.Role != llm.Tool {
			continue
		}
		if q, ok := m.asks[msg.ToolCallID]; ok {
			delete(m.asks, msg.ToolCallID)
			return fmt.Sprintf("the model's ask_user call %s (%q) asked the user nothing; the model was told: %s",
				msg.ToolCallID, q, msg.Content)
		}
	}
	return ""
}

// failLocked records problem and returns the error that ends the turn.
func (m *ModelScript) failLocked(problem string) error {
	m.problems = append(m.problems, problem)
	return &stop{problem: problem}
}

// callProblem says why c does not fit the tools req offers, or "".
func callProblem(req llm.Request, c llm.ToolCall) string {
	var offered []string
	var spec *llm.ToolSpec
	for i, t := range req.Tools {
		offered = append(offered, t.Name)
		if t.Name == c.Name {
			spec = &req.Tools[i]
		}
	}
	switch {
	case len(req.Tools) == 0:
		return fmt.Sprintf("the script calls %s, and the model was offered no tools", c.Name)
	case req.ToolChoice == llm.ToolNone:
		return fmt.Sprintf("the script calls %s, and this call forbids tools (tool choice %q: a loop's last step)", c.Name, llm.ToolNone)
	case spec == nil:
		return fmt.Sprintf("the script calls %s, which the model was not offered (it was offered %s)", c.Name, strings.Join(offered, ", "))
	case !json.Valid([]byte(c.Arguments)):
		return fmt.Sprintf("the script calls %s with arguments that are not JSON: %s", c.Name, c.Arguments)
	}
	var schema elicit.Schema
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		return "" // a schema this kit cannot read: the tool checks its input itself
	}
	if errs := schema.Validate(json.RawMessage(c.Arguments)); len(errs) > 0 {
		return fmt.Sprintf("the script calls %s with arguments that do not fit its input (%s): %s", c.Name, errs, c.Arguments)
	}
	return ""
}

// lastMessage quotes the last message of req, as the problems name what
// the model was asked.
func lastMessage(req llm.Request) string {
	if len(req.Messages) == 0 {
		return "no messages"
	}
	return fmt.Sprintf("%q", req.Messages[len(req.Messages)-1].Content)
}

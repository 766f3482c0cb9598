package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The agent loop. The model is offered some tools and decides: each step is
// one model call, and the tool calls it makes are run (several at once
// together) and their results handed back, until the model answers in words
// or the step bound is reached. Every step is calls of the primitives, so
// in a conversation each is a node of the tree: a loop stopped, edited,
// retried or resumed after a crash behaves as a scripted turn does, and on
// replay no model call and no finished tool runs twice.

// Loop is a model-driven turn: a system prompt, the tools the model may
// call, and whether it may ask the user itself.
type Loop struct {
	// System is the system prompt each step starts with.
	System string
	// Agents lend their tools to the model.
	Agents []*Agent
	// Tools are offered to the model beside the agents' tools: tools made
	// by Func, or single tools of agents not listed in Agents. No two tools
	// of a loop may share a name (the model calls a tool by its name alone):
	// Run refuses such a loop with an error naming them.
	Tools []AnyTool
	// Sources give tools found when the loop runs, offered after Tools:
	// an outside MCP server's (package mcpclient). What a source could
	// not list is said to the model in the system prompt, so that it can
	// tell the user; a source with nothing to offer changes nothing.
	Sources []ToolSource
	// AskUser offers the model the ask_user tool (see AskUserTool): a
	// form, a choice or a yes/no it writes itself.
	AskUser bool
	// MaxSteps bounds the model calls; zero means DefaultMaxSteps. The last
	// step is made with no tools, so the loop ends in words.
	MaxSteps int
	// Choice is the tool choice of the first step (llm.ToolRequired to have
	// the model act at once); empty leaves it to the model. Later steps
	// always leave it to the model.
	Choice string
	// Direct, when set, ends the loop at the first step whose tools all ran:
	// it words their results as the reply instead of the model, for tools
	// whose results are what the user should see as they are.
	Direct func(results []Result) string
}

// Result is one tool call's outcome, as Direct gets it.
type Result struct {
	Tool   string
	Output json.RawMessage // the tool's JSON result; nil when it failed
	Err    error
}

// Text returns r as the user would read it: a string result without its
// quotes, any other result as JSON, a failure as its error.
func (r Result) Text() string {
	if r.Err != nil {
		return r.Err.Error()
	}
	var s string
	if json.Unmarshal(r.Output, &s) == nil {
		return s
	}
	return string(r.Output)
}

// DefaultMaxSteps is a loop's step bound when it sets none.
const DefaultMaxSteps = 8

// StepsError is a loop whose model kept calling tools to the last step.
type StepsError struct{ Steps int }

func (e *StepsError) Error() string {
	return fmt.Sprintf("the agent did not finish within %d steps", e.Steps)
}

// Turn answers message as an Assistant's turn does: the branch's history
// (turn.History, which ends with message) is the conversation the model
// continues.
func (l Loop) Turn(ctx context.Context, message string) (string, error) {
	var history []llm.Message
	if primitive.Installed(ctx, middleware.History) {
		var err error
		if history, err = turn.History(ctx); err != nil {
			return "", err
		}
	}
	if len(history) == 0 { // outside a conversation: the message alone
		history = []llm.Message{{Role: llm.User, Content: message}}
	}
	return l.Run(ctx, history)
}

// Run continues msgs, the conversation so far, until the model answers in
// words, and returns that answer.
func (l Loop) Run(ctx context.Context, msgs []llm.Message) (string, error) {
	found, unavailable := l.found(ctx)
	tools, specs, clashes, err := l.toolbox(found)
	if err != nil {
		return "", err
	}
	unavailable = append(unavailable, clashes...)
	steps := l.MaxSteps
	if steps <= 0 {
		steps = DefaultMaxSteps
	}
	convo := make([]llm.Message, 0, len(msgs)+1+2*steps)
	system := l.System
	if len(unavailable) > 0 {
		system = strings.TrimSpace(system + "\n\nSome tools are unavailable now; if the user asks for them, say why: " + strings.Join(unavailable, "; "))
	}
	if system != "" {
		convo = append(convo, llm.Message{Role: llm.System, Content: system})
	}
	convo = append(convo, msgs...)
	for step := 1; step <= steps; step++ {
		req := llm.Request{Messages: convo, Tools: specs}
		switch {
		case step == steps && len(specs) > 0:
			req.ToolChoice = llm.ToolNone
		case step == 1:
			req.ToolChoice = l.Choice
		}
		resp, err := turn.Sample(ctx, req)
		if err != nil {
			return "", err
		}
		if len(resp.ToolCalls) == 0 {
			return resp.Content, nil
		}
		if step == steps {
			break
		}
		convo = append(convo, llm.Message{Role: llm.Assistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		// What the model said with its calls is why it makes them, for
		// whoever is asked to approve one.
		results, outcomes, err := runCalls(ctx, strings.TrimSpace(resp.Content), tools, resp.ToolCalls)
		if err != nil {
			return "", err
		}
		specs = withdrawFinal(tools, specs, outcomes)
		if l.Direct != nil {
			return l.Direct(outcomes), nil
		}
		convo = append(convo, results...)
	}
	return "", &StepsError{Steps: steps}
}

// found lists the tools of the loop's sources, and says for the model
// what they could not list.
func (l Loop) found(ctx context.Context) ([]AnyTool, []string) {
	var tools []AnyTool
	var failed []string
	for _, src := range l.Sources {
		ts, err := src.Tools(ctx)
		tools = append(tools, ts...)
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	return tools, failed
}

// tool is one tool the loop offers, by the name the model calls it.
type tool func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// toolbox gathers the tools the model is offered and their specs: the
// agents' tools in the agents' order, then Tools, then found (the
// sources'), then ask_user.
// A found tool whose name another tool has is left out, said in clashes:
// an outside server is not the loop's author, who can rename a tool.
func (l Loop) toolbox(found []AnyTool) (tools map[string]tool, specs []llm.ToolSpec, clashes []string, err error) {
	tools = map[string]tool{}
	owners := map[string]string{} // who offers each tool, to name a clash
	add := func(owner, name, description string, schema any, run tool) error {
		if was, dup := owners[name]; dup {
			return fmt.Errorf("two tools are named %q (%s and %s); a model could not tell them apart", name, was, owner)
		}
		params, err := json.Marshal(schema)
		if err != nil {
			return fmt.Errorf("the input schema of tool %q (%s): %w", name, owner, err)
		}
		tools[name], owners[name] = run, owner
		specs = append(specs, llm.ToolSpec{Name: name, Description: description, Parameters: params})
		return nil
	}
	offer := func(owner string, t AnyTool) error {
		info := t.Info()
		if o, ok := t.(*outsideTool); ok {
			// An outside tool's schema is shown as it was written, and
			// the outside program checks its own input.
			return add(owner, info.Name, info.Description, o.inputSchema(), o.callJSON)
		}
		run := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			if errs := info.Input.Validate(in); len(errs) > 0 {
				return nil, fmt.Errorf("the arguments do not fit the tool's input: %w", errs)
			}
			return t.callJSON(ctx, in)
		}
		return add(owner, info.Name, info.Description, info.Input, run)
	}
	for _, a := range l.Agents {
		for _, t := range a.tools {
			if err := offer("of agent "+a.Name, t); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	for i, t := range l.Tools {
		if t == nil {
			return nil, nil, nil, fmt.Errorf("the loop's Tools[%d] is nil", i)
		}
		if err := offer(fmt.Sprintf("Tools[%d]", i), t); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, t := range found {
		info := t.Info()
		if was, dup := owners[info.Name]; dup {
			clashes = append(clashes, fmt.Sprintf("the tool %s of %s is left out, since a tool %s has its name", info.Name, info.Agent, was))
			continue
		}
		if err := offer("of "+info.Agent, t); err != nil {
			return nil, nil, nil, err
		}
	}
	if l.AskUser {
		if err := add("AskUser", AskUserTool, askUserDescription, askUserSchema, askUser); err != nil {
			return nil, nil, nil, err
		}
	}
	return tools, specs, clashes, nil
}

// runCalls runs the model's tool calls, several at once together, and
// returns their results as tool messages in the calls' order. A tool's
// failure goes back to the model as its result; only a stop (the turn's
// context ending) ends the loop. reason is the text of the model's reply
// that made the calls.
func runCalls(ctx context.Context, reason string, tools map[string]tool, calls []llm.ToolCall) ([]llm.Message, []Result, error) {
	results := make([]llm.Message, len(calls))
	outcomes := make([]Result, len(calls))
	run := func(i int) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			c := calls[i]
			out, err := callTool(withMadeBy(ctx, madeBy{Reason: reason, ID: c.ID}), tools, c)
			if err != nil && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if err != nil && EndsTurn(err) {
				return err
			}
			outcomes[i] = Result{Tool: c.Name, Output: out, Err: err}
			content := string(out)
			if _, denied := errors.AsType[*DeniedError](err); denied {
				content = err.Error() // not an error of the tool's: it did not run
			} else if err != nil {
				content = "Error: " + err.Error()
			}
			results[i] = llm.Message{Role: llm.Tool, ToolCallID: c.ID, Content: content}
			return nil
		}
	}
	if len(calls) == 1 {
		if err := run(0)(ctx); err != nil {
			return nil, nil, err
		}
		return results, outcomes, nil
	}
	fns := make([]func(context.Context) error, len(calls))
	for i := range calls {
		fns[i] = run(i)
	}
	if err := turn.Together(ctx, fns...); err != nil {
		return nil, nil, err
	}
	return results, outcomes, nil
}

// withdrawFinal takes the tools whose calls a finalDeny refused out of
// tools and specs, and returns the specs left: nothing can allow them in
// this turn, so the model is not offered them again.
func withdrawFinal(tools map[string]tool, specs []llm.ToolSpec, outcomes []Result) []llm.ToolSpec {
	for _, o := range outcomes {
		if d, ok := errors.AsType[*DeniedError](o.Err); ok && d.Final {
			delete(tools, o.Tool)
			specs = slices.DeleteFunc(slices.Clone(specs), func(s llm.ToolSpec) bool { return s.Name == o.Tool })
		}
	}
	return specs
}

// EndsTurn reports whether err, met in a tool, ends the turn instead of
// going back to the model as the tool's result: a model call inside the
// tool failed (the model cannot be asked to work around its own outage, and
// Retry takes the turn up again at that call), or err says so itself with
// an EndsTurn method, as a replay that no longer matches the record does.
func EndsTurn(err error) bool {
	if _, ok := errors.AsType[*llm.Error](err); ok {
		return true
	}
	var e interface{ EndsTurn() bool }
	return errors.As(err, &e) && e.EndsTurn()
}

// callTool runs one call of the model's.
func callTool(ctx context.Context, tools map[string]tool, c llm.ToolCall) (json.RawMessage, error) {
	t, ok := tools[c.Name]
	if !ok {
		return nil, fmt.Errorf("there is no tool %q", c.Name)
	}
	args := strings.TrimSpace(c.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return nil, errors.New("the arguments are not valid JSON")
	}
	return t(ctx, json.RawMessage(args))
}

// Package agents defines the two things an app is made of. An Agent is a
// named set of typed tools, resolved through the context so that a parent
// scope — or a test — can substitute an agent for its children; a tool may
// also be a value of its own, made by Func and handed to a Loop. An
// Assistant is what a conversation talks to: its turn function answers each
// user message, using tools and the primitives of package turn; an
// application lists its assistants in app.Config. The demo's are in
// examples/demo.
package agents

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Agent is the declaration of an agent: a name and its tools. Its behaviour
// is the tools' default implementations unless an Instance in the context
// overrides them.
type Agent struct {
	Name        string
	Description string
	tools       []AnyTool // in declaration order
	// byName finds a tool for callers that hold no typed Tool: a model
	// choosing among the agent's tools.
	byName map[string]AnyTool
}

// ToolInfo describes a tool to models and developers.
type ToolInfo struct {
	// Agent is the agent that declares the tool; empty for a tool made by
	// Func, which belongs to no agent.
	Agent       string         `json:"agent"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Input       *elicit.Schema `json:"input_schema"`
	// Effects is what the tool does beyond reading, as Tool.Does declared
	// it, in JSON by name ("writes", "spends", "device", "network"); none
	// for a read-only tool. The policy asks the user before a call with
	// effects unless a rule says otherwise (package policy).
	Effects policy.Effect `json:"effects,omitempty"`
	// Title is the tool's name as a person reads it ("Book a seat"),
	// which the approval of a call asks about instead of the agent's and
	// the tool's names (Tool.Titled); empty for none.
	Title string `json:"title,omitempty"`
	// Describe, when set, words a call for the person asked to approve it,
	// from its arguments: "Seat 14A on SK4035, Oslo → Tokyo, Fri 4 Dec
	// 08:15, €129" rather than a flight's id (Tool.Describes). It is
	// called when the approval is asked, in the call's context.
	Describe func(ctx context.Context, input json.RawMessage) (string, error) `json:"-"`
	// Fixed names the arguments an approval does not show and the user
	// may not edit: an idempotency key, which the person asked has no use
	// for and must not change (Tool.Fixes).
	Fixed []string `json:"fixed,omitempty"`
}

// New declares an agent.
func New(name, description string) *Agent {
	return &Agent{Name: name, Description: description, byName: map[string]AnyTool{}}
}

// Tools lists the agent's tools in declaration order.
func (a *Agent) Tools() []ToolInfo {
	infos := make([]ToolInfo, len(a.tools))
	for i, t := range a.tools {
		infos[i] = t.Info()
	}
	return infos
}

// Tool is a typed tool: a name, a description, an input whose JSON Schema
// comes from In, and a function. A tool made by NewTool belongs to an
// agent, whose Instance in the context may replace its function; one made
// by Func is a value of its own. Either way a call passes through ToolAPI,
// so in a conversation it is recorded and a resumed turn does not run it
// again.
type Tool[In, Out any] struct {
	agent *Agent // nil for a tool made by Func
	info  ToolInfo
	def   func(context.Context, In) (Out, error)
}

// AnyTool is a tool whatever its input and output types, as a Loop offers
// it to the model (Loop.Tools): a *Tool made by Func or NewTool.
type AnyTool interface {
	// Info describes the tool.
	Info() ToolInfo
	// callJSON runs the tool on JSON input, as Tool.Call does on a typed one.
	callJSON(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
}

// NewTool adds a tool to a. Its input JSON Schema is derived from In; it
// panics if In has no schema, since tools are declared at start-up.
func NewTool[In, Out any](a *Agent, name, description string, fn func(context.Context, In) (Out, error)) *Tool[In, Out] {
	if _, dup := a.byName[name]; dup {
		panic(fmt.Sprintf("agents: agent %s declares tool %s twice", a.Name, name))
	}
	t := &Tool[In, Out]{agent: a, info: toolInfo[In](a.Name, name, description), def: fn}
	a.tools = append(a.tools, t)
	a.byName[name] = t
	return t
}

// Func makes a tool of fn that belongs to no agent: a value to hand to a
// Loop (Loop.Tools), or to call with Call, with no agent declared for it.
// Its input JSON Schema is derived from In; it panics if In has no schema,
// since tools are made at start-up.
//
// In the record, the audit and telemetry, a Func tool's calls are those of
// the agent whose code calls it: in a conversation,
// the assistant whose turn it is, or the agent whose tool runs the Loop.
// The model sees its name alone, as it sees every tool's. Having no agent,
// it has no Instance to swap it for: a test hands its Loop a Func of its
// own instead.
func Func[In, Out any](name, description string, fn func(context.Context, In) (Out, error)) *Tool[In, Out] {
	return &Tool[In, Out]{info: toolInfo[In]("", name, description), def: fn}
}

// toolInfo describes a tool whose input is In.
func toolInfo[In any](agent, name, description string) ToolInfo {
	return ToolInfo{Agent: agent, Name: name, Description: description, Input: elicit.MustSchemaFor[In]()}
}

// Invoke calls the agent's tool named tool with JSON input, as Call does
// with a typed one: through ToolAPI's middleware, with the implementation
// the context resolves. An input that does not decode is an error of the
// call, returned to the caller (a model is told, and may try again).
func (a *Agent) Invoke(ctx context.Context, tool string, input json.RawMessage) (json.RawMessage, error) {
	t, ok := a.byName[tool]
	if !ok {
		return nil, fmt.Errorf("agent %s has no tool %q", a.Name, tool)
	}
	return t.callJSON(ctx, input)
}

// Info describes the tool.
func (t *Tool[In, Out]) Info() ToolInfo { return t.info }

// Does declares what the tool does beyond reading — policy.Writes,
// policy.Spends, policy.Device, policy.Network — and returns the tool, so
// that it is said where the tool is declared:
//
//	Book = agents.NewTool(Flights, "book", "Books a flight", book).Does(policy.Writes, policy.Spends)
//
// A tool that declares nothing is read-only: the policy's default lets
// its calls run, and asks the user before a call of one with effects.
// Does adds to what was declared before; it belongs with the declaration,
// before any call, which it is not safe beside.
func (t *Tool[In, Out]) Does(effects ...policy.Effect) *Tool[In, Out] {
	for _, e := range effects {
		t.info.Effects |= e
	}
	return t
}

// Titled names the tool for a person, as an approval of its calls asks
// ("Allow “Book a seat”?"), and returns the tool; it belongs with the
// declaration, as Does does.
func (t *Tool[In, Out]) Titled(title string) *Tool[In, Out] {
	t.info.Title = title
	return t
}

// Describes has fn word each call of the tool for the person asked to
// approve it, from its input — what the call does in the words of the
// domain, such as the route and fare of the flight an id names — and
// returns the tool. A call fn cannot describe (an error) is shown by its
// arguments alone. It belongs with the declaration, as Does does.
func (t *Tool[In, Out]) Describes(fn func(context.Context, In) (string, error)) *Tool[In, Out] {
	t.info.Describe = func(ctx context.Context, raw json.RawMessage) (string, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return "", fmt.Errorf("decode %s input: %w", t.info.Name, err)
		}
		return fn(ctx, in)
	}
	return t
}

// Fixes names arguments of the tool (by their JSON names) that an
// approval neither shows nor lets the user edit, such as an idempotency
// key, and returns the tool. An edit of the other arguments keeps them as
// the call had them. It belongs with the declaration, as Does does.
func (t *Tool[In, Out]) Fixes(args ...string) *Tool[In, Out] {
	t.info.Fixed = append(t.info.Fixed, args...)
	return t
}

// ToolCall is a tool invocation as middleware sees it.
type ToolCall struct {
	Agent string          `json:"agent"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`

	// Info describes the tool called, for middleware that shows or judges
	// the call (the permission policy: what it does, its input schema).
	Info ToolInfo `json:"-"`
	// Reason is why the model made the call, in its words: the text of
	// the model's reply that made it, when it had any (Loop); empty for a
	// call the agent's own code makes.
	Reason string `json:"-"`
	// ModelCall is the id the model gave the call (Loop), by which its
	// result is handed back; empty for a call the agent's own code makes.
	ModelCall string `json:"-"`
	// Decision is what the permission policy decided of the call, for the
	// middleware beneath the conversation's guard (telemetry); the zero
	// Decision where no guard decided.
	Decision policy.Decision `json:"-"`
}

// ToolAPI is the API every tool call passes through, so middleware can
// record, audit or substitute tool calls of any agent.
var ToolAPI = middleware.NewAPI[ToolCall, json.RawMessage]("tool")

// Call runs the tool with the implementation the context resolves: an
// Instance of the tool's agent put there by a parent scope, else the
// tool's own function. The call passes through ToolAPI's middleware.
func (t *Tool[In, Out]) Call(ctx context.Context, in In) (Out, error) {
	var out Out
	raw, err := json.Marshal(in)
	if err != nil {
		return out, fmt.Errorf("encode %s input: %w", t.info.Name, err)
	}
	res, err := t.callJSON(ctx, raw)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return out, fmt.Errorf("decode %s result: %w", t.info.Name, err)
	}
	return out, nil
}

// callJSON runs the tool on JSON input and returns its JSON result.
func (t *Tool[In, Out]) callJSON(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	impl := t.def
	agent := primitive.AgentName.Get(ctx) // a Func tool's calls are its caller's
	if t.agent != nil {
		agent = t.agent.Name
		if inst := instanceOf(ctx, t.agent); inst != nil {
			if fn, ok := inst.impls[t.info.Name].(func(context.Context, In) (Out, error)); ok {
				impl = fn
			}
		}
	}
	core := func(ctx context.Context, call ToolCall) (json.RawMessage, error) {
		var in In
		// A field the model left out takes its default, as in a form.
		if err := json.Unmarshal(t.info.Input.WithDefaults(call.Input), &in); err != nil {
			return nil, fmt.Errorf("decode %s input: %w", call.Tool, err)
		}
		ctx = primitive.AgentName.With(ctx, call.Agent)
		ctx = withMadeBy(ctx, madeBy{}) // the model's reply made this call, not those the tool makes
		res, err := impl(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	ctx = primitive.Provide(ctx, ToolAPI, core)
	return ToolAPI.Call(ctx, ToolCall{Agent: agent, Tool: t.info.Name, Input: raw, Info: t.info, Reason: madeByOf(ctx).Reason, ModelCall: madeByOf(ctx).ID})
}

// Instance is an instantiated agent: implementations for some or all of its
// tools. Put in a context with Use, it answers the agent's tool calls made
// by that scope's children.
type Instance struct {
	agent *Agent
	impls map[string]any
}

// Impl is one tool implementation for an Instance.
type Impl struct {
	tool string
	fn   any
}

// Implement pairs t with an implementation, for Instantiate.
func Implement[In, Out any](t *Tool[In, Out], fn func(context.Context, In) (Out, error)) Impl {
	return Impl{tool: t.info.Name, fn: fn}
}

// Instantiate makes an instance of a whose tools run impls; tools without an
// Impl keep their default implementation.
func (a *Agent) Instantiate(impls ...Impl) *Instance {
	inst := &Instance{agent: a, impls: make(map[string]any, len(impls))}
	for _, im := range impls {
		inst.impls[im.tool] = im.fn
	}
	return inst
}

type instanceKey struct{ agent *Agent }

// Use returns a child context in which calls to inst's agent's tools resolve
// to inst.
func Use(ctx context.Context, inst *Instance) context.Context {
	return context.WithValue(ctx, instanceKey{inst.agent}, inst)
}

func instanceOf(ctx context.Context, a *Agent) *Instance {
	inst, _ := ctx.Value(instanceKey{a}).(*Instance)
	return inst
}

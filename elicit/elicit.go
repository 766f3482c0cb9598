// Package elicit declares typed requests to the user — a form, a yes/no, the
// device's location, the clipboard — and the results they come back with.
// A kind is declared once with Go types for its input and output; the JSON
// Schema of both is derived from those types, and every response is
// validated against the output schema before an agent sees it.
package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Action is how the user answered a request.
type Action string

const (
	// Accept carries content that passed the kind's output schema.
	Accept Action = "accept"
	// Decline means the user explicitly said no.
	Decline Action = "decline"
	// Cancel means the user dismissed the request without answering.
	Cancel Action = "cancel"
	// Denied means a device permission was refused.
	Denied Action = "denied"
	// Other means the user went off-script and wrote text instead.
	Other Action = "other"
	// Unsupported means the frontend where the user is has no
	// implementation of the request's kind (a method no module of the
	// page implements, say): it says so at once rather than leave the
	// request waiting.
	Unsupported Action = "unsupported"
	// Expired means nobody answered before the request's expiry
	// (Request.Expires): the clock answered, and the question was
	// withdrawn. It is never a request's allowed action: no user and no
	// implementation can give it.
	Expired Action = "expired"
)

// Valid reports whether a is one of the known actions.
func (a Action) Valid() bool {
	switch a {
	case Accept, Decline, Cancel, Denied, Other, Unsupported, Expired:
		return true
	}
	return false
}

// Request is one elicit as it travels to an implementation and is recorded
// in the conversation: the kind, what to show, and how to validate answers.
type Request struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Agent   string          `json:"agent,omitempty"`
	Message string          `json:"message"`
	Input   json.RawMessage `json:"input,omitempty"`
	Schema  *Schema         `json:"schema"`
	Actions []Action        `json:"actions"`
	// Progress is the schema of the data an implementation reports as
	// progress (Progress.Data), for a kind that declares one (package
	// protocol); nil when its progress is stages in words alone.
	Progress *Schema `json:"progress,omitempty"`
	// Expires, when set, is when the request stops waiting: unanswered by
	// then, it is withdrawn and answered Expired. Set by the asker
	// (turn.ExpiresIn, an approval's expiry) and recorded with the
	// request, so a replay keeps the time it was asked with.
	Expires *time.Time `json:"expires,omitempty"`
}

// Allows reports whether the request accepts answers with action a.
func (r Request) Allows(a Action) bool { return slices.Contains(r.Actions, a) }

// Response is an implementation's answer to a Request.
type Response struct {
	Action  Action          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	Text    string          `json:"text,omitempty"` // for Other
	// Progress is what the implementation reported while it worked, in
	// order, as the server took it: recorded with the answer, so that a
	// replayed turn hears it again. The server sets it; an implementation
	// reports progress on its own (chat's Progress), never in its answer.
	Progress []Progress `json:"progress,omitempty"`
}

// Check validates resp against req: the action must be allowed and accepted
// content must satisfy the schema. It returns FieldErrors for content
// problems and a plain error for a disallowed action. A kind's own rules,
// beyond the schema, are checked by the kind (Kind.Verify), as the server
// does for every kind it holds (app.Config.Kinds).
func (r Request) Check(resp Response) error {
	if !resp.Action.Valid() {
		return fmt.Errorf("unknown action %q", resp.Action)
	}
	if resp.Action == Expired {
		return nil // the clock's answer, which no user gives (the server refuses it from them)
	}
	if !r.Allows(resp.Action) {
		return fmt.Errorf("this request does not allow %q", resp.Action)
	}
	if resp.Action == Accept && r.Schema != nil {
		if errs := r.Schema.Validate(resp.Content); len(errs) > 0 {
			return errs
		}
	}
	if resp.Action == Other && strings.TrimSpace(resp.Text) == "" {
		return FieldErrors{{Message: "say something to answer in your own words"}}
	}
	return nil
}

// Progress is a step an implementation reports while it works on a request,
// before the answer: a location being acquired, a permission being asked.
// Stage names the step and Message says it in words; Data is the typed
// progress of a method that declares one (Request.Progress), checked
// against that schema before anyone hears it.
type Progress struct {
	Stage   string          `json:"stage,omitempty"`
	Message string          `json:"message,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CheckProgress reports why p cannot be progress on r, if it cannot: a
// report says something (a stage, or data), and data follows the
// request's progress schema; a request that declares none takes stages
// alone. A method's typed listener (protocol.Invoke) hears the reports
// that carry data.
func (r Request) CheckProgress(p Progress) error {
	switch {
	case len(p.Data) > 0 && r.Progress == nil:
		return fmt.Errorf("this request takes progress as stages, not data")
	case len(p.Data) == 0 && p.Stage == "":
		return fmt.Errorf("a progress report needs a stage")
	case len(p.Data) > 0:
		if errs := r.Progress.Validate(p.Data); len(errs) > 0 {
			return errs
		}
	}
	return nil
}

// Result is a typed response: Content is set for Accept, Text for Other.
type Result[T any] struct {
	Action  Action
	Content T
	Text    string
}

// Kind declares an elicit kind with input type In and output type Out.
// Declarations are made once, at start-up, as package variables.
type Kind[In, Out any] struct {
	Name        string
	Description string
	Actions     []Action
	InputSchema *Schema
	Output      *Schema
	// ProgressSchema is the schema of the data an implementation reports
	// as progress, for a kind declared with one (package protocol); nil
	// for progress in stages alone.
	ProgressSchema *Schema
	// refine narrows the output schema for one request's input: the
	// options of a choice become the output's enum.
	refine func(in In, out *Schema) *Schema
	// rule is the check accepted content follows beyond the schema; nil
	// when the kind has none.
	rule contentCheck
}

// contentCheck validates accepted content against the request's input,
// beyond what the output schema says.
type contentCheck func(input, content json.RawMessage) FieldErrors

// Check adds a rule accepted content must follow given the request's input,
// beyond what the output schema can say (exactly one of two fields, an id
// that must be among the input's). Verify applies it, and so does the
// server to every answer of a kind it holds (app.Config.Kinds), so
// content that breaks it never reaches the agent. It
// returns k, for use in declarations; declaring a second check panics.
func (k *Kind[In, Out]) Check(rule func(in In, out Out) FieldErrors) *Kind[In, Out] {
	if k.rule != nil {
		panic("elicit: kind " + k.Name + " already has a check")
	}
	k.rule = func(input, content json.RawMessage) FieldErrors {
		var in In
		var out Out
		if len(input) > 0 {
			if err := json.Unmarshal(input, &in); err != nil {
				return FieldErrors{{Message: "the request's input cannot be read: " + err.Error()}}
			}
		}
		if err := decodeContent(k.Output, content, &out); err != nil {
			return FieldErrors{{Message: "the answer cannot be read: " + err.Error()}}
		}
		return rule(in, out)
	}
	return k
}

// Verify checks resp against req as Request.Check does, then, for accepted
// content, against k's rule.
func (k *Kind[In, Out]) Verify(req Request, resp Response) error {
	return verify(req, resp, k.rule)
}

// KindName returns k.Name, which makes k a Registered kind.
func (k *Kind[In, Out]) KindName() string { return k.Name }

// Refine narrows the output schema of each request from its input, so an
// implementation shows, and the server enforces, what this input allows:
// the given options as an enum, say. It returns k, for use in declarations.
func (k *Kind[In, Out]) Refine(fn func(in In, out *Schema) *Schema) *Kind[In, Out] {
	k.refine = fn
	return k
}

// NewKind declares a kind; with no actions given it allows accept, decline
// and cancel. It panics if In or Out has no schema, as declarations are
// made once at start-up.
func NewKind[In, Out any](name, description string, actions ...Action) *Kind[In, Out] {
	if len(actions) == 0 {
		actions = []Action{Accept, Decline, Cancel}
	}
	return &Kind[In, Out]{
		Name:        name,
		Description: description,
		Actions:     actions,
		InputSchema: MustSchemaFor[In](),
		Output:      MustSchemaFor[Out](),
	}
}

// Request builds the request that asks for this kind with input in.
func (k *Kind[In, Out]) Request(message string, in In) (Request, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return Request{}, fmt.Errorf("encode %s input: %w", k.Name, err)
	}
	schema := k.Output
	if k.refine != nil {
		schema = k.refine(in, schema.Clone())
	}
	return Request{Kind: k.Name, Message: message, Input: raw, Schema: schema, Actions: slices.Clone(k.Actions), Progress: k.ProgressSchema}, nil
}

// Decode turns a checked response into a typed result.
func (k *Kind[In, Out]) Decode(resp Response) (Result[Out], error) {
	res := Result[Out]{Action: resp.Action, Text: resp.Text}
	if resp.Action == Accept {
		if err := decodeContent(k.Output, resp.Content, &res.Content); err != nil {
			return res, fmt.Errorf("decode %s result: %w", k.Name, err)
		}
	}
	return res, nil
}

// decodeContent decodes accepted content, an answer of schema, into out,
// each field it leaves out set to its default. No content at all is the
// zero value, but for the defaults, as Validate counts it an empty object.
func decodeContent(schema *Schema, content json.RawMessage, out any) error {
	content = schema.WithDefaults(content)
	if len(bytes.Trim(content, jsonSpace)) == 0 {
		return nil
	}
	return json.Unmarshal(content, out)
}

// FormKind is the kind of a form whose fields are the fields of T.
const FormKind = "form"

// Form declares a form kind for T: its fields are T's fields. Besides
// filling it in, declining or closing it, the user may answer in words
// (other).
//
// T must be a struct whose fields are text, numbers, booleans or lists of
// text, the fields a form in the browser or at the terminal can show. Like
// regexp.MustCompile, Form panics when it is not, naming the type and the
// field: a form is declared once, in a package variable, so a type that
// cannot be a form fails as the program starts, not when a user answers.
func Form[T any]() *Kind[struct{}, T] {
	k := NewKind[struct{}, T](FormKind, "Fill in a form", Accept, Decline, Cancel, Other)
	if err := checkFormType(reflect.TypeFor[T](), k.Output); err != nil {
		panic(err)
	}
	return k
}

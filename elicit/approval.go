package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ApprovalInput is a tool call waiting for the user's consent: who wants to
// make it, what it does, with which arguments, and why.
type ApprovalInput struct {
	Agent       string `json:"agent" desc:"The agent whose tool it is"`
	Tool        string `json:"tool" desc:"The tool's name"`
	Description string `json:"description,omitempty" desc:"What the tool does, as it describes itself"`
	// Args is the call's arguments as JSON, indented for reading.
	Args string `json:"args" desc:"The call's arguments, as JSON"`
	// Effects names what the tool does beyond reading: writes, spends,
	// device, network. Empty for a read-only tool.
	Effects []string `json:"effects,omitempty" desc:"What the tool does beyond reading"`
	// Reason is why the model wants the call, in its words, when it said.
	Reason string `json:"reason,omitempty" desc:"Why the model wants to make the call"`
	// Schema is the JSON Schema of the tool's input, which edited
	// arguments must fit.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Title is the tool's name as a person reads it, when it has one.
	Title string `json:"title,omitempty" desc:"The tool's name as a person reads it"`
	// Summary is the call in words, as the tool describes its calls.
	Summary string `json:"summary,omitempty" desc:"The call in words"`
	// Fixed names the arguments not shown and not to be edited (an
	// idempotency key): Shown leaves them out, Edit puts them back.
	Fixed []string `json:"fixed,omitempty" desc:"Arguments the user does not see or edit"`
}

// Shown is the call's arguments as the user sees and edits them: Args
// without the Fixed ones, indented.
func (in ApprovalInput) Shown() string {
	if len(in.Fixed) == 0 {
		return in.Args
	}
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(in.Args), &args) != nil {
		return in.Args
	}
	for _, f := range in.Fixed {
		delete(args, f)
	}
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return in.Args
	}
	return string(b)
}

// Edit returns the arguments the call runs with when the user edited
// them to edited: theirs, with the Fixed ones as the call had them. An
// edit that changes a fixed argument, or that is no JSON object where
// some are fixed, is an error that says so.
func (in ApprovalInput) Edit(edited string) (json.RawMessage, error) {
	if len(in.Fixed) == 0 {
		return json.RawMessage(edited), nil
	}
	var args, was map[string]json.RawMessage
	if err := json.Unmarshal([]byte(edited), &args); err != nil || args == nil {
		return nil, errors.New("must be a JSON object of the tool's arguments")
	}
	if json.Unmarshal([]byte(in.Args), &was) != nil {
		return nil, errors.New("cannot be edited: the call's own arguments do not read")
	}
	for _, f := range in.Fixed {
		v, set := args[f]
		w, had := was[f]
		switch {
		case set && (!had || !sameJSON(v, w)):
			return nil, fmt.Errorf("cannot change %s: it is not the user's to edit", f)
		case had:
			args[f] = w
		}
	}
	return json.Marshal(args)
}

// sameJSON reports whether a and b are the same JSON value, however spaced.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// The choices of an approval.
const (
	AllowOnce         = "once"         // this call only
	AllowConversation = "conversation" // this tool, on this branch of this conversation
	AllowAlways       = "always"       // this tool, from now on: a rule the user can revoke
	DenyCall          = "deny"         // not this call; the model is told, with Reason
)

// Approval is the user's decision on a tool call.
type Approval struct {
	Choice string `json:"choice" title:"Decision" enum:"once,conversation,always,deny"`
	// Args, when set, are the arguments the user edited, as JSON: the call
	// that runs, and is recorded, is the edited one. Only with an allow.
	Args string `json:"args,omitempty" title:"Arguments" max:"100000"`
	// Reason is why the user denied the call, for the model; only with
	// deny.
	Reason string `json:"reason,omitempty" title:"Why not?" max:"1000"`
}

// Allowed reports whether the decision lets the call run.
func (a Approval) Allowed() bool { return a.Choice != DenyCall }

// Approve asks the user whether a tool call may run. Saying no is an
// answer (accept with Choice deny); cancel means the question went away
// unanswered (Stop, a withdrawn turn), which the caller treats as a deny.
var Approve = NewKind[ApprovalInput, Approval]("approval", "Allow or deny a tool call", Accept, Cancel).
	Check(func(in ApprovalInput, a Approval) FieldErrors {
		switch {
		case a.Args != "" && a.Choice == DenyCall:
			return FieldErrors{{Field: "args", Message: "are edited only to allow the call: a denied call does not run"}}
		case a.Reason != "" && a.Choice != DenyCall:
			return FieldErrors{{Field: "reason", Message: "is given only with deny"}}
		case a.Args != "":
			var v any
			if err := json.Unmarshal([]byte(a.Args), &v); err != nil {
				return FieldErrors{{Field: "args", Message: "must be JSON: " + strings.TrimPrefix(err.Error(), "json: ")}}
			}
			args, err := in.Edit(a.Args)
			if err != nil {
				return FieldErrors{{Field: "args", Message: err.Error()}}
			}
			if len(in.Schema) > 0 {
				var schema Schema
				if err := json.Unmarshal(in.Schema, &schema); err != nil {
					return FieldErrors{{Field: "args", Message: "cannot be checked: the tool's input schema is unreadable"}}
				}
				if errs := schema.Validate(args); len(errs) > 0 {
					return FieldErrors{{Field: "args", Message: "do not fit the tool's input: " + errs.Error()}}
				}
			}
		}
		return nil
	})

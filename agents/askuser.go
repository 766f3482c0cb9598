package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// AskUserTool is the name of the tool a Loop with AskUser offers so that
// the model can ask the user itself: a form of fields it names, a choice
// among options, or a yes/no. Its input is an AskUserInput. The question is
// an elicit like any other, checked the same way, recorded, and waited on
// across restarts.
//
// The model is handed the user's answer as JSON: the action ("accept",
// "decline", "cancel" or "other"), the answer when accepted — {"yes":true}
// for a yes/no, {"option":"aisle"} for a choice, the fields by name for a
// form — and the user's words when they answered otherwise:
//
//	{"action":"accept","answer":{"option":"aisle"}}
//	{"action":"other","text":"only if it is cheaper"}
//
// A question the model wrote badly (a kind or field the input has not, a
// choice without options, a form without fields) asks the user nothing: the
// model is handed the error instead, to ask again better.
const AskUserTool = "ask_user"

const askUserDescription = "Ask the user for something you need and cannot find out otherwise. " +
	"kind=confirm for a yes/no question, kind=choice to pick one of options, kind=form to fill in named fields. " +
	"Returns the user's answer."

// AskUserInput is the input of the ask_user tool (AskUserTool): what the
// model writes to ask the user. Kind is "confirm" for a yes/no, "choice" to
// pick one of Options, or "form" to fill in Fields. Its JSON Schema, from
// the struct tags, is the tool's input schema as the model is shown it, so
// an author or a test can build one and marshal it to write the tool call a
// model would:
//
//	args, _ := json.Marshal(agents.AskUserInput{Question: "Which seat?", Kind: "choice", Options: []string{"window", "aisle"}})
//	call := llm.ToolCall{ID: "q1", Name: agents.AskUserTool, Arguments: string(args)}
type AskUserInput struct {
	Question string         `json:"question" desc:"What to ask the user, in a sentence or two"`
	Kind     string         `json:"kind" enum:"confirm,choice,form" desc:"How the user answers"`
	Options  []string       `json:"options,omitempty" desc:"For a choice: the options to pick from"`
	Fields   []AskUserField `json:"fields,omitempty" desc:"For a form: the fields to fill in"`
}

// AskUserField is one field of a form the model asks the user to fill in
// (AskUserInput's Fields). Name is its key in the answer and must be unique
// in the form; Label is what the user reads (Name when empty). Type is
// "string", "number", "integer" or "boolean"; Options, for a string, are the
// values allowed. A field is required unless Optional.
type AskUserField struct {
	Name     string   `json:"name" desc:"The field's name, a short identifier"`
	Label    string   `json:"label,omitempty" desc:"What the user sees"`
	Type     string   `json:"type" enum:"string,number,integer,boolean" desc:"The kind of value"`
	Options  []string `json:"options,omitempty" desc:"For a string: the allowed values"`
	Optional bool     `json:"optional,omitempty" desc:"Whether the user may leave it empty"`
}

var askUserSchema = elicit.MustSchemaFor[AskUserInput]()

// askUserAnswer is what the model is told of the user's answer.
type askUserAnswer struct {
	Action string          `json:"action"`
	Answer json.RawMessage `json:"answer,omitempty"`
	Text   string          `json:"text,omitempty"`
}

// askUser runs the ask_user tool. A question the model wrote badly is an
// error it is told of, to ask again better; the user sees nothing of it.
func askUser(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	if errs := askUserSchema.Validate(raw); len(errs) > 0 {
		return nil, fmt.Errorf("the question is not well formed: %w", errs)
	}
	var in AskUserInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Question) == "" {
		return nil, fmt.Errorf("the question is empty")
	}
	var req elicit.Request
	var err error
	switch in.Kind {
	case "confirm":
		req, err = elicit.Confirm.Request(in.Question, elicit.ConfirmInput{})
	case "choice":
		if len(in.Options) == 0 {
			return nil, fmt.Errorf("a choice needs options")
		}
		req, err = elicit.Choose.Request(in.Question, elicit.ChoiceInput{Options: in.Options})
	default:
		req, err = formRequest(in)
	}
	if err != nil {
		return nil, err
	}
	resp, err := turn.Elicit(ctx, req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(askUserAnswer{Action: string(resp.Action), Answer: resp.Content, Text: resp.Text})
}

// formRequest builds a form from the fields the model named.
func formRequest(in AskUserInput) (elicit.Request, error) {
	if len(in.Fields) == 0 {
		return elicit.Request{}, fmt.Errorf("a form needs fields")
	}
	schema := &elicit.Schema{Type: "object", Properties: map[string]*elicit.Schema{}}
	for _, f := range in.Fields {
		name := strings.TrimSpace(f.Name)
		if name == "" || schema.Properties[name] != nil {
			return elicit.Request{}, fmt.Errorf("each field needs a name of its own")
		}
		label := f.Label
		if label == "" {
			label = name
		}
		schema.Properties[name] = &elicit.Schema{Type: f.Type, Title: label, Enum: slices.Clone(f.Options)}
		schema.Order = append(schema.Order, name)
		if !f.Optional {
			schema.Required = append(schema.Required, name)
		}
	}
	return elicit.Request{Kind: elicit.FormKind, Message: in.Question, Schema: schema,
		Actions: []elicit.Action{elicit.Accept, elicit.Decline, elicit.Cancel, elicit.Other}}, nil
}

// Package component is what an application's browser component of its own
// elicit kind sees and calls. The page shows each question in a card: the
// agent, the message, the buttons that decline or cancel, a problem with a
// submission as a whole. A kind's component draws what is inside — its
// inputs and the button that accepts — from a Question, the public view
// of the question it shows, and the application hands its components to
// the server by kind name (app.Config.Components, a Set).
//
// The package is apart from elicit because it is the browser's: elicit is
// the questions themselves, asked and checked with no page in sight, and
// imports no templ.
package component

import (
	"encoding/json"
	"net/url"

	"github.com/a-h/templ"

	"github.com/sweatpants-go/sweatpants/elicit"
)

// Func is the browser component of one elicit kind: it draws q's inputs
// and the button that accepts, in a form that posts with q.Action.
type Func func(q *Question) templ.Component

// Set are an application's components of its own kinds, by kind name. A
// kind without one is shown as a plain form of its output schema; the
// built-in kinds have theirs, which an entry of the same name does not
// replace.
type Set map[string]Func

// State is where a question stands.
type State string

const (
	// Pending is a question waiting on its answer.
	Pending State = "pending"
	// Answered is a question with a recorded answer: its component then
	// serves a changed answer, which continues the conversation from
	// there on a new branch.
	Answered State = "answered"
	// Withdrawn is a question whose turn no longer waits on it (it was
	// stopped, or the server restarted under it).
	Withdrawn State = "withdrawn"
)

// Question is a question as its component shows it. The page builds it
// for each drawing; a component reads it and changes nothing.
type Question struct {
	// Conversation is the id of the conversation the question is in.
	Conversation string
	// ID is the question's id, unique in its conversation.
	ID string
	// Kind is the name of the question's elicit kind.
	Kind string
	// Agent is the agent that asks it.
	Agent string
	// Message is what the agent asks, shown above the component.
	Message string
	// Input is the question's input, of its kind's input type: Input[T]
	// decodes it.
	Input json.RawMessage
	// Schema is the schema of the answer's content: its fields, their
	// titles and defaults.
	Schema *elicit.Schema
	State  State
	// Answer is the answer recorded, once State is Answered.
	Answer *elicit.Response
	// Errors are the problems with the fields of a submission the server
	// refused (FieldError shows each in place), and Problem the one with
	// the submission as a whole, which the card shows.
	Errors  elicit.FieldErrors
	Problem string
	// Submitted is what the user last submitted, kept in the inputs after
	// a refusal (Value reads it).
	Submitted url.Values
	// Action is the Datastar action that posts the form it is on as the
	// answer: the fields by the names of Schema, the action in a submit
	// button's "_action" (or a hidden field of that name). For an answered
	// question it posts a changed answer, so the same component serves
	// both.
	Action string
	// Path is where a script of the page posts an answer itself (as JSON
	// or a form): a changed answer's, for an answered question.
	Path string
}

// Input decodes the input of q into T, the input type of its kind; an
// input that does not decode yields T's zero value.
func Input[T any](q *Question) T {
	var in T
	if len(q.Input) > 0 {
		json.Unmarshal(q.Input, &in)
	}
	return in
}

// Value returns the text to prefill field name with: what the user last
// submitted, else the answer given, else the schema's default.
func (q *Question) Value(name string) string {
	return q.Schema.FormValue(name, q.Submitted, q.Answer.Fields())
}

// Selected reports whether option of multi-choice field name shows
// picked: submitted, else answered, else by default.
func (q *Question) Selected(name, option string) bool {
	return q.Schema.FormSelected(name, option, q.Submitted, q.Answer.Fields())
}

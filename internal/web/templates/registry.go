package templates

import (
	"context"
	"fmt"
	"net/url"

	"github.com/a-h/templ"

	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
)

// ElicitComponent shows a pending request of one kind: its inputs and the
// button that accepts. The card around it shows the agent, the message, the
// queue, problems with the whole submission and the buttons that decline or
// cancel. conv is the conversation's id; AnswerAction(conv, e) is the
// Datastar action that posts a form inside the component as the answer.
// The built-in kinds' components are of this type, since they show what
// only the engine knows of a question (its stage, its place in the queue);
// an application's are component.Func, which see the public view.
type ElicitComponent func(conv string, e *pageview.ElicitView) templ.Component

type (
	componentsKey struct{}
	modulesKey    struct{}
)

// WithElicitComponents returns ctx carrying cs, for the pages and patches
// rendered with it: the transport puts an application's components into
// every request's context.
func WithElicitComponents(ctx context.Context, cs component.Set) context.Context {
	return context.WithValue(ctx, componentsKey{}, cs)
}

// WithModules returns ctx carrying the names of the application's browser
// modules (app.Config.Modules), which every conversation page loads from
// /app/<name> after the built-in methods (conversationLayout).
func WithModules(ctx context.Context, names []string) context.Context {
	return context.WithValue(ctx, modulesKey{}, names)
}

// modulePaths are where the page loads the application's modules in ctx.
func modulePaths(ctx context.Context) []string {
	names, _ := ctx.Value(modulesKey{}).([]string)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = "/app/" + url.PathEscape(n)
	}
	return paths
}

// builtinComponent returns the component of a built-in kind other than the
// form, which every kind without a component falls back on.
func builtinComponent(kind string) (ElicitComponent, bool) {
	switch kind {
	case elicit.Confirm.Name:
		return confirmAsk, true
	case elicit.Choose.Name:
		return choiceAsk, true
	case elicit.LocateDevice.Name:
		return locationAsk, true
	case elicit.ReadClipboard.Name:
		return clipboardReadAsk, true
	case elicit.WriteClipboard.Name:
		return clipboardWriteAsk, true
	case elicit.AskFile.Name:
		return fileAsk, true
	case elicit.Approve.Name:
		return approvalAsk, true
	case elicit.Wait.Name:
		return waitAsk, true
	}
	return nil, false
}

// askComponent is the component that shows a pending request of kind: a
// built-in one, else the application's from ctx.
func askComponent(ctx context.Context, kind string) (ElicitComponent, bool) {
	if c, ok := builtinComponent(kind); ok {
		return c, true
	}
	cs, _ := ctx.Value(componentsKey{}).(component.Set)
	c, ok := cs[kind]
	if !ok {
		return nil, false
	}
	return func(conv string, e *pageview.ElicitView) templ.Component { return c(QuestionOf(conv, e)) }, true
}

// QuestionOf is the public view of e, in conversation conv, that an
// application's component is drawn from.
func QuestionOf(conv string, e *pageview.ElicitView) *component.Question {
	state := component.Pending
	switch e.State {
	case pageview.Answered:
		state = component.Answered
	case pageview.Interrupted:
		state = component.Withdrawn
	}
	return &component.Question{
		Conversation: conv, ID: e.Request.ID, Kind: e.Request.Kind, Agent: e.Request.Agent, Message: e.Request.Message,
		Input: e.Request.Input, Schema: e.Request.Schema, State: state, Answer: e.Response,
		Errors: e.Errors, Problem: e.Problem, Submitted: e.Values,
		Action: AnswerAction(conv, e), Path: deviceAnswerPath(conv, e),
	}
}

// AnswerAction is the Datastar action that posts the form it is on as the
// answer to e: the fields by the names of e's output schema, the action in
// a submit button's "_action" (or a hidden field of that name). For a
// question already answered it posts a changed answer, which continues the
// conversation from there on a new branch: the same component serves both.
func AnswerAction(conv string, e *pageview.ElicitView) string {
	if e.State == pageview.Answered {
		return changeURL(conv, e)
	}
	return answerURL(conv, e)
}

// ElicitInput decodes the input of e's request into T, the input type of
// its kind; a request whose input does not decode yields T's zero value.
func ElicitInput[T any](e *pageview.ElicitView) T {
	return component.Input[T](&component.Question{Input: e.Request.Input})
}

// answerPath is where answers to e are posted, for the device glue.
func answerPath(conv string, e *pageview.ElicitView) string {
	return fmt.Sprintf("/c/%s/elicits/%s", conv, e.Request.ID)
}

// deviceAnswerPath is where the device glue posts an answer to e: a
// changed one when e is answered (as AnswerAction for forms).
func deviceAnswerPath(conv string, e *pageview.ElicitView) string {
	if e.State == pageview.Answered {
		return answerPath(conv, e) + "/change"
	}
	return answerPath(conv, e)
}

// isMethod reports whether r is asked as a method card (methodAsk): a kind
// with no component (not a form, not a built-in kind, none of the
// application's) whose request declares progress or takes "unsupported",
// which is what a method a browser module implements does.
func isMethod(ctx context.Context, r elicit.Request) bool {
	if r.Kind == elicit.FormKind {
		return false
	}
	if _, ok := askComponent(ctx, r.Kind); ok {
		return false
	}
	return r.Progress != nil || r.Allows(elicit.Unsupported)
}

// methodAttrs make an element the body of a method card for protocol.js:
// the method's name, its arguments (the request's input, as JSON), where
// its answer goes, whether its progress is typed (posted with its data)
// and whether the page answers "unsupported" when it has no
// implementation. Like every attribute, they go through templ's escaping.
func methodAttrs(conv string, e *pageview.ElicitView) templ.Attributes {
	args := string(e.Request.Input)
	if len(e.Request.Input) == 0 || args == "null" {
		args = "{}"
	}
	a := templ.Attributes{"data-method": e.Request.Kind, "data-args": args, "data-answer-url": answerPath(conv, e)}
	if e.Request.Progress != nil {
		a["data-progress-data"] = true
	}
	if e.Request.Allows(elicit.Unsupported) {
		a["data-unsupported"] = true
	}
	return a
}

// queuedMethod are the attributes of a queued question's line when it is
// a method the page may answer "unsupported": a page that implements no
// such method says so at once, not once the questions before it are
// answered. Nothing runs from the line itself, which has no button.
func queuedMethod(ctx context.Context, conv string, e *pageview.ElicitView) templ.Attributes {
	if !isMethod(ctx, e.Request) || !e.Request.Allows(elicit.Unsupported) {
		return nil
	}
	return methodAttrs(conv, e)
}

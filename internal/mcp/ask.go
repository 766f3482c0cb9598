package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
)

// ask hands a question of the call's turn to the client and records its
// answer in the conversation, as a browser's would be: by
// elicitation/create when the client can be asked (see route), else as
// route answers it. An answer the question's rules refuse (content that
// breaks its schema, arguments edited on an approval into ones a rule
// forbids) is not recorded: the client is asked again, told why, as a
// page shows the refusal on the question, up to askTries times.
func (w *watch) ask(ctx context.Context, req elicit.Request) {
	form, a := w.route(ctx, req)
	msg := messageOf(req)
	for try := 1; form != nil; try++ {
		params := &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: form,
			Meta: sdk.Meta{questionMeta: req.ID}}
		var res *sdk.ElicitResult
		var err error
		if w.out != nil {
			res, err = w.out.elicit(ctx, req.ID, params)
		} else {
			res, err = w.req.Session.Elicit(ctx, params)
		}
		if err != nil {
			if ctx.Err() != nil {
				return // the call went away; the question stays pending in the conversation
			}
			w.log(ctx, fmt.Sprintf("The question %q could not be asked: %v. It was cancelled.", req.Message, err))
			a = chat.Answer{Action: elicit.Cancel}
			break
		}
		a = answerOf(req, res)
		if try == askTries {
			break // refused again, the answer is cancelled by record
		}
		why := w.answer(ctx, req, a)
		if why == "" {
			return
		}
		msg = "Your answer was refused: " + why + "\n" + messageOf(req)
	}
	w.record(ctx, req, a)
}

// askTries is how often a client that can be asked is asked a question
// whose answers its rules refuse, before the question is cancelled rather
// than asked again without end.
const askTries = 3

// route says how a question reaches this client: asked as form, a flat
// form of the question's schema, when the client has the elicitation
// capability; else answered here, with the answer returned: the kind's
// automatic answer for a client that cannot be asked, a refusal (said to
// the client in a log message) for a question no flat form can hold.
//
// A method's call (a question whose request declares a progress schema,
// package protocol) is asked as a form in the same way, the client
// answering for the device; with no form to ask, it is answered
// unsupported at once: no implementation of it is where this client is,
// and nothing made up stands for a device's result.
func (w *watch) route(ctx context.Context, req elicit.Request) (map[string]any, chat.Answer) {
	caps := w.req.ClientCapabilities()
	form, why := flatForm(req.Schema)
	method := req.Progress != nil && req.Allows(elicit.Unsupported)
	switch {
	case method && (caps == nil || caps.Elicitation == nil):
		return nil, chat.Answer{Action: elicit.Unsupported}
	case method && why != "":
		w.log(ctx, fmt.Sprintf("The method %q (%s) cannot be called over MCP: %s. It was answered unsupported.", req.Message, req.Kind, why))
		return nil, chat.Answer{Action: elicit.Unsupported}
	case caps == nil || caps.Elicitation == nil:
		auto := w.s.cfg.Kinds.Automatic(req)
		return nil, chat.Answer{Action: auto.Action, Content: auto.Content, Text: auto.Text}
	case why != "":
		w.log(ctx, fmt.Sprintf("The question %q (%s) cannot be asked over MCP: %s. It was declined.", req.Message, req.Kind, why))
		return nil, chat.Answer{Action: refusal(req)}
	}
	return form, chat.Answer{}
}

// record records a's answer to the question req of the call's turn. An
// answer already recorded (a retry) is left as it is; content the
// question's rules refuse is said to the client, and the question is
// cancelled.
func (w *watch) record(ctx context.Context, req elicit.Request, a chat.Answer) {
	if why := w.answer(ctx, req, a); why != "" {
		w.log(ctx, fmt.Sprintf("The answer to %q was refused: %s. The question was cancelled.", req.Message, why))
		w.answer(ctx, req, chat.Answer{Action: cancelOrDecline(req)})
	}
}

// answer records a as the answer to the question req, and returns why
// the question's rules refuse it, if they do; "" when it is recorded, or
// was before (a retry).
func (w *watch) answer(ctx context.Context, req elicit.Request, a chat.Answer) string {
	err := w.s.cfg.Chat.Answer(ctx, w.owner, w.conv, req.ID, a)
	switch code := apperr.CodeOf(err); {
	case err == nil, code == apperr.Conflict:
		return ""
	case code == apperr.Invalid && a.Action == elicit.Accept:
		return apperr.MessageOf(err)
	}
	w.s.cfg.Log.Warn("mcp: answer not recorded", "elicit", req.ID, "err", err)
	return ""
}

// answerOf is the client's answer as the conversation takes it.
func answerOf(req elicit.Request, res *sdk.ElicitResult) chat.Answer {
	switch elicit.Action(res.Action) {
	case elicit.Accept:
		content := res.Content
		if content == nil {
			content = map[string]any{}
		}
		raw, err := json.Marshal(content)
		if err != nil {
			return chat.Answer{Action: cancelOrDecline(req)}
		}
		return chat.Answer{Action: elicit.Accept, Content: raw}
	case elicit.Decline:
		if req.Kind == elicit.Approve.Name {
			// An approval's no is an answer, the deny choice; its cancel
			// is what nobody was there to give.
			deny, _ := json.Marshal(elicit.Approval{Choice: elicit.DenyCall})
			return chat.Answer{Action: elicit.Accept, Content: deny}
		}
		return chat.Answer{Action: refusal(req)}
	default:
		return chat.Answer{Action: cancelOrDecline(req)}
	}
}

// refusal is Decline when the question allows it, else Cancel.
func refusal(req elicit.Request) elicit.Action {
	if req.Allows(elicit.Decline) {
		return elicit.Decline
	}
	return elicit.Cancel
}

// cancelOrDecline is Cancel when the question allows it, else Decline.
func cancelOrDecline(req elicit.Request) elicit.Action {
	if req.Allows(elicit.Cancel) {
		return elicit.Cancel
	}
	return elicit.Decline
}

// log sends a warning to the client, which shows it when it enabled
// logging, and keeps it for the call's result (see wait).
func (w *watch) log(ctx context.Context, text string) {
	w.said = append(w.said, text)
	if w.req.Session == nil {
		return // a task's poll (tasks/get) has no session to log to
	}
	_ = w.req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "sweatpants", Data: text})
}

// messageOf is the question as the client shows it: a form holds only the
// answer, so the message carries what a browser's card shows beside it.
// An approval says the call's arguments and why the model wants it; any
// other kind with an input says that input, as JSON, after the message
// (the text a clipboard write would copy, the flights a picker offers).
func messageOf(req elicit.Request) string {
	if req.Kind == elicit.Approve.Name {
		var in elicit.ApprovalInput
		if json.Unmarshal(req.Input, &in) != nil {
			return req.Message
		}
		msg := req.Message
		if in.Description != "" {
			msg += "\n" + in.Tool + ": " + in.Description
		}
		if in.Summary != "" {
			msg += "\nThe call: " + in.Summary
		}
		if args := in.Shown(); args != "" {
			msg += "\nArguments: " + args
		}
		if in.Reason != "" {
			msg += "\nWhy: " + in.Reason
		}
		return msg
	}
	var in any
	if json.Unmarshal(req.Input, &in) != nil || isEmpty(in) {
		return req.Message
	}
	return req.Message + "\n" + string(req.Input)
}

// isEmpty reports whether a decoded JSON value says nothing: null, "", an
// empty object or list.
func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// Package answercheck checks an answer as it arrives against the question
// it answers, before the turn waiting on the question is handed it: the
// action must be allowed, the content must satisfy the question's schema
// and its kind's rules, a file given must be one the session sent, and an
// approval's edited arguments must be ones the rules let run. It decides
// only whether an answer stands; the chat keeps what was refused for the
// page to show, and records what was accepted.
package answercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Given is an answer as it arrives: an action and either HTML form values
// or JSON content (chat.Answer, which converts to it).
type Given struct {
	Action  elicit.Action
	Form    url.Values
	Content []byte
	Text    string
}

// normalized returns a with the line ends of everything the user wrote
// normalized (see package lineend).
func (a Given) normalized() Given {
	a.Text = lineend.Normalize(a.Text)
	a.Content = lineend.NormalizeJSON(a.Content)
	if a.Form != nil {
		form := make(url.Values, len(a.Form))
		for k, vs := range a.Form {
			for _, v := range vs {
				form[k] = append(form[k], lineend.Normalize(v))
			}
		}
		a.Form = form
	}
	return a
}

// Files are the files of the session an answer is given in, as a file
// question's answer names them.
type Files interface {
	// Attachment returns the session's file id as an answer names it.
	// Errors: NotFound for a file that is not the session's.
	Attachment(ctx context.Context, id string) (tree.Attachment, error)
	// Attach makes the session's files ids the conversation's: they live
	// as long as it does and are deleted with it.
	Attach(ctx context.Context, ids []string) error
}

// Checker is what the checks know of the conversation an answer is given
// in, besides the question.
type Checker struct {
	Kinds *kindset.Set
	// Files are the session's files; nil when files are not kept here.
	Files Files
	// Rules returns ctx with the rules the conversation's turns run under:
	// the program's, its assistant's inside them.
	Rules func(ctx context.Context) context.Context
}

// Check converts a and checks it against req, as Answer does, and by what
// the conversation knows besides: a file given must be one the session
// sent, an approval's edited arguments must be ones the rules let run. A
// problem with the answer is problem, for the user to fix; err is the
// store's failure, which is not the user's.
func (ch Checker) Check(ctx context.Context, req elicit.Request, a Given) (resp elicit.Response, problem, err error) {
	switch {
	case a.Action != elicit.Accept:
	case req.Kind == elicit.AskFile.Name:
		return ch.file(ctx, req, a)
	case req.Kind == elicit.Approve.Name:
		if resp, problem = Answer(ch.Kinds, req, a); problem == nil {
			problem = ch.edit(ctx, req, resp)
		}
		return resp, problem, nil
	}
	resp, problem = Answer(ch.Kinds, req, a)
	return resp, problem, nil
}

// Answer converts an answer as it arrived into a response and checks it
// against the request: the action must be allowed and the content must
// satisfy the schema and the rules kinds holds for the request's kind.
func Answer(kinds *kindset.Set, req elicit.Request, a Given) (elicit.Response, error) {
	a = a.normalized()
	if a.Action == elicit.Expired {
		return elicit.Response{}, fmt.Errorf("a question expires by the clock alone; nobody can answer that it expired")
	}
	resp := elicit.Response{Action: a.Action, Text: a.Text}
	if a.Action == elicit.Accept {
		if a.Form == nil {
			resp.Content = a.Content
		} else {
			content, ferrs := req.Schema.FromForm(a.Form)
			resp.Content = content
			if len(ferrs) > 0 {
				return resp, ferrs
			}
		}
	}
	return resp, kinds.Check(req, resp)
}

// file converts a, an answer accepting req, a file question, and checks it
// as Check does. An answer that gives a file names it by its upload id
// alone: the id must be one of the session's files, whose name, type and
// size are then the store's, whatever else the page sent, and a file so
// given becomes the conversation's, to live and be deleted with it.
func (ch Checker) file(ctx context.Context, req elicit.Request, a Given) (resp elicit.Response, problem, err error) {
	id := a.Form.Get("id")
	if a.Form == nil {
		var given elicit.File
		json.Unmarshal(a.Content, &given) // what does not read names no file
		id = given.ID
	}
	refuse := func(msg string) (elicit.Response, error, error) {
		return elicit.Response{Action: a.Action}, elicit.FieldErrors{{Field: "id", Message: msg}}, nil
	}
	switch {
	case id == "":
		return refuse("is required: choose a file")
	case ch.Files == nil:
		return refuse("cannot be taken: files are not kept here")
	}
	f, err := ch.Files.Attachment(ctx, id)
	if apperr.CodeOf(err) == apperr.NotFound {
		return refuse("is not a file you uploaded")
	} else if err != nil {
		return elicit.Response{}, nil, err
	}
	content, _ := json.Marshal(elicit.File{ID: f.ID, Name: f.Name, Type: f.Type, Size: f.Size})
	if resp, problem = Answer(ch.Kinds, req, Given{Action: a.Action, Content: content}); problem != nil {
		return resp, problem, nil
	}
	return resp, nil, ch.Files.Attach(ctx, []string{id})
}

// edit checks the arguments resp, an answer to the approval req, edits,
// against the rules the conversation's turns run under, as the guard
// decides an edited call (consent.EditRefusal): arguments a rule forbids
// are refused, naming the rule, and the approval keeps waiting for a fix or
// a deny. The guard decides the edit again before the call runs, under the
// levels of the tool's own scope besides.
func (ch Checker) edit(ctx context.Context, req elicit.Request, resp elicit.Response) error {
	var a elicit.Approval
	if json.Unmarshal(resp.Content, &a) != nil || a.Args == "" {
		return nil // nothing edited: the kind's check read the answer already
	}
	var in elicit.ApprovalInput
	if json.Unmarshal(req.Input, &in) != nil {
		return elicit.FieldErrors{{Field: "args", Message: "cannot be checked: the approval does not say which tool it is about"}}
	}
	if refused := consent.EditRefusal(ch.Rules(ctx), in, a); refused != nil {
		return refused
	}
	return nil
}

package term

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// ask shows the question it and answers it with what the user types, until
// the service takes an answer or the question goes away. An answer the
// service refuses is shown with the reason and asked again; nothing of it
// is recorded.
func (t *tty) ask(ctx context.Context, it *pageview.Item, pos, queued int) error {
	req := it.Elicit.Request
	if isWait(req) {
		t.sayWait(it)
		return nil
	}
	t.asking = req.ID
	defer func() { t.asking = "" }()
	queue := ""
	if queued > 1 {
		queue = fmt.Sprintf(" (%d of %d waiting)", pos, queued)
	}
	t.say("")
	t.say("── %s asks%s", agentOf(*it), queue)
	t.say("%s", req.Message)
	t.sayExpiry(req)
	q := terminal.NewQuestion(req, &asking{t: t, ctx: ctx, eid: req.ID}, t.out)
	if hint := q.Hint(); hint != "" {
		t.say("  (%s · /m <words> sends a message meanwhile)", hint)
	} else {
		t.say("  (/m <words> sends a message meanwhile)")
	}
	prompter := t.cfg.Prompters.For(req)
	if fp, ok := prompter.(filePrompter); ok && t.cfg.Files != nil {
		fp.upload = uploadTo(ctx, t.cfg.Files, t.cfg.Session)
		prompter = fp
	}
	for {
		resp, err := terminal.Answer(prompter, q)
		switch {
		case errors.Is(err, errWithdrawn):
			return nil
		case err != nil:
			if errors.Is(err, ctx.Err()) || isEOF(err) {
				t.say("(The question stays open: continue with --conversation %s.)", t.id)
			}
			return err
		}
		err = t.cfg.Chat.Answer(ctx, t.cfg.Session, t.id, req.ID,
			chat.Answer{Action: resp.Action, Content: resp.Content, Text: resp.Text})
		if err == nil {
			t.answered[req.ID] = true
			if resp.Action != elicit.Accept {
				t.say("  → %s", resp.Action)
			}
			return nil
		}
		switch apperr.CodeOf(err) {
		case apperr.Invalid:
			q.Errors, q.Last = fieldErrors(err), &resp
			t.refused(req, err, q.Errors)
		case apperr.Internal:
			return fmt.Errorf("answer: %w", err)
		default: // answered elsewhere, or no longer waited on
			t.say("  ! %s", apperr.MessageOf(err))
			t.answered[req.ID] = true
			return nil
		}
	}
}

// asking is where question eid reads its lines and reports its progress:
// the terminal's lines, which stop with errWithdrawn once the question is
// no longer pending, and the service.
type asking struct {
	t   *tty
	ctx context.Context
	eid string
}

// Read is never called: a terminal.Question reads through ReadLine.
func (a *asking) Read([]byte) (int, error) { return 0, io.EOF }

// ReadLine reads the answer's next line at the terminal. A line /m
// <words> is a message sent while the question waits, not a line of the
// answer: once sent, the same prompt asks again, unless the service took
// the words for the answer.
func (a *asking) ReadLine(label string) (string, error) {
	for {
		line, err := a.t.read(a.ctx, label, func() bool { return !a.t.pending(a.eid) })
		if err != nil {
			return "", err
		}
		cmd, words, _ := strings.Cut(strings.TrimSpace(line), " ")
		if cmd != "/m" {
			return line, nil
		}
		if answered, err := a.t.meanwhile(a.ctx, strings.TrimSpace(words)); err != nil || answered {
			if answered {
				a.t.answered[a.eid] = true
				err = errWithdrawn // answered by the words: this prompt is done
			}
			return "", err
		}
	}
}

// meanwhile sends words while a question waits, as the page's composer
// does then; answered is true when the service took them for the answer
// (or a change of an earlier one), which ends the question's prompt.
func (t *tty) meanwhile(ctx context.Context, words string) (answered bool, err error) {
	if words == "" {
		t.say("  ! Write your message after /m.")
		return false, nil
	}
	sent, err := t.cfg.Chat.SendMessage(ctx, t.cfg.Session, t.id, inbound.Message{Text: words})
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return false, fmt.Errorf("send: %w", err)
		}
		t.say("  ! %s", apperr.MessageOf(err))
		return false, nil
	}
	// What the words did comes as the conversation's notice, to every
	// terminal and page on it (view.go prints it).
	return sent == inbound.SentAnswer || sent == inbound.SentChange, nil
}

// ReportProgress hands progress on the question to the service.
func (a *asking) ReportProgress(p elicit.Progress) { a.t.report(a.ctx, a.eid, p) }

// Bell rings the terminal's bell (terminal.Question.Bell): the one control
// character a prompter may send, since every other one a question shows
// is written as an escape.
func (a *asking) Bell() { io.WriteString(a.t.cfg.Out, "\a") }

// fieldErrors returns the per-field problems of a refused answer, or a
// non-nil empty list when the problem is with the answer as a whole.
func fieldErrors(err error) elicit.FieldErrors {
	if fe, ok := errors.AsType[elicit.FieldErrors](err); ok {
		return fe
	}
	return elicit.FieldErrors{}
}

// refused prints why an answer was refused, each field by its title.
func (t *tty) refused(req elicit.Request, err error, errs elicit.FieldErrors) {
	if len(errs) == 0 {
		t.say("  ! %s", apperr.MessageOf(err))
		return
	}
	for _, fe := range errs {
		name := fe.Field
		if req.Schema != nil {
			if p := req.Schema.Properties[fe.Field]; p != nil {
				name = title(p, fe.Field)
			}
		}
		if name == "" {
			t.say("  ! %s", fe.Message)
		} else {
			t.say("  ! %s %s", name, fe.Message)
		}
	}
	t.say("  Try again:")
}

// report hands progress on question eid to the service, once per stage.
func (t *tty) report(ctx context.Context, eid string, p elicit.Progress) {
	key := eid + "\x00" + p.Stage
	if t.reported[key] {
		return
	}
	t.reported[key] = true
	if err := t.cfg.Chat.Progress(ctx, t.cfg.Session, t.id, eid, p); err != nil {
		t.say("  ! %s", apperr.MessageOf(err))
	}
}

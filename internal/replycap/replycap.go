// Package replycap bounds a model's reply: a provider whose replies are
// cut at a bound (New), and the bound applied to a reply's text (Bound).
package replycap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/llm"
)

// The bound on a reply. A model that goes on writing (a faulty endpoint, a
// reply stuck in a loop) would otherwise be recorded whole, twice (the
// call's record and the reply), rendered whole into every page of the
// conversation, and given whole to each later call. A reply longer than
// the bound is cut there, with a note saying so: its stream is stopped,
// not read to the end, and the call's record, the reply and every later
// load of the conversation hold no more than the bound.

// Default is the longest reply a model call may give, in bytes of text,
// when the program says no other: 256 KiB, about 64,000 tokens,
// more than chat models write within their output limits, so that only a
// reply gone wrong reaches it.
const Default = 256 << 10

// Min is the smallest bound a reply may have: room for some text and the
// note that says it was cut.
const Min = 1 << 10

// errReplyTooLong stops a model call whose reply passed the bound.
var errReplyTooLong = errors.New("the reply passed its bound")

// New returns p with its replies cut at limit bytes of text.
func New(p llm.Provider, limit int) llm.Provider { return capped{p, limit} }

// capped is a model whose replies are cut at limit bytes of text.
type capped struct {
	llm.Provider
	limit int
}

// Model names the model a request that names none goes to, as the model
// under it does, for the telemetry of its calls.
func (m capped) Model() string {
	if d, ok := m.Provider.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// Complete answers req as the model under m does, but a streamed reply
// reaches onDelta only up to the bound, and once it passes the bound the
// call is stopped and answers with the text cut there (cutReply), finishing
// for "length"; an unstreamed reply is cut after the fact.
func (m capped) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	if onDelta == nil {
		resp, err := m.Provider.Complete(ctx, req, nil)
		if err == nil && len(resp.Content) > m.limit {
			resp = m.cut(resp, resp.Content)
		}
		return resp, err
	}
	call, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		text strings.Builder
		over bool
	)
	resp, err := m.Provider.Complete(call, req, func(d string) {
		if over {
			return // a delta on its way as the call stops
		}
		if room := m.limit - text.Len(); len(d) > room {
			d, over = d[:runeStart(d, room)], true
		}
		text.WriteString(d)
		if d != "" {
			onDelta(d)
		}
		if over {
			stop(errReplyTooLong)
		}
	})
	if !over || ctx.Err() != nil {
		return resp, err
	}
	// The call may have finished before it heard it was stopped; either
	// way, its reply is the text up to the bound.
	resp.Provider = cmp.Or(resp.Provider, m.Name())
	resp.Model = cmp.Or(resp.Model, req.Model, m.Model())
	return m.cut(resp, text.String()), nil
}

// cut makes resp the reply text cut at m's bound, which the model did not
// finish: the calls it may have made after the text are dropped with it.
func (m capped) cut(resp llm.Response, text string) llm.Response {
	resp.Content, resp.FinishReason, resp.ToolCalls, resp.Logprob = cutReply(text, m.limit), "length", nil, nil
	return resp
}

// Bound returns text, or when it is longer than limit bytes, text cut to
// fit them (cutReply).
func Bound(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	return cutReply(text, limit)
}

// cutReply cuts text where it passed limit bytes and ends it with a note
// that says so, in no more than limit bytes all told: at the start of a
// character, and with a code block left open closed first, so that the
// note reads as a note.
func cutReply(text string, limit int) string {
	note := fmt.Sprintf("\n\n*The model's reply was cut here: it was longer than the %s a reply may be.*", size(limit))
	room := limit - len(note)
	for {
		cut := text[:runeStart(text, min(room, len(text)))]
		if f := openFence(cut); f != "" {
			cut += "\n" + f
		}
		if len(cut)+len(note) <= limit || room <= 0 {
			return cut + note
		}
		room -= len(cut) + len(note) - limit // leave room for the closing fence
	}
}

// runeStart returns n, moved back to the start of the character of s it is
// within; n is at most len(s).
func runeStart(s string, n int) int {
	n = max(n, 0)
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// openFence returns the fence of a markdown code block that text leaves
// open ("```" or "~~~", or longer), or "" when it leaves none.
func openFence(text string) string {
	open := ""
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		switch {
		case open == "":
			open = fenceOf(l)
		case strings.HasPrefix(l, open) && strings.Trim(l, open[:1]) == "":
			open = ""
		}
	}
	return open
}

// fenceOf returns the fence that line opens a code block with, or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		if n := len(line) - len(strings.TrimLeft(line, c)); n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// size words a number of bytes as a person would read it.
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

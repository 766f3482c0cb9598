package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// A call follows its turn's run through the conversation's event stream,
// the typed events a program reads (eventstream), not the page's view: the
// run's questions asked and answered, its progress, its log lines and its
// completion. It opens the stream where its run starts, so what it reads
// costs the same however many calls the session's conversation holds
// (docs/performance.md, BenchmarkMCPHistory).

// watch follows one call's run.
type watch struct {
	s     *Server
	req   *sdk.CallToolRequest
	owner string // the owner of conv (Server.ownerOf)
	conv  string

	run     int64                     // the run's node (its message's), 0 until its run.started is read
	call    string                    // the call the run runs (keyOf)
	pending []elicit.Request          // the run's questions asked and not answered, in the order asked
	end     *eventstream.RunCompleted // how the run ended, once it has
	now     *middleware.Progress      // the run's progress, until it asks

	asked map[string]bool      // the questions handed to the client, or answered here
	said  []string             // what the client was told of its questions (log)
	last  *middleware.Progress // the progress the client was sent last

	// out is the stream of a call a restart cut off, which the call's
	// questions and progress go to rather than the session (see orphan).
	out *orphan

	// stateless marks a call of revision 2026-07-28, whose pending
	// questions are returned as input requests (inputs) rather than asked.
	stateless bool
	inputs    []elicit.Request
	refused   map[string]string // question id → why the client's answer was refused
}

// newWatch starts following a call of req in conversation conv of owner.
func (s *Server) newWatch(req *sdk.CallToolRequest, owner, conv string, stateless bool) *watch {
	return &watch{s: s, req: req, owner: owner, conv: conv, stateless: stateless, asked: map[string]bool{}, refused: map[string]string{}}
}

// openRun opens the stream of conversation conv at its newest run and reads
// what the run recorded so far, the events a client was already told of:
// a call that goes on (a retry with answers, a task polled, a call taken
// over after a restart) says again only its progress as it is now, not the
// lines logged before.
func (w *watch) openRun(ctx context.Context) (*eventstream.Stream, error) {
	es, err := eventstream.OpenRun(ctx, w.s.cfg.Chat, w.owner, w.conv)
	if err != nil {
		return nil, fmt.Errorf("follow the conversation of the call: %w", err)
	}
	w.take(ctx, es.Ready(), true)
	if w.now != nil {
		w.progress(ctx, *w.now)
	}
	return es, nil
}

// take takes in events of the conversation: those of the call's run (the
// first run started on the stream) tell its questions and its end, and its
// progress and log lines are sent to the client as they come, unless
// replayed (said before).
func (w *watch) take(ctx context.Context, evs []eventstream.Event, replayed bool) {
	for _, e := range evs {
		if d, ok := e.Data.(eventstream.RunStarted); ok && w.run == 0 && !d.Aside {
			w.run, w.call = d.Run, keyOf(d)
		}
		switch d := e.Data.(type) {
		case eventstream.ElicitAsked:
			if d.Run == w.run && !d.Aside {
				w.pending = append(w.pending, d.Request)
				w.now = nil // done, and it waits for the user now
			}
		case eventstream.ElicitAnswered:
			if d.Run == w.run && !d.Aside {
				w.answered(d.Elicit)
			}
		case eventstream.ProgressEvent:
			if d.Run == w.run && !d.Aside {
				p := d.Progress
				w.now = &p
				if !replayed {
					w.progress(ctx, p)
				}
			}
		case eventstream.LogLine:
			if d.Run == w.run && !d.Aside && !replayed {
				w.logLine(ctx, d)
			}
		case eventstream.RunCompleted:
			if d.Run == w.run && !d.Aside {
				w.end = &d
			}
		}
	}
}

// answered takes the question eid off the pending ones.
func (w *watch) answered(eid string) {
	for i, q := range w.pending {
		if q.ID == eid {
			w.pending = append(w.pending[:i], w.pending[i+1:]...)
			return
		}
	}
}

// isPending reports whether the question eid waits on an answer.
func (w *watch) isPending(eid string) (elicit.Request, bool) {
	for _, q := range w.pending {
		if q.ID == eid {
			return q, true
		}
	}
	return elicit.Request{}, false
}

// wait follows the call's run on es until it ends, or, for a stateless
// call, waits on questions the client is to answer, and returns the
// call's result.
func (w *watch) wait(ctx context.Context, es *eventstream.Stream) (*sdk.CallToolResult, error) {
	for {
		if res, done := w.step(ctx); done {
			if len(w.said) > 0 && len(w.inputs) == 0 {
				// What the client was told of its questions is in the
				// result too: a client that set no logging level has no
				// other way to learn it.
				res.Content = append(res.Content, &sdk.TextContent{Text: strings.Join(w.said, "\n")})
			}
			return res, nil
		}
		evs, err := es.Next(ctx)
		if err != nil {
			return nil, err
		}
		w.take(ctx, evs, false)
	}
}

// step acts on what the run told so far: it hands pending questions to
// the client, and returns the result once the run has ended (or, for a
// stateless call, once it waits on the client).
func (w *watch) step(ctx context.Context) (*sdk.CallToolResult, bool) {
	w.inputs = nil
	for _, q := range append([]elicit.Request(nil), w.pending...) {
		switch {
		case w.asked[q.ID]:
		case len(q.Actions) == 0: // a wait (turn.Sleep): only the clock answers it
		case w.stateless:
			w.input(ctx, q)
		default:
			w.asked[q.ID] = true
			w.ask(ctx, q)
		}
	}
	if len(w.inputs) > 0 {
		return w.inputRequired(), true
	}
	if w.end == nil {
		return nil, false
	}
	return w.result(), true
}

// progress sends the turn's progress, when it changed and the client
// asked for it with a progress token.
func (w *watch) progress(ctx context.Context, p middleware.Progress) {
	token := w.req.Params.GetProgressToken()
	if token == nil || (w.last != nil && *w.last == p) || (w.out == nil && w.req.Session == nil) {
		return // not asked for, said already, or no session to say it to (a task's poll)
	}
	w.last = &p
	params := &sdk.ProgressNotificationParams{ProgressToken: token, Message: p.Message, Progress: p.Fraction, Total: 1}
	var err error
	if w.out != nil {
		err = w.out.notify(ctx, "notifications/progress", params)
	} else {
		err = w.req.Session.NotifyProgress(ctx, params)
	}
	if err != nil {
		w.s.cfg.Log.Warn("mcp: progress not sent", "err", err)
	}
}

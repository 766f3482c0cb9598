package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// call runs a tool call as a turn of the session's conversation and
// returns the turn's end as the tool's result: its reply as structured
// content and text, or its error as an error result.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if req.ProtocolVersion() >= stateless {
		return s.callStateless(ctx, req)
	}
	msg, err := json.Marshal(call{Tool: req.Params.Name, Arguments: req.Params.Arguments})
	if err != nil {
		return nil, fmt.Errorf("write the call: %w", err)
	}
	if o := s.revive.orphanOf(req.Session, string(msg)); o != nil {
		// A retry of a call a restart cut off: it is the same call, going
		// on, not a new one.
		return o.await(ctx)
	}
	cv, err := s.conversation(ctx, req, string(msg))
	if err != nil {
		return nil, fmt.Errorf("start the conversation of the call: %w", err)
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	owner := s.cfg.Owner
	// The follower is in place before the message is sent, so no change of
	// the turn is missed.
	f, err := s.cfg.Chat.Follow(ctx, owner, cv.id, chat.Want{Page: true, Nodes: true})
	if err != nil {
		return nil, fmt.Errorf("follow the conversation of the call: %w", err)
	}
	defer f.Close()
	f.Look(func(chat.Live) {}) // the nodes of earlier calls are not this call's
	w := &watch{s: s, req: req, conv: cv.id, asked: map[string]bool{}}
	if cv.taken >= 0 {
		// The session took this call over from one cut off while its
		// question waited: the turn goes on, not again.
		w.from, cv.taken = cv.taken, -1
	} else {
		before, err := s.cfg.Chat.View(ctx, owner, cv.id)
		if err != nil {
			return nil, fmt.Errorf("read the conversation of the call: %w", err)
		}
		if err := s.send(ctx, cv.id, string(msg)); err != nil {
			return errorResult(apperr.MessageOf(err)), nil
		}
		w.from = len(before.Items)
	}
	return w.waitOrStop(ctx, f)
}

// waitOrStop waits for the call's result. When the client cancels the call
// or goes away meanwhile, its turn is stopped, as the browser's Stop
// would, so the session's next call does not wait behind it; the record
// keeps it, stopped.
func (w *watch) waitOrStop(ctx context.Context, f *chat.Follower) (*sdk.CallToolResult, error) {
	res, err := w.wait(ctx, f)
	if err != nil && ctx.Err() != nil {
		if serr := w.s.cfg.Chat.Stop(context.WithoutCancel(ctx), w.s.cfg.Owner, w.conv); serr != nil && apperr.CodeOf(serr) != apperr.Conflict {
			w.s.cfg.Log.Warn("mcp: a cancelled call's turn not stopped", "conversation", w.conv, "err", serr)
		}
	}
	return res, err
}

// wait follows the call's turn until it ends, and returns its result.
func (w *watch) wait(ctx context.Context, f *chat.Follower) (*sdk.CallToolResult, error) {
	s, owner, id := w.s, w.s.cfg.Owner, w.conv
	var v chat.View
	stale := true
	for {
		w.logs(ctx, f)
		if stale {
			var err error
			if v, err = s.cfg.Chat.View(ctx, owner, id); err != nil {
				return nil, fmt.Errorf("read the conversation of the call: %w", err)
			}
		}
		if res, done := w.step(ctx, v); done {
			// What changed meanwhile is said too: a stage shown or a line
			// logged just before the turn came to ask still reaches the
			// client.
			w.changes(ctx, f.Pending())
			w.logs(ctx, f)
			if len(w.said) > 0 && len(w.inputs) == 0 {
				// What the client was told of its questions is in the
				// result too: a client that set no logging level has no
				// other way to learn it.
				res.Content = append(res.Content, &sdk.TextContent{Text: strings.Join(w.said, "\n")})
			}
			return res, nil
		}
		u, err := f.Next(ctx)
		if err != nil {
			return nil, err
		}
		w.changes(ctx, u)
		stale = !apply(&v, u)
	}
}

// apply brings v up to date with u's changes, as a page does, and reports
// whether it could: a view rebuilt at each change of a long call cost more
// than the rest of the call (docs/performance.md). It cannot when u
// redraws the page (Resync) or replaces an item v does not hold; the view
// is then read again.
func apply(v *chat.View, u chat.Update) bool {
	if u.Resync != nil {
		return false
	}
	for _, c := range u.Changes {
		if c.Status != nil {
			v.Status = *c.Status
		}
		if c.Item == nil {
			continue
		}
		i := slices.IndexFunc(v.Items, func(it chat.Item) bool { return it.ID == c.Item.ID })
		switch {
		case i >= 0:
			v.Items[i] = *c.Item // shown already, or seen both in the view and as a change
		case c.New:
			v.Items = append(v.Items, *c.Item)
		default:
			return false
		}
	}
	return true
}

// changes reports the progress in u's changes: progress is taken from each
// change as well as from the view, so a stage shown only between two looks
// still reaches the client.
func (w *watch) changes(ctx context.Context, u chat.Update) {
	for _, c := range u.Changes {
		if c.Status != nil {
			w.progress(ctx, *c.Status)
		}
	}
}

// watch follows one call's turn.
type watch struct {
	s     *Server
	req   *sdk.CallToolRequest
	conv  string
	from  int             // the items before the call's message
	asked map[string]bool // the questions handed to the client
	said  []string        // what the client was told of its questions (log)
	last  *middleware.Progress

	// out is the stream of a call a restart cut off, which the call's
	// questions and progress go to rather than the session (see orphan).
	out *orphan

	// stateless marks a call of revision 2026-07-28, whose pending
	// questions are returned as input requests (inputs) rather than asked.
	stateless bool
	inputs    []elicit.Request
	refused   map[string]string // question id → why the client's answer was refused
}

// step acts on the view: it reports progress, hands pending questions to
// the client, and returns the result once the turn has ended.
func (w *watch) step(ctx context.Context, v chat.View) (*sdk.CallToolResult, bool) {
	if w.from > len(v.Items) {
		w.from = len(v.Items) // the branch moved: look at what is there
	}
	items := v.Items[w.from:]
	w.inputs = nil
	for _, it := range items {
		if it.Kind == tree.UserMessage {
			continue
		}
		e := it.Elicit
		switch {
		case e == nil || e.State != chat.Pending:
		case w.stateless:
			w.input(ctx, e.Request)
		case !w.asked[e.Request.ID]:
			w.asked[e.Request.ID] = true
			w.ask(ctx, e.Request)
		}
	}
	w.progress(ctx, v.Status)
	if len(w.inputs) > 0 {
		return w.inputRequired(), true
	}
	if v.Status.Running {
		return nil, false
	}
	for i := len(items) - 1; i >= 0; i-- {
		switch it := items[i]; it.Kind {
		case tree.AssistantMessage:
			var o outcome
			switch {
			case json.Unmarshal([]byte(it.Text), &o) != nil:
				return errorResult("The call's reply cannot be read: " + it.Text), true
			case o.Error != "":
				return errorResult(o.Error), true
			}
			return result(string(o.Result)), true
		case tree.TurnError:
			text := it.Text
			if it.Details != "" {
				text += "\n" + it.Details
			}
			return errorResult(text), true
		case tree.Stopped:
			return errorResult("The call was stopped."), true
		}
	}
	return nil, false
}

// progress sends the turn's progress, when it changed and the client
// asked for it with a progress token.
func (w *watch) progress(ctx context.Context, st chat.Status) {
	token := w.req.Params.GetProgressToken()
	if token == nil || st.Progress == nil || (w.last != nil && *w.last == *st.Progress) {
		return
	}
	p := *st.Progress
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

// result is a tool's JSON result. One shaped as agents.Content (an
// object of "content" alone, a list of MCP content blocks) is returned as
// those blocks: text, images, audio, embedded resources. Any other is
// returned as text, and as structured content too when it is an object.
func result(reply string) *sdk.CallToolResult {
	if res, ok := contentResult(reply); ok {
		return res
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: reply}}}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(reply), &obj) == nil {
		res.StructuredContent = json.RawMessage(reply)
	}
	return res
}

// contentResult reads reply as agents.Content, when it is one: an object
// whose only member is a list of blocks the protocol knows.
func contentResult(reply string) (*sdk.CallToolResult, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(reply), &obj) != nil || len(obj) != 1 || obj["content"] == nil {
		return nil, false
	}
	var blocks []json.RawMessage
	if json.Unmarshal(obj["content"], &blocks) != nil || len(blocks) == 0 {
		return nil, false
	}
	// The SDK's own reading refuses a block of a type it does not know.
	var res sdk.CallToolResult
	if json.Unmarshal([]byte(reply), &res) != nil || len(res.Content) != len(blocks) {
		return nil, false
	}
	return &res, true
}

// errorResult is a failed call's result: the error, for the model to read.
func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

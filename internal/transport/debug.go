package transport

import (
	"context"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Calls is what the debug pages and the audit of tool calls need: the
// listing of model calls and of tool calls, read from the record (package
// calls).
type Calls interface {
	// List lists the model calls of the session's conversations, or of
	// the one f names. Errors: NotFound for a conversation the session
	// does not own.
	List(ctx context.Context, session string, f calls.Filter) (calls.Listing, error)
	// Watch follows what List lists, for one open page. Errors: NotFound,
	// as for List.
	Watch(ctx context.Context, session string, f calls.Filter) (*calls.Watch, error)
	// ToolCalls lists the tool calls of the session's conversations that
	// f keeps, newest first, at most limit. Errors: Invalid for a filter
	// that names a decision or an outcome there is not.
	ToolCalls(ctx context.Context, session string, f calls.ToolFilter, limit int) (calls.ToolListing, error)
}

// The calls service is what the debug pages run on; this fails to compile
// when the two drift apart.
var _ Calls = (*calls.Service)(nil)

// debugFilter reads what a debug page shows: the conversation its path
// names (/c/:id/debug) or its query does (?conversation=), and whether
// only=failed narrows it to the calls that failed or were retried. Any
// other filter is refused, without repeating it: it may be any text.
func debugFilter(c echo.Context) (calls.Filter, error) {
	f := calls.Filter{Conversation: c.Param("id")}
	if f.Conversation == "" {
		f.Conversation = c.QueryParam("conversation")
	}
	switch c.QueryParam("only") {
	case "":
	case "failed":
		f.Trouble = true
	default:
		return f, apperr.Errorf(apperr.Invalid, "The debug page lists every call, or with only=failed the calls that failed or were retried.")
	}
	return f, nil
}

// debugPage answers GET /debug and GET /c/:id/debug (both with
// ?only=failed; the first with ?conversation=id too): the model calls of
// every conversation of the session, or of one.
func (s *Server) debugPage(c echo.Context) error {
	f, err := debugFilter(c)
	if err != nil {
		return err
	}
	d, err := s.calls.List(c.Request().Context(), sessionOf(c), f)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.DebugPage(d))
}

// debugStream answers GET /debug/stream and GET /c/:id/debug/stream, with
// the query of the page: the list drawn whole, then, as the conversations
// record, the turns that changed and the totals, and the list drawn whole
// again only when a change is not one of those (see calls.Change).
func (s *Server) debugStream(c echo.Context) error {
	f, err := debugFilter(c)
	if err != nil {
		return err
	}
	return s.serveStream(c, "calls", func(ctx context.Context) (source, error) {
		w, err := s.calls.Watch(ctx, sessionOf(c), f)
		if err != nil {
			return nil, err
		}
		// The whole list is read here, so that a failure to read it is
		// still answered with its status.
		ch, err := w.Changes(ctx)
		if err != nil {
			w.Close()
			return nil, err
		}
		return &callsSource{w: w, f: f, first: &ch}, nil
	})
}

// callsSource draws a calls page showing f: whole first, then what changed.
// While turns record fast, the page is patched at most every
// inspectorEvery, as the inspector is, with every change up to then.
type callsSource struct {
	w     *calls.Watch
	f     calls.Filter
	first *calls.Change // the whole list, until it is sent
	drawn time.Time     // when the page was last patched
}

func (cs *callsSource) Close() { cs.w.Close() }

func (cs *callsSource) Next(ctx context.Context) ([]event, error) {
	if ch := cs.first; ch != nil {
		cs.first, cs.drawn = nil, time.Now()
		return callsEvents(*ch, cs.f), nil
	}
	for {
		if err := cs.w.Wait(ctx); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Until(cs.drawn.Add(inspectorEvery))):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		ch, err := cs.w.Changes(ctx)
		if err != nil {
			return nil, err
		}
		if !ch.Empty() {
			cs.drawn = time.Now()
			return callsEvents(ch, cs.f), nil
		}
	}
}

// callsEvents are the patches that show ch on a page showing f.
func callsEvents(ch calls.Change, f calls.Filter) []event {
	ps := debugPatches(ch, f)
	evs := make([]event, len(ps))
	for i, p := range ps {
		evs[i] = patchIn(p.comp, p.opts...)
	}
	return evs
}

// debugPatches are the patches that show ch on a page showing f: a
// conversation's header with its totals, its turns that changed (morphed
// in place, so the calls a reader opened stay open), its new turns after
// the others; the session's totals last.
func debugPatches(ch calls.Change, f calls.Filter) []treePatch {
	if ch.Full != nil {
		return []treePatch{{comp: templates.DebugList(*ch.Full)}}
	}
	var out []treePatch
	add := func(comp templ.Component, opts ...datastar.PatchElementOption) {
		out = append(out, treePatch{comp, opts})
	}
	for _, cc := range ch.Conversations {
		dc := cc.Conversation
		id := dc.Conversation.ID
		if cc.Whole {
			add(templates.DebugConversation(dc, f))
			continue
		}
		add(templates.DebugConversationHead(dc))
		for _, i := range cc.Changed {
			add(templates.DebugTurn(id, dc.Turns[i]))
		}
		for _, i := range cc.Added {
			add(templates.DebugTurn(id, dc.Turns[i]), datastar.WithSelectorID(templates.DebugTurnsID(id)), datastar.WithModeAppend())
		}
	}
	if f.Conversation == "" {
		add(templates.DebugSessionTotals(ch.Totals))
	}
	return out
}

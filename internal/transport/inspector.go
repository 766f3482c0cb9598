package transport

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// entryParam reads a reflog entry id from the query (?at=) or the path. A
// malformed one is not repeated back: it may be any text at all.
func entryParam(raw string) (int64, error) {
	if raw == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "There is no such reflog entry in this conversation; entries are numbered from 1.")
	}
	return id, nil
}

// nodeQuery reads a node id from the query (?node=). A malformed one is
// not repeated back: it may be any text at all.
func nodeQuery(raw string) (int64, error) {
	if raw == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "There is no such node in this conversation; nodes are numbered from 1.")
	}
	return id, nil
}

// inspectorQuery reads what an inspector is asked to show: a reflog
// entry's state (?at=) and a node to show the agents' state at (?node=).
func inspectorQuery(c echo.Context) (inspector.Query, error) {
	at, err := entryParam(c.QueryParam("at"))
	if err != nil {
		return inspector.Query{}, err
	}
	node, err := nodeQuery(c.QueryParam("node"))
	if err != nil {
		return inspector.Query{}, err
	}
	return inspector.Query{At: at, Node: node}, nil
}

// inspectorPage answers GET /c/:id/tree[?at=entry][&node=id]: the tree
// inspector, showing HEAD or, read-only, the state of a reflog entry, and
// the agents' state at the end of that path or at the node picked.
func (s *Server) inspectorPage(c echo.Context) error {
	q, err := inspectorQuery(c)
	if err != nil {
		return err
	}
	in, err := inspector.Inspect(c.Request().Context(), s.chat, sessionOf(c), c.Param("id"), q)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.InspectorPage(in, s.scheduled(c.Request().Context(), in.Conversation.ID)))
}

// inspectorStream answers GET /c/:id/tree/stream[?at=entry][&node=id],
// for the inspector page of the same query: the inspector drawn
// whole, then what changes as the conversation does — the new nodes where
// they go, the marks that moved, new and changed reflog rows — and drawn
// whole again only when a change is not a patch (see inspector.TreeChange).
func (s *Server) inspectorStream(c echo.Context) error {
	q, err := inspectorQuery(c)
	if err != nil {
		return err
	}
	return s.serveStream(c, "inspector", func(ctx context.Context) (source, error) {
		w, err := inspector.Open(ctx, s.chat, sessionOf(c), c.Param("id"), q)
		if err != nil {
			return nil, err
		}
		return &treeSource{w: w, draws: s.draws}, nil
	})
}

// inspectorEvery is the shortest time between two patches of the tree.
const inspectorEvery = 200 * time.Millisecond

// treeSource draws the tree inspector: whole first, then what changed.
// While a turn moves fast, the tree is patched at most every
// inspectorEvery, with every change up to then; notices pass at once. A
// whole drawing waits for one of the server's draw slots, held until it
// is sent (see stall.go).
type treeSource struct {
	w     *inspector.Watch
	draws drawSlots
	drawn time.Time // when the tree was last patched; zero before the first
	moved bool      // the tree may have changed since
}

func (t *treeSource) Close() { t.w.Close() }

func (t *treeSource) Next(ctx context.Context) ([]event, error) {
	for {
		if !t.drawn.IsZero() {
			if !t.moved {
				notices, moved, err := t.w.Wait(ctx)
				if err != nil {
					return nil, err
				}
				t.moved = moved
				if len(notices) > 0 {
					evs := make([]event, len(notices))
					for i, n := range notices {
						evs[i] = patchIn(templates.Notice(n))
					}
					return evs, nil
				}
			}
			select {
			case <-time.After(time.Until(t.drawn.Add(inspectorEvery))):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		evs, err := t.changes(ctx)
		if err != nil {
			return nil, err
		}
		t.moved = false
		if evs != nil {
			t.drawn = time.Now()
			return evs, nil
		}
	}
}

// changes returns the event that shows what changed in the tree, or nil
// when nothing did. A whole drawing is made in a draw slot, which the
// event gives back once it is sent, or fails to be.
func (t *treeSource) changes(ctx context.Context) ([]event, error) {
	release := func() {}
	if t.w.Whole() {
		var err error
		if release, err = t.draws.take(ctx); err != nil {
			return nil, err
		}
	}
	ch, err := t.w.Changes(ctx)
	if err != nil || ch.Empty() {
		release()
		return nil, err
	}
	evs := treeEvents(ch)
	return []event{func(sse *datastar.ServerSentEventGenerator) error {
		defer release()
		for _, ev := range evs {
			if err := ev(sse); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

// treeEvents are the patches that show ch.
func treeEvents(ch inspector.TreeChange) []event {
	ps := treePatches(ch)
	evs := make([]event, len(ps))
	for i, p := range ps {
		evs[i] = patchIn(p.comp, p.opts...)
	}
	return evs
}

// treePatch is one patch of the inspector.
type treePatch struct {
	comp templ.Component
	opts []datastar.PatchElementOption
}

// treePatches are the patches that show ch, in order: the new nodes first,
// so that the marks and rows after them find the page as it now is.
func treePatches(ch inspector.TreeChange) []treePatch {
	if ch.Full != nil {
		return []treePatch{{comp: templates.Inspector(*ch.Full)}}
	}
	var out []treePatch
	add := func(comp templ.Component, opts ...datastar.PatchElementOption) {
		out = append(out, treePatch{comp, opts})
	}
	in := ch.In
	for _, g := range ch.Growths {
		switch g.Kind {
		case inspector.Extend:
			add(templates.TreeChain(in, g.From), datastar.WithSelectorID(templates.NodeElementID(g.Node)), datastar.WithModeAfter())
		case inspector.Fork:
			if len(g.Moved) > 0 {
				add(templ.NopComponent, datastar.WithSelector(movedSelector(g)), datastar.WithModeRemove())
			}
			add(templates.TreeBranches(in, g.Node), datastar.WithSelectorID(templates.BranchElementID(g.Block)), datastar.WithModeAppend())
		case inspector.AddBranch:
			add(templates.TreeBranch(in, g.From), datastar.WithSelectorID(templates.ForkElementID(g.Node)), datastar.WithModeAppend())
		}
	}
	if len(ch.Marked) > 0 {
		add(templates.TreeNodeMarks(in, ch.Marked))
	}
	if ch.State {
		add(templates.AgentState(in))
	}
	if ch.Legend {
		add(templates.TreeLegend(in))
	}
	if len(ch.PathAdded) > 0 {
		add(templates.StatePathItems(ch.PathAdded), datastar.WithSelectorID(templates.StatePathID), datastar.WithModeAppend())
	}
	if ch.PathRedrawn {
		add(templates.StatePath(in))
	}
	if len(ch.Entries) > 0 {
		add(templates.ReflogRows(in, ch.Entries), datastar.WithSelectorID(templates.ReflogRowsID), datastar.WithModePrepend())
	}
	if len(ch.Flipped) > 0 {
		add(templates.ReflogRows(in, ch.Flipped))
	}
	return out
}

// movedSelector selects the nodes and the fork a Fork growth moves.
func movedSelector(g inspector.Growth) string {
	ids := make([]string, 0, len(g.Moved)+1)
	for _, id := range g.Moved {
		ids = append(ids, "#"+templates.NodeElementID(id))
	}
	if g.MovedFork != 0 {
		ids = append(ids, "#"+templates.ForkElementID(g.MovedFork))
	}
	return strings.Join(ids, ", ")
}

// collect answers POST /c/:id/gc: branches no one can reach any more, older
// than the retention, are removed; the pages say how much went.
func (s *Server) collect(c echo.Context) error {
	got, err := s.chat.GC(c.Request().Context(), sessionOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	s.chat.Inform(sessionOf(c), c.Param("id"), fmt.Sprintf("Garbage collection removed %d nodes and %d reflog entries.", got.Nodes, got.Entries))
	leaveNotice(c) // the notice just set says how it went
	return c.NoContent(http.StatusNoContent)
}

// recoverEntry answers POST /c/:id/reflog/:entry/recover: that entry's state is
// HEAD again (204).
func (s *Server) recoverEntry(c echo.Context) error {
	entry, err := entryParam(c.Param("entry"))
	if err == nil && entry == 0 {
		err = apperr.Errorf(apperr.NotFound, "There is no reflog entry %q in this conversation.", c.Param("entry"))
	}
	if err != nil {
		return err
	}
	if err := s.chat.Recover(c.Request().Context(), sessionOf(c), c.Param("id"), entry); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

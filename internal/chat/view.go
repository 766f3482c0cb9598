package chat

import (
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chatview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The read model is package chatview's; the chat names its types too, as
// its API has them (View, Item, ElicitView, ...), and builds it here.
type (
	View        = chatview.View
	Status      = chatview.Status
	Item        = chatview.Item
	ElicitState = chatview.ElicitState
	ElicitView  = chatview.ElicitView
	Branch      = chatview.Branch
	Notice      = chatview.Notice
)

// Where an elicit stands (chatview.ElicitState).
const (
	Pending     = chatview.Pending
	Answered    = chatview.Answered
	Interrupted = chatview.Interrupted
)

// live is the conversation as chatview.Items asks of it; c.mu is held.
type live struct{ c *conversation }

func (l live) Pending(ref string) bool                    { return l.c.questions.isPending(ref) }
func (l live) Decoded(n tree.Node) (elicit.Request, bool) { return l.c.questions.decoded(n) }

// buildItems turns path into visible items (chatview.Items).
func buildItems(path []tree.Node, c *conversation) []Item { return chatview.Items(path, live{c}) }

// view builds the page's view; c.mu is held.
func (pg *page) view() View {
	items := buildItems(pg.c.path, pg.c)
	items = pg.c.withSidesLocked(items)
	answers := map[string]tree.Node{}
	for _, n := range pg.c.path {
		if n.Kind == tree.ElicitResponse {
			answers[n.Ref] = n
		}
	}
	answer := func(eid string) (tree.Node, bool) { n, ok := answers[eid]; return n, ok }
	for i := range items {
		it := &items[i]
		if it.Elicit != nil {
			pg.c.questions.liveLocked(it.Elicit)
		}
		it.Branch = pg.c.branchOf(it, answer)
		it.Continued = it.Kind == tree.Stopped && pg.c.idx.Continues(it.ID)
	}
	return View{Conversation: pg.c.conv, Items: items, Status: pg.statusLocked(), Notice: pg.notice, Model: modelName(pg.c.svc.model)}
}

// branchOf places an item among its alternatives, or returns nil when it
// has none. For a question it is the answer on the path that counts, which
// answer finds.
func (c *conversation) branchOf(it *Item, answer func(eid string) (tree.Node, bool)) *Branch {
	n, ok := c.idx.Node(it.ID)
	if !ok {
		return nil
	}
	if n.Kind == tree.ElicitRequest {
		if n, ok = answer(n.Ref); !ok {
			return nil
		}
	} else if n.Kind != tree.UserMessage {
		return nil
	}
	alts := c.idx.Alternatives(n)
	if len(alts) < 2 {
		return nil
	}
	i := slices.Index(alts, n.ID)
	b := &Branch{Index: i + 1, Count: len(alts)}
	if i > 0 {
		b.Prev = alts[i-1]
	}
	if i+1 < len(alts) {
		b.Next = alts[i+1]
	}
	return b
}

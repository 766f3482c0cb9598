package chat

import (
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// view builds the page's view; c.mu is held.
func (pg *page) view() pageview.View {
	items := pageview.Items(pg.c.path, &pg.c.questions)
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
	return pageview.View{Conversation: pg.c.conv, Items: items, Status: pg.statusLocked(), Notice: pg.notice, Model: modelName(pg.c.svc.model)}
}

// branchOf places an item among its alternatives, or returns nil when it
// has none. For a question it is the answer on the path that counts, which
// answer finds.
func (c *conversation) branchOf(it *pageview.Item, answer func(eid string) (tree.Node, bool)) *pageview.Branch {
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
	b := &pageview.Branch{Index: i + 1, Count: len(alts)}
	if i > 0 {
		b.Prev = alts[i-1]
	}
	if i+1 < len(alts) {
		b.Next = alts[i+1]
	}
	return b
}

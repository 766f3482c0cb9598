package chat

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Side quests. While the agent waits on a question, the user may ask
// something else. The message is answered on a side branch that hangs from
// HEAD but never becomes it, so the flow that waits is untouched: its
// question stays pending and answerable, and the page shows the side
// exchange in place. A message that answers the waiting question in words
// is instead that question's answer, with the action other.

// waitingOnLocked returns the request the running turn waits on: the
// first in the queue when several are.
func (c *conversation) waitingOnLocked() (elicit.Request, bool) {
	if q := c.queueLocked(); len(q) > 0 {
		return c.requestLocked(q[0]), true
	}
	return elicit.Request{}, false
}

// answersInWords reports whether text speaks to req: it names one of the
// request's fields or options. It is deliberately plain, so that a person
// can predict it: "make it 3 travellers" answers a trip form, "what's the
// weather in Oslo?" does not.
func answersInWords(req elicit.Request, text string) bool {
	vocab := map[string]bool{}
	add := func(s string) {
		for _, w := range words(s) {
			vocab[w] = true
		}
	}
	if s := req.Schema; s != nil {
		for name, p := range s.Properties {
			add(strings.ReplaceAll(name, "_", " "))
			add(p.Title)
			for _, e := range p.Enum {
				add(e)
			}
			if p.Items != nil {
				for _, e := range p.Items.Enum {
					add(e)
				}
			}
		}
	}
	for _, w := range words(text) {
		if vocab[w] {
			return true
		}
	}
	return false
}

// words splits s into lower-case words of three letters or more, leaving
// out the commonest English ones.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 && !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are the commonest English words, which speak to no request. It
// is a fixed table, built once from the list, not configuration.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for you your are was were this that with what when where which who how
		too not but can could would should will just like make made have has had from into about them they their there
		then than its it's our out all any some more most much many very also yes one two get got let want please`) {
		m[w] = true
	}
	return m
}()

// sideQuestLocked records text as a side question beside the waiting
// request req and answers it in the background. c.mu is held.
func (s *Service) sideQuestLocked(ctx context.Context, c *conversation, req elicit.Request, text string) error {
	q, err := c.appendLocked(ctx, tree.Node{Parent: c.conv.Head, Kind: tree.SideQuestion, Payload: tree.MustEncode(tree.Message{Text: text})},
		tree.AppendOptions{Fork: true, Aside: true, Log: &tree.Move{Action: tree.ActFork, Detail: title(text)}})
	if err != nil {
		return err
	}
	msgs := c.contextLocked(req, text)
	s.background(c, func() { s.answerAside(c, q, msgs) })
	return nil
}

// contextLocked is what the model is told to answer a side question: the
// conversation so far, the question that waits, and the side question.
func (c *conversation) contextLocked(req elicit.Request, text string) []llm.Message {
	msgs := []llm.Message{{Role: llm.System, Content: "The user is in the middle of a task and asks something on the side. " +
		"Answer the side question briefly. The task waits on this question to the user: " + req.Message}}
	recent := plain(historyOf(c.path, c.path.Head()))
	if len(recent) > 10 {
		recent = recent[len(recent)-10:]
	}
	return append(append(msgs, recent...), llm.Message{Role: llm.User, Content: text})
}

// answerAside asks the model the side question q and records the call and
// the reply on the side branch, then logs the return to the flow.
func (s *Service) answerAside(c *conversation, q tree.Node, msgs []llm.Message) {
	ctx := s.ctx
	start := time.Now()
	req := llm.Request{Messages: msgs}
	resp, err := s.model.Complete(ctx, req, nil)
	rec := tree.SampleRecord{Request: req, LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
	reply := resp.Content
	if err != nil {
		rec.Error = err.Error()
		reply = failure(err).Text
	} else {
		rec.Response = &resp
	}
	if ctx.Err() != nil {
		return // shutting down; the question stays unanswered in the record
	}
	wctx := context.WithoutCancel(ctx)
	c.lock()
	defer c.mu.Unlock()
	aside := tree.AppendOptions{Fork: true, Aside: true}
	sample, err := c.appendLocked(wctx, tree.Node{Parent: q.ID, Kind: tree.Sample, Payload: tree.MustEncode(rec)}, aside)
	if err == nil {
		var r tree.Node
		r, err = c.appendLocked(wctx, tree.Node{Parent: sample.ID, Kind: tree.SideReply, Payload: tree.MustEncode(tree.Message{Text: reply})}, aside)
		if err == nil {
			err = s.store.LogMove(wctx, c.conv.ID, r.ID, q.Parent, tree.Move{Action: tree.ActReturn, Detail: "back to the flow"})
		}
	}
	if err != nil {
		s.log.Error("record side reply", "conversation", c.conv.ID, "err", err)
	}
}

// sideItemLocked is the item of the side question n belongs to (n is the
// question, or a node under it), as the page shows it.
func (c *conversation) sideItemLocked(n tree.Node) (Item, bool) {
	q, ok := c.idx.SideRoot(n)
	if !ok {
		return Item{}, false
	}
	m, _ := tree.Decode[tree.Message](q)
	it := Item{ID: q.ID, Kind: tree.SideQuestion, Text: m.Text}
	// The reply is the side-reply node under the question (via its model call).
	if r, ok := c.idx.SideReply(q.ID); ok {
		rm, _ := tree.Decode[tree.Message](r)
		it.Reply, it.Replied = rm.Text, true
	}
	return it, true
}

// withSidesLocked inserts, after the item of each path node, the side
// questions asked from it.
func (c *conversation) withSidesLocked(items []Item) []Item {
	var out []Item
	at := map[int64]int{} // path node id → index in items of the last item at or before it
	i := 0
	for _, n := range c.path {
		for i < len(items) && items[i].ID <= n.ID {
			i++
		}
		at[n.ID] = i
	}
	pos := 0
	for _, n := range c.path {
		var sides []Item
		for _, q := range c.idx.Sides(n.ID) {
			if it, ok := c.sideItemLocked(q); ok {
				sides = append(sides, it)
			}
		}
		if len(sides) == 0 {
			continue
		}
		out = append(out, items[pos:at[n.ID]]...)
		pos = at[n.ID]
		out = append(out, sides...)
	}
	return append(out, items[pos:]...)
}

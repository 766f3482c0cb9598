package chat

import (
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// view builds the page's view; c.mu is held.
func (pg *page) view() pageview.View {
	return pageview.View{Conversation: pg.c.conv, Items: pg.c.reader().Items(), Status: pg.statusLocked(), Notice: pg.notice, Model: llm.ModelName(pg.c.svc.model)}
}

// reader reads c as its pages show it (package pageview); c.mu is held
// while it is read.
func (c *conversation) reader() pageview.Reader {
	return pageview.Reader{Index: c.idx, Path: c.path, Live: shown{c}}
}

// shown tells the page's read model what only the running conversation
// knows: its questions' live state and its side turns' drafts.
type shown struct{ c *conversation }

func (s shown) IsPending(ref string) bool                  { return s.c.questions.IsPending(ref) }
func (s shown) Decoded(n tree.Node) (elicit.Request, bool) { return s.c.questions.Decoded(n) }
func (s shown) DecodedResponse(n tree.Node) (elicit.Response, bool) {
	return s.c.questions.DecodedResponse(n)
}
func (s shown) Question(e *pageview.ElicitView) { s.c.questions.liveLocked(e) }
func (s shown) Waiting() bool                   { return len(s.c.questions.queueLocked()) > 0 }
func (s shown) SideDraft(q int64) (draft string, working bool) {
	if t := s.c.sides[q]; t != nil {
		return t.draftLocked(), true
	}
	return "", false
}

package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Where a turn runs. A turn of the flow and a side turn are one engine
// (turn.go, primitives.go) placed in two places: the flow records on HEAD's
// branch and shows itself in the page's status; a side turn records on its
// side question's branch, which HEAD never moves to, and shows itself in
// that question's place (sidequest.go). A turn holds its placement, and the
// engine asks it whatever differs between the two instead of asking which
// kind of turn it runs.

// placement is where a turn records, shows itself and ends. c.mu is held
// for every method but run and waitOnModel.
type placement interface {
	// enter makes t the turn that runs here.
	enter(t *turn)
	// live reports whether t may still record: it is still the turn that
	// runs here.
	live(t *turn) bool
	// run runs a's code for the text that started t.
	run(ctx context.Context, a agents.Assistant, text string) (string, error)
	// record appends n, which t records, with move in the reflog.
	record(ctx context.Context, t *turn, n tree.Node, move *tree.Move) (tree.Node, error)
	// answered returns the recorded answer to t's question eid.
	answered(t *turn, eid string) (elicit.Response, bool)
	// branch returns the path t records on, from the root to its latest
	// node: where the choices the user made for the conversation are.
	branch(t *turn) tree.Path
	// choices returns what was read of the user's choices for the
	// conversation on t's branch (package consent).
	choices(t *turn) *consent.Choices
	// history returns what t's model is given of the conversation.
	history(t *turn, v int) []history.Message
	// draft returns what t's reply streamed so far.
	draft(t *turn) string
	// drafted adds delta to t's reply as it streams and shows it; an empty
	// delta starts the draft afresh.
	drafted(t *turn, delta string)
	// notified shows the progress t reported.
	notified(t *turn, p middleware.Progress)
	// asking shows that t waits for the user now.
	asking(t *turn)
	// waitOnModel shows that t waits on a model call, until the function
	// it returns is called.
	waitOnModel(t *turn) (done func())
	// showQuestion shows t's pending question w again.
	showQuestion(t *turn, w *waiter)
	// deliver hands resp to t's pending question w, asked as req, and
	// sees to its record (see deliverLocked).
	deliver(t *turn, w *waiter, req elicit.Request, resp elicit.Response) (*heldAnswer, error)
	// end records how t ended (a kind of end node and what it says), or,
	// with no kind, leaves it where it is, to be resumed from its record.
	end(ctx context.Context, t *turn, kind tree.Kind, m tree.Message)
}

// flow places a turn on HEAD's branch: what it records goes on HEAD, and
// its draft, progress and waits show in the page's status.
type flow struct{}

func (flow) enter(t *turn) { t.conv.current = t }

func (flow) live(t *turn) bool { return t.conv.current == t }

func (flow) run(ctx context.Context, a agents.Assistant, text string) (string, error) {
	return a.Turn(ctx, text)
}

// record appends n on HEAD, or, for a turn going back from a block it
// tried, beside the block (n.Parent set).
func (flow) record(ctx context.Context, t *turn, n tree.Node, move *tree.Move) (tree.Node, error) {
	return t.conv.appendLocked(ctx, n, tree.AppendOptions{Log: move, Fork: n.Parent != 0})
}

func (flow) answered(t *turn, eid string) (elicit.Response, bool) {
	return t.conv.questions.responseLocked(eid)
}

func (flow) branch(t *turn) tree.Path { return t.conv.path }

// choices are the conversation's: a turn of the flow goes on from what the
// one before it read of HEAD's branch.
func (flow) choices(t *turn) *consent.Choices { return &t.conv.choices }

func (flow) history(t *turn, v int) []history.Message {
	return history.Of(t.conv.idx, t.conv.path, t.id, v)
}

func (flow) draft(t *turn) string { return t.conv.page.draftLocked() }

func (flow) drafted(t *turn, delta string) { t.conv.page.draftedLocked(delta) }

func (flow) notified(t *turn, p middleware.Progress) {
	t.conv.page.status.Progress = &p
	t.conv.page.broadcastStatusLocked()
}

// asking clears the progress the turn reported: that is done, and it waits
// for the user now.
func (flow) asking(t *turn) { t.conv.page.status.Progress = nil }

func (flow) waitOnModel(t *turn) func() { return t.waitOnModel() }

func (flow) showQuestion(t *turn, w *waiter) {
	c := t.conv
	c.page.hub.ShowLocked(func() (feed.Change, bool) {
		it, ok := c.reader().Question(w.req.ID)
		return feed.Change{Item: &it}, ok
	})
}

func (flow) deliver(t *turn, w *waiter, req elicit.Request, resp elicit.Response) (*heldAnswer, error) {
	return t.conv.questions.holdLocked(w, req, resp), nil
}

// end records the end of a turn of the flow on HEAD (a stop with its entry
// in the reflog) and starts what was queued behind it.
func (flow) end(ctx context.Context, t *turn, kind tree.Kind, m tree.Message) {
	c := t.conv
	if kind == "" {
		// Left where it is, the turn resumes from its record: its tool's
		// record is kept (held.go).
		c.records.flushLocked(c)
	}
	if kind != "" {
		var move *tree.Move
		if kind == tree.Stopped {
			move = &tree.Move{Action: tree.ActCancel, Detail: "stopped the turn"}
		}
		if _, err := c.appendLocked(ctx, tree.Node{Kind: kind, Agent: t.agent, Payload: tree.MustEncode(m)}, tree.AppendOptions{Log: move}); err != nil {
			c.svc.log.Error("record end of turn", "conversation", c.conv.ID, "err", err)
		}
	}
	c.endedLocked(t)
}

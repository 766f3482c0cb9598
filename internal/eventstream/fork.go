package eventstream

import "github.com/sweatpants-go/sweatpants/internal/tree"

// Tries. Agent code can try a block on a child branch and then keep what
// it did or go back to where it began (agents.Fork). The stream says when
// a try begins (fork.tried) and how it ended (fork.ended), so that a
// client can tell the block's tool calls and questions, which come
// between, for an attempt, and, when the agent went back, drop what the
// attempt did from the flow it shows.
//
// Going back records a stop that closes the tried branch (so that
// recovering it from the reflog resumes nothing) before the fork.ended.
// That stop ends no run, and gives no event: the run goes on from where
// the block began, and its run.completed comes when it ends there.

// The try event types.
const (
	EventForkTried = "fork.tried" // ForkTried: the agent began to try a block on a child branch
	EventForkEnded = "fork.ended" // ForkEnded: it kept what the block did, or went back from it
)

// ForkTried is the data of fork.tried: the agent tries Label ("a cheaper
// flight", in its words). Call is the try's id within the run; the events
// of the run that follow, up to the fork.ended of the same Call, are the
// block's (side runs, marked aside, excepted).
type ForkTried struct {
	Recorded
	Call  string `json:"call"`
	Agent string `json:"agent,omitempty"`
	Label string `json:"label"`
}

// ForkEnded is the data of fork.ended: how try Call (its fork.tried is
// node Fork) ended.
//
// Kept, the flow goes on from the end of the block, with what it did.
//
// Not kept, the flow went back to node BackTo, the last node before the
// fork.tried, and goes on from there: what the block's events told (a
// tool's result, an answer, a reply streamed) is no longer the flow's, and
// the model no longer sees it. The tools the block called did run. The
// tried branch stays in the record, abandoned; Tip is its last node, the
// stop that closed it, which gives no event. Recovering the tried branch
// from the reflog (POST /c/:id/reflog/:entry/recover) brings the
// conversation back to Tip: the next run.started then has Tip as its
// Parent.
type ForkEnded struct {
	Recorded
	Call   string `json:"call"`
	Fork   int64  `json:"fork"`
	Label  string `json:"label"`
	Kept   bool   `json:"kept"`
	BackTo int64  `json:"back_to,omitempty"`
	Tip    int64  `json:"tip,omitempty"`
}

// forkEnded is the fork.ended of ForkEnd node n, recorded as rec.
func forkEnded(x *tree.Index, rec Recorded, n tree.Node) ForkEnded {
	r, _ := tree.Decode[tree.ForkEndRecord](n)
	out := ForkEnded{Recorded: rec, Fork: r.Fork, Label: r.Label, Kept: r.Forward}
	if fork, ok := x.Node(r.Fork); ok {
		out.Call = fork.Ref
	}
	if !r.Forward {
		// Gone back, the decision is recorded beside the fork.
		out.BackTo, out.Tip = n.Parent, r.Tip
	}
	return out
}

// closesTry reports whether Stopped node n is the stop that closed a tried
// branch when the agent went back from it: a ForkEnd beside one of the
// Fork nodes above n, within its run, names n as the tried branch's tip.
// The ForkEnd is recorded right after the stop under the conversation's
// lock, so whoever reads the stop reads the ForkEnd with it.
func closesTry(x *tree.Index, n tree.Node) bool {
	for a, ok := x.Node(n.Parent); ok; a, ok = x.Node(a.Parent) {
		switch a.Kind {
		case tree.UserMessage, tree.SideQuestion:
			return false // a try is within its run
		case tree.Fork:
			for _, id := range x.Children(a.Parent) {
				end, _ := x.Node(id)
				if end.Kind != tree.ForkEnd {
					continue
				}
				if r, err := tree.Decode[tree.ForkEndRecord](end); err == nil && !r.Forward && r.Fork == a.ID && r.Tip == n.ID {
					return true
				}
			}
		}
	}
	return false
}

// Package history is what the model is given of a conversation: the path
// to a turn's message read as chat messages. It reads the tree and nothing
// else, so the live turn, its replay and the pre-deploy dry run build the
// same messages from the same record.
//
// Version 1 gives the conversation as it happened:
// the messages, the questions an earlier turn asked and the user's answers
// (with their values), the tool calls a model made and their results
// (paired by the model's call ids), what a scripted turn's tools returned,
// the figures shown, and the side threads where they were asked. Version
// 0 gave messages, summaries and figures alone; a turn recorded under it
// is given that again on replay (the version is written on the turn's
// message, tree.Message.History), so its recorded model calls still match.
package history

import (
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Latest is the newest version of the history (see the package comment).
const Latest = 1

// Message is a message of the conversation with the node it came from: the
// node a summary covers in its place. The messages of one tool exchange (a
// call and its result) share the exchange's node, so that a summary never
// covers one without the other.
type Message struct {
	Node int64
	llm.Message
	// Attachments are the files sent with a user message or given as an
	// answer (elicit.AskFile), which the caller reads for the model
	// (package attach): this package reads the tree alone.
	Attachments []tree.Attachment
}

// Of returns the conversation on path up to node last, as the model sees
// it under version v, with each summarized span replaced by its summary.
// idx finds the side threads asked from the path's nodes; it may be nil
// under version 0, which has none.
func Of(idx *tree.Index, path []tree.Node, last int64, v int) []Message {
	return of(idx, path, last, v, nil)
}

// of is Of, leaving out the side questions in skip as sides.
func of(idx *tree.Index, path []tree.Node, last int64, v int, skip map[int64]bool) []Message {
	if v < 1 {
		return ofV0(path, last)
	}
	// A side thread continued as the flow is on the path: it is given as
	// the flow's messages, not again as a side thread.
	for _, n := range path {
		if n.Kind == tree.SideQuestion {
			if skip == nil {
				skip = map[int64]bool{}
			}
			skip[n.ID] = true
		}
	}
	b := builder{idx: idx, last: last, skip: skip, nested: nestedCalls(path, last)}
	for _, n := range path {
		if n.ID > last {
			break // the turn's own summary, if any, is the middleware's
		}
		b.node(n)
		if idx != nil {
			b.sides(n.ID)
		}
	}
	b.flush()
	return b.out
}

// Side returns the model's context for the side turn that question q
// started: the conversation up to where its thread hangs, a note saying
// where it is and what the flow waits on, and the thread up to q.
func Side(idx *tree.Index, q int64, v int) []Message {
	path := idx.PathTo(q)
	// The thread begins at its side question that hangs from the flow: a
	// thread continued as the flow before it is on the path too.
	i := -1
	for j := len(path) - 1; j > 0 && i < 0; j-- {
		if _, side := idx.SideRoot(path[j-1]); path[j].Kind == tree.SideQuestion && !side {
			i = j
		}
	}
	if i < 1 {
		return Of(idx, path, q, v)
	}
	// The flow's part is the conversation before the thread, with the
	// other threads asked from it; the thread's own part is its path.
	thread := map[int64]bool{}
	for _, n := range path[i:] {
		if n.Kind == tree.SideQuestion {
			thread[n.ID] = true
		}
	}
	out := of(idx, path[:i], q, v, thread)
	out = append(out, Message{Node: path[i].ID, Message: llm.Message{Role: llm.System, Content: sideNote(path[i-1])}})
	return append(out, Of(nil, path[i:], q, v)...)
}

// ApplySummary replaces the messages of span s, recorded as node, with the
// summary.
func ApplySummary(msgs []Message, node int64, s tree.SummaryRecord) []Message {
	covered := make(map[int64]bool, len(s.Covers))
	for _, id := range s.Covers {
		covered[id] = true
	}
	var out []Message
	placed := false
	for _, m := range msgs {
		if covered[m.Node] {
			if !placed {
				out = append(out, Message{Node: node, Message: llm.Message{Role: llm.System, Content: "Summary of the earlier conversation: " + s.Text}})
				placed = true
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// Plain returns msgs as the model is given them.
func Plain(msgs []Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Message
	}
	return out
}

// sideNote tells the model where a side thread hangs: from a question that
// waits, or beside a reply.
func sideNote(anchor tree.Node) string {
	if anchor.Kind == tree.ElicitRequest {
		req, _ := tree.Decode[elicit.Request](anchor)
		return "From here the user asks on the side while the conversation waits for their answer to: “" + req.Message +
			"”. Answer the side question; do not answer the waiting question for them."
	}
	return "From here the user asks on the side, in a thread beside the conversation. Answer there."
}

// VersionOf is the version of the history of the turn that message id
// starts (tree.Message.History).
func VersionOf(idx *tree.Index, id int64) int {
	n, _ := idx.Node(id)
	m, _ := tree.Decode[tree.Message](n)
	return m.History
}

package tree_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Feedback hangs aside from a reply: the newest counts, a cleared one
// counts as none, the branch's tip is the reply and not the feedback, and
// garbage collection keeps it while the reply is on HEAD's branch.
func TestFeedbackHangsAsideFromItsReply(t *testing.T) {
	fb := func(id, parent int64, r tree.Rating, comment string) tree.Node {
		return tree.Node{ID: id, Parent: parent, Kind: tree.Feedback, Payload: tree.MustEncode(tree.FeedbackRecord{Rating: r, Comment: comment})}
	}
	msg := tree.Node{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "hi"})}
	reply := tree.Node{ID: 2, Parent: 1, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: "hello"})}
	x := tree.NewIndex([]tree.Node{msg, reply, fb(3, 2, tree.ThumbsDown, "meh"), fb(4, 2, tree.ThumbsUp, "")})

	if r, n, ok := x.FeedbackOn(2); !ok || n.ID != 4 || r.Rating != tree.ThumbsUp {
		t.Errorf("FeedbackOn = %+v, %d, %v; want the newest, thumbs up (node 4)", r, n.ID, ok)
	}
	if got := x.FlowTip(1); got != 2 {
		t.Errorf("FlowTip = %d, want the reply (2), not its feedback", got)
	}
	keep := x.Reachable(x.PathTo(2), nil, nil)
	if !keep[3] || !keep[4] {
		t.Errorf("Reachable = %v, want the feedback on the reply kept", keep)
	}
	x.Add(fb(5, 2, tree.NoRating, ""))
	if r, _, ok := x.FeedbackOn(2); ok {
		t.Errorf("after it was taken back FeedbackOn = %+v, want none", r)
	}
	if _, _, ok := x.FeedbackOn(1); ok {
		t.Error("a message with no feedback has some")
	}
}

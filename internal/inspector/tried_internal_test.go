package inspector

import (
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// An open inspector that drew a tried block while it was being tried is
// told how it ended when the end comes: the Fork node is drawn again for
// its mark, with its end, whether the end hangs beside it (back) or at the
// block's tip (forward).
func TestAnOpenInspectorLearnsHowATriedBlockEnded(t *testing.T) {
	svc, db := chattest.New(t, chat.Config{})
	if err := db.EnsureSession(t.Context(), "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(t.Context(), tree.Conversation{ID: "c1", Session: "dev", Agent: "concierge"}); err != nil {
		t.Fatal(err)
	}
	f, err := svc.Follow(t.Context(), "dev", "c1", feed.Want{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	nodes := []tree.Node{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "cheaper?"})},
		{ID: 2, Parent: 1, Kind: tree.Fork, Ref: "1-1", Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})},
		{ID: 3, Parent: 2, Kind: tree.Notify, Ref: "1-1.1", Payload: []byte(`{"message":"looking"}`)},
	}
	live := func(head int64) feed.Live {
		x := tree.NewIndex(nodes)
		return feed.Live{Conversation: tree.Conversation{ID: "c1", Head: head}, Index: x, Path: x.PathTo(head)}
	}
	for _, tc := range []struct {
		name string
		end  tree.Node
	}{
		{"back", tree.Node{ID: 4, Parent: 1, Kind: tree.ForkEnd, Ref: "1-2", Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 2, Tip: 3})}},
		{"forward", tree.Node{ID: 4, Parent: 3, Kind: tree.ForkEnd, Ref: "1-2", Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 2, Forward: true, Tip: 3})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes = nodes[:3]
			v := view{f: f}
			if in := v.snapshot(live(3)); len(in.Ends) != 0 {
				t.Fatalf("ends %v before the block ended", in.Ends)
			}
			nodes = append(nodes[:3], tc.end)
			ch, _, ok := v.grow(live(4), false)
			if !ok {
				t.Fatal("the end is not a patch")
			}
			if !slices.Contains(ch.Marked, 2) && !grewAgain(ch, 2) {
				t.Errorf("the Fork node is not drawn again: marked %v, growths %+v", ch.Marked, ch.Growths)
			}
			if got := ch.In.Ends[2].ID; got != 4 {
				t.Errorf("the Fork node's end in the patch is %d, want 4", got)
			}
		})
	}
}

// grewAgain reports whether a growth of ch draws node id again.
func grewAgain(ch TreeChange, id int64) bool {
	for _, g := range ch.Growths {
		if slices.Contains(g.Moved, id) {
			return true
		}
	}
	return false
}

// A block tried again on a new branch (an answer inside it changed) has an
// end on each branch: the inspector shows the one on HEAD's path, so after
// a recovery back to where the block was kept it shows it kept.
func TestATriedBlockShowsTheEndOnHEADsPath(t *testing.T) {
	f := follower(t)
	nodes := []tree.Node{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "cheaper?"})},
		{ID: 2, Parent: 1, Kind: tree.Fork, Ref: "1-1", Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})},
		{ID: 3, Parent: 2, Kind: tree.Notify, Ref: "1-1.1", Payload: []byte(`{"message":"answered yes"}`)},
		{ID: 4, Parent: 3, Kind: tree.ForkEnd, Ref: "1-2", Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 2, Forward: true, Tip: 3})},
		{ID: 5, Parent: 4, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: "Kept it."})},
		// The answer changed: the block is tried again, and left this time.
		{ID: 6, Parent: 2, Kind: tree.Notify, Ref: "1-1.1", Payload: []byte(`{"message":"answered no"}`)},
		{ID: 7, Parent: 1, Kind: tree.ForkEnd, Ref: "1-2", Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 2, Tip: 6})},
		{ID: 8, Parent: 7, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: "Went back."})},
	}
	x := tree.NewIndex(nodes)
	live := func(head int64) feed.Live {
		return feed.Live{Conversation: tree.Conversation{ID: "c1", Head: head}, Index: x, Path: x.PathTo(head)}
	}
	for _, tc := range []struct {
		head, end int64
		fate      string
	}{{8, 7, "abandoned"}, {5, 4, "adopted"}} {
		v := view{f: f}
		if got := v.snapshot(live(tc.head)).Ends[2].ID; got != tc.end {
			t.Errorf("drawn with HEAD at %d, the block's end is %d, want %d (%s)", tc.head, got, tc.end, tc.fate)
		}
	}
	// HEAD goes back (a recovery) while the inspector is open.
	v := view{f: f}
	v.snapshot(live(8))
	ch, _, ok := v.grow(live(5), false)
	if !ok {
		t.Fatal("the recovery is not a patch")
	}
	if !slices.Contains(ch.Marked, 2) {
		t.Errorf("the Fork node is not drawn again for its mark: marked %v", ch.Marked)
	}
	if got := ch.In.Ends[2].ID; got != 4 {
		t.Errorf("after the recovery the block's end is %d, want 4 (kept)", got)
	}
}

// A block its turn left without deciding (the turn was stopped, or ended
// by an error) is not shown as being tried once the turn is over.
func TestAnUndecidedBlockIsNotBeingTriedOnceItsTurnEnded(t *testing.T) {
	f := follower(t)
	nodes := []tree.Node{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "cheaper?"})},
		{ID: 2, Parent: 1, Kind: tree.Fork, Ref: "1-1", Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})},
		{ID: 3, Parent: 2, Kind: tree.Notify, Ref: "1-1.1", Payload: []byte(`{"message":"looking"}`)},
	}
	live := func(turn feed.TurnState) feed.Live {
		x := tree.NewIndex(nodes)
		head := int64(len(nodes))
		return feed.Live{Conversation: tree.Conversation{ID: "c1", Head: head}, Index: x, Path: x.PathTo(head), Turn: turn}
	}
	v := view{f: f}
	in := v.snapshot(live(feed.TurnRunning))
	if _, ended := in.Ends[2]; ended || in.Undecided[2] {
		t.Fatalf("while its turn runs the block shows ended %v, undecided %v; want it being tried", ended, in.Undecided[2])
	}
	nodes = append(nodes, tree.Node{ID: 4, Parent: 3, Kind: tree.Stopped, Payload: tree.MustEncode(tree.Message{Text: "Stopped."})})
	ch, _, ok := v.grow(live(feed.TurnIdle), false)
	if !ok {
		t.Fatal("the turn's end is not a patch")
	}
	if !slices.Contains(ch.Marked, 2) || !ch.In.Undecided[2] {
		t.Errorf("after its turn ended the block is marked %v, undecided %v; want it drawn again, undecided", ch.Marked, ch.In.Undecided[2])
	}
	if in := (&view{f: f}).snapshot(live(feed.TurnIdle)); !in.Undecided[2] {
		t.Error("drawn after its turn ended, the block is not shown undecided")
	}
}

// follower follows a conversation of its own, for a view to look through.
func follower(t *testing.T) *feed.Follower {
	t.Helper()
	svc, db := chattest.New(t, chat.Config{})
	if err := db.EnsureSession(t.Context(), "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(t.Context(), tree.Conversation{ID: "c1", Session: "dev", Agent: "concierge"}); err != nil {
		t.Fatal(err)
	}
	f, err := svc.Follow(t.Context(), "dev", "c1", feed.Want{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

package inspector

import (
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/chat/chattest"
	"github.com/sweatpants-go/sweatpants/backend/tree"
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
	f, err := svc.Follow(t.Context(), "dev", "c1", chat.Want{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	nodes := []tree.Node{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "cheaper?"})},
		{ID: 2, Parent: 1, Kind: tree.Fork, Ref: "1-1", Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})},
		{ID: 3, Parent: 2, Kind: tree.Notify, Ref: "1-1.1", Payload: []byte(`{"message":"looking"}`)},
	}
	live := func(head int64) chat.Live {
		x := tree.NewIndex(nodes)
		return chat.Live{Conversation: tree.Conversation{ID: "c1", Head: head}, Index: x, Path: x.PathTo(head)}
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

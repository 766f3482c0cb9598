package chat

import (
	"context"
	"slices"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Inspection is a conversation laid open for developers: every node of
// every branch, HEAD, and the reflog of HEAD's moves.
type Inspection struct {
	Conversation tree.Conversation
	Nodes        map[int64]tree.Node
	Children     map[int64][]int64 // parent → children, oldest first; roots under 0
	Reflog       []tree.RefEntry   // newest first
	Running      bool
	// At is the reflog entry being inspected, if any; OnPath holds the nodes
	// from the root to the inspected state (HEAD when At is nil).
	At     *tree.RefEntry
	OnPath map[int64]bool
	Path   []tree.Node
	// Targets maps each reflog entry to the node Recover would make HEAD.
	Targets map[int64]int64
}

// Inspect returns the conversation's whole tree and reflog; at, when not
// zero, names a reflog entry whose state (as Recover would restore it) is
// shown instead of HEAD's.
func (s *Service) Inspect(ctx context.Context, session, id string, at int64) (Inspection, error) {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return Inspection{}, err
	}
	defer s.release(l)
	reflog, err := s.store.Reflog(ctx, id)
	if err != nil {
		return Inspection{}, err
	}
	l.lock()
	defer l.mu.Unlock()
	in := Inspection{
		Conversation: l.conv,
		Nodes:        make(map[int64]tree.Node, len(l.nodes)),
		Children:     make(map[int64][]int64, len(l.children)),
		Reflog:       reflog,
		Running:      l.running(),
		OnPath:       map[int64]bool{},
		Targets:      make(map[int64]int64, len(reflog)),
	}
	for _, e := range reflog {
		in.Targets[e.ID] = l.newestUnder(e.Head)
	}
	for k, n := range l.nodes {
		in.Nodes[k] = n
	}
	for k, c := range l.children {
		in.Children[k] = slices.Clone(c)
	}
	head := l.conv.Head
	if at != 0 {
		i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID == at })
		if i < 0 {
			return Inspection{}, apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation.", at)
		}
		in.At, head = &reflog[i], l.newestUnder(reflog[i].Head)
	}
	in.Path = l.pathTo(head)
	for _, n := range in.Path {
		in.OnPath[n.ID] = true
	}
	return in, nil
}

// Recover makes the state of reflog entry `entry` HEAD again — a discarded
// branch included — with its suspended questions live again. An entry's
// state is the branch its move started, as far as that branch got. A
// running turn is parked first.
func (s *Service) Recover(ctx context.Context, session, id string, entry int64) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	reflog, err := s.store.Reflog(ctx, id)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID == entry })
	if i < 0 {
		return apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation.", entry)
	}
	l.lock()
	defer l.mu.Unlock()
	e := reflog[i]
	return s.moveHeadLocked(ctx, l, l.newestUnder(e.Head), tree.Move{Action: tree.ActRecover, Detail: "the state after " + string(e.Action) + " " + e.Detail})
}

package chat

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/runtime"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// GCRetention is how long unreachable nodes and reflog entries are kept
// before GC may remove them. Middleware (or an app) sets it for a scope; a
// retention of zero or less removes whatever is unreachable now.
var GCRetention = runtime.NewValue("gc-retention", 30*24*time.Hour)

// Collected says what GC removed.
type Collected struct {
	Nodes, Entries int
}

// GC removes what can no longer be reached: reflog entries older than the
// retention expire, and then nodes older than the retention that are
// neither on HEAD's branch (with its side questions) nor on the branch of a
// remaining reflog entry are deleted. A running turn's branch is HEAD's, so
// it is never touched.
func (s *Service) GC(ctx context.Context, session, id string) (Collected, error) {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return Collected{}, err
	}
	defer s.release(l)
	reflog, err := s.store.Reflog(ctx, id)
	if err != nil {
		return Collected{}, err
	}
	cutoff := time.Now().Add(-GCRetention.Get(ctx))
	if GCRetention.Get(ctx) <= 0 {
		cutoff = time.Now().Add(time.Hour)
	}
	l.lock()
	defer l.mu.Unlock()

	keep := map[int64]bool{}
	var expired []int64
	withAncestors := func(id int64) {
		for id != 0 && !keep[id] {
			keep[id] = true
			id = l.nodes[id].Parent
		}
	}
	withSubtree := func(id int64) {
		stack := []int64{id}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			keep[n] = true
			stack = append(stack, l.children[n]...)
		}
	}
	for _, n := range l.path {
		keep[n.ID] = true
		for _, c := range l.children[n.ID] {
			if l.nodes[c].Kind == tree.SideQuestion {
				withSubtree(c)
			}
		}
	}
	for _, e := range reflog {
		if e.At.Before(cutoff) {
			expired = append(expired, e.ID)
			continue
		}
		withAncestors(e.Head)
		withSubtree(e.Head)
	}
	for _, n := range l.nodes { // young nodes stay, and so do their ancestors
		if !n.At.Before(cutoff) {
			withAncestors(n.ID)
		}
	}
	var doomed []int64
	for nid := range l.nodes {
		if !keep[nid] {
			doomed = append(doomed, nid)
		}
	}
	if len(doomed) == 0 && len(expired) == 0 {
		return Collected{}, nil
	}
	if err := s.store.Collect(ctx, id, doomed, expired); err != nil {
		return Collected{}, err
	}
	for _, nid := range doomed {
		l.dropNode(nid)
	}
	for parent, kids := range l.children {
		kept := kids[:0]
		for _, k := range kids {
			if keep[k] {
				kept = append(kept, k)
			}
		}
		l.children[parent] = kept
	}
	l.resyncLocked()
	return Collected{Nodes: len(doomed), Entries: len(expired)}, nil
}

package replay

import (
	"bytes"
	"slices"
	"sync"

	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Samples are a turn's latest model calls, one for each scope its calls
// are numbered in (durable.ScopeOf): the next call of a scope is recorded
// against the one before it (tree.Prior), as what is new in its request,
// and on replay compared with its record rebuilt from that one. A loop's
// step so records, and replays, what the step added, not the whole
// conversation again. The previous call of the same scope is the base
// because it is the one the code made just before: a loop's previous
// step, not a model call a tool made in between (that has a scope of its
// own). Calls of one scope are made one after another; the branches of a
// turn.Together number theirs in scopes of their own, hence the lock,
// which guards the map only. The zero value is ready to use.
type Samples struct {
	mu    sync.Mutex
	last  map[string]tree.Prior        // by scope
	begin map[string]func() tree.Prior // by scope: what its first call continues, not asked yet
}

// Begin says what the first call of scope is recorded against: the Prior
// begin returns, asked when that call is made (a turn that calls no model
// reads nothing for it). A turn's first call so continues the conversation's
// last (Before), rather than record the whole conversation again.
func (s *Samples) Begin(scope string, begin func() tree.Prior) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.begin == nil {
		s.begin = map[string]func() tree.Prior{}
	}
	s.begin[scope] = begin
}

// prior returns the call before call id in its scope, if the turn made or
// replayed one; else what the scope begins with (Begin), or the zero
// Prior. The Prior a scope begins with is worked out outside the lock:
// it may read the tree.
func (s *Samples) prior(id string) tree.Prior {
	scope := durable.ScopeOf(id)
	s.mu.Lock()
	p, ok := s.last[scope]
	begin := s.begin[scope]
	delete(s.begin, scope)
	s.mu.Unlock()
	if ok || begin == nil {
		return p
	}
	p = begin()
	s.mu.Lock()
	defer s.mu.Unlock()
	if was, ok := s.last[scope]; ok {
		return was // a call of the scope was taken meanwhile
	}
	if s.last == nil {
		s.last = map[string]tree.Prior{}
	}
	s.last[scope] = p
	return p
}

func (s *Samples) set(id string, p tree.Prior) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last = map[string]tree.Prior{}
	}
	s.last[durable.ScopeOf(id)] = p
}

// Record returns the record to write of req, made live as call id.
func (s *Samples) Record(id string, req llm.Request) tree.SampleRecord {
	return s.prior(id).Record(req)
}

// Recorded takes req, recorded as rec at node n, as the last call of its
// scope. It keeps a copy of req's messages (the code may change its own
// slice), built on the prior's, which is the turn's own and not needed
// any more: a step copies what it added, not the whole conversation.
func (s *Samples) Recorded(id string, n int64, rec tree.SampleRecord, req llm.Request) {
	p := s.prior(id)
	var kept []llm.Message
	if rec.Base != 0 {
		kept = p.Request.Messages[:rec.Kept]
	}
	whole := req
	whole.Messages = append(kept, req.Messages[rec.Kept:]...)
	for i := len(kept); i < len(whole.Messages); i++ {
		whole.Messages[i].ToolCalls = slices.Clone(whole.Messages[i].ToolCalls)
	}
	if rec.SameTools {
		whole.Tools = p.Request.Tools
	} else {
		whole.Tools = slices.Clone(req.Tools)
	}
	s.set(id, tree.Prior{Node: n, Request: whole})
}

// Replayed takes the record rec of call id, found at node n and matched,
// as the last call of its scope.
func (s *Samples) Replayed(j durable.Journal, id string, n tree.Node, rec tree.SampleRecord) {
	p := s.prior(id)
	whole := rec.Request
	switch {
	case rec.Base == 0:
	case rec.Base == p.Node && rec.Kept <= len(p.Request.Messages):
		whole.Messages = append(p.Request.Messages[:rec.Kept], rec.Request.Messages...)
		if rec.SameTools {
			whole.Tools = p.Request.Tools
		}
	default:
		full, err := new(tree.Requests).Whole(n, j.NodeByID)
		if err != nil {
			s.set(id, tree.Prior{}) // the next call is recorded whole
			return
		}
		whole = full.Request
	}
	s.set(id, tree.Prior{Node: n.ID, Request: whole})
}

// sameRequest reports whether req is the request was recorded, rebuilt
// whole against p (or, when p is not its base, against its base as j
// holds it), byte for byte as encoded. The common case costs what the
// record added: the kept messages are compared as values with p's (equal
// values encode alike), and only the new ones are encoded. Anything else
// — a record written whole, or a difference — is settled the slow way, by
// encoding both whole requests, as a record was always compared.
func sameRequest(j durable.Journal, p tree.Prior, was tree.SampleRecord, req llm.Request) bool {
	if was.Base != 0 && was.Base == p.Node && sameAfter(p, was, req) {
		return true
	}
	whole := was.Request
	if was.Base != 0 {
		base := p
		if was.Base != p.Node {
			n, ok := j.NodeByID(was.Base)
			if !ok {
				return false
			}
			rec, err := new(tree.Requests).Whole(n, j.NodeByID)
			if err != nil {
				return false
			}
			base = tree.Prior{Node: n.ID, Request: rec.Request}
		}
		var err error
		if whole, err = base.Whole(was); err != nil {
			return false
		}
	}
	now, then := tree.MustEncode(req), tree.MustEncode(whole)
	return bytes.Equal(now, then) || durable.SameJSON(now, then)
}

// sameAfter reports whether req begins with the messages was keeps of p's
// request, offers p's tools where was says so, and has was's own
// request, encoded, after them.
func sameAfter(p tree.Prior, was tree.SampleRecord, req llm.Request) bool {
	if was.Kept > len(req.Messages) || was.Kept > len(p.Request.Messages) {
		return false
	}
	for i := range was.Kept {
		if !tree.SameMessage(req.Messages[i], p.Request.Messages[i]) {
			return false
		}
	}
	tail := req
	tail.Messages = req.Messages[was.Kept:]
	if was.SameTools {
		if !tree.SameTools(req.Tools, p.Request.Tools) {
			return false
		}
		tail.Tools = nil
	}
	return bytes.Equal(tree.MustEncode(tail), tree.MustEncode(was.Request))
}

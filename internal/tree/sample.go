package tree

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/sweatpants-go/sweatpants/llm"
)

// A model call is recorded as what is new in its request. An agent loop's
// step k+1 sends step k's messages again, and the model's tool calls and
// their results after them: recorded whole, a loop of n steps would store
// O(n²) bytes. So a call is recorded against an earlier one, its base: how
// many of the base's messages it begins with, whether it offers the same
// tools, and the rest as it is. The whole request of any call is rebuilt by
// following bases back to a call recorded whole.

// Prior is a recorded model call as the next call of its scope is recorded
// against: its node and its whole request.
type Prior struct {
	Node    int64
	Request llm.Request
}

// Record returns the record of req, made after p: the messages after those
// it shares with p's request, and its tools unless they are p's. Messages
// are compared as values: a loop hands the same strings again, so the
// comparison costs little however long the loop. A request that shares
// nothing with p, or a zero p, is recorded whole. The record shares req's
// slices: encode it before req can change.
func (p Prior) Record(req llm.Request) SampleRecord {
	if p.Node == 0 {
		return SampleRecord{Request: req}
	}
	kept := 0
	for kept < len(req.Messages) && kept < len(p.Request.Messages) && SameMessage(req.Messages[kept], p.Request.Messages[kept]) {
		kept++
	}
	same := SameTools(req.Tools, p.Request.Tools)
	if kept == 0 && !same {
		return SampleRecord{Request: req}
	}
	rec := SampleRecord{Request: req, Base: p.Node, Kept: kept, SameTools: same}
	rec.Request.Messages = req.Messages[kept:]
	if same {
		rec.Request.Tools = nil
	}
	return rec
}

// Whole returns the whole request of rec, recorded against p (rec.Base is
// p.Node): p's first rec.Kept messages, then rec's own. It shares no
// message slice with p or rec.
func (p Prior) Whole(rec SampleRecord) (llm.Request, error) {
	switch {
	case rec.Base == 0:
		return rec.Request, nil
	case rec.Base != p.Node:
		return llm.Request{}, fmt.Errorf("the record continues node %d, not node %d", rec.Base, p.Node)
	case rec.Kept > len(p.Request.Messages):
		return llm.Request{}, fmt.Errorf("the record keeps %d messages of node %d, which has %d", rec.Kept, rec.Base, len(p.Request.Messages))
	}
	whole := rec.Request
	if rec.Kept > 0 { // else the record's own, as they were: none may be null or []
		whole.Messages = slices.Concat(p.Request.Messages[:rec.Kept], rec.Request.Messages)
	} else {
		whole.Messages = slices.Clone(rec.Request.Messages)
	}
	if rec.SameTools {
		whole.Tools = p.Request.Tools
	}
	return whole, nil
}

// SameMessage reports whether a and b are the same message, as values; no
// tool calls and an empty list of them are the same (neither is encoded).
func SameMessage(a, b llm.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && slices.Equal(a.ToolCalls, b.ToolCalls)
}

// SameTools reports whether a and b offer the same tools, as values.
func SameTools(a, b []llm.ToolSpec) bool {
	return slices.EqualFunc(a, b, func(x, y llm.ToolSpec) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.Parameters, y.Parameters)
	})
}

// Requests rebuilds the whole requests of Sample nodes, and remembers each
// one it rebuilt, so that a reader of many calls (the debug page, the
// inspector) rebuilds each record from its base's once. A loop's calls each
// extend the one before: their messages are built in place, in one array
// they all share (each call's slice capped at its length, so no append
// through one changes another's), so that rebuilding a loop of n steps
// costs O(n), not O(n²). Its zero value is ready to use.
type Requests struct {
	whole map[int64]llm.Request
	// own holds the messages of node last, built by Whole, which a record
	// that keeps all of them extends in place.
	last int64
	own  []llm.Message
}

// Remember notes that node id's whole request is req, rebuilt before.
func (r *Requests) Remember(id int64, req llm.Request) {
	if r.whole == nil {
		r.whole = map[int64]llm.Request{}
	}
	r.whole[id] = req
}

// Whole returns the record of Sample node n with its whole request,
// following bases back through node, a lookup of nodes by id; the record
// says nothing of its base any more. A base that is missing, not an older
// model call, or shorter than the record says is an error that names it.
func (r *Requests) Whole(n Node, node func(int64) (Node, bool)) (SampleRecord, error) {
	rec, err := Decode[SampleRecord](n)
	if err != nil {
		return rec, err
	}
	if rec.Base == 0 {
		return rec, nil
	}
	// The records from n back to one whose base is known, newest first.
	chain, ids := []SampleRecord{rec}, []int64{n.ID}
	var prior Prior
	for cur := rec; ; {
		if whole, ok := r.whole[cur.Base]; ok {
			prior = Prior{Node: cur.Base, Request: whole}
			break
		}
		b, ok := node(cur.Base)
		switch {
		case cur.Base >= ids[len(ids)-1]:
			return rec, fmt.Errorf("node %d (%s): its base, node %d, is not older", ids[len(ids)-1], Sample, cur.Base)
		case !ok:
			return rec, fmt.Errorf("node %d (%s): its base, node %d, is not in the tree", ids[len(ids)-1], Sample, cur.Base)
		case b.Kind != Sample:
			return rec, fmt.Errorf("node %d (%s): its base, node %d, is a %s, not a model call", ids[len(ids)-1], Sample, cur.Base, b.Kind)
		}
		if cur, err = Decode[SampleRecord](b); err != nil {
			return rec, err
		}
		if cur.Base == 0 {
			cur.Request.Messages = slices.Clip(cur.Request.Messages)
			prior = Prior{Node: b.ID, Request: cur.Request}
			r.Remember(b.ID, cur.Request)
			break
		}
		chain, ids = append(chain, cur), append(ids, b.ID)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		var whole llm.Request
		if c := chain[i]; r.last != 0 && prior.Node == r.last && c.Kept == len(r.own) && c.Kept > 0 {
			whole = c.Request
			r.own = append(r.own, c.Request.Messages...)
			whole.Messages = r.own
			if c.SameTools {
				whole.Tools = prior.Request.Tools
			}
		} else if whole, err = prior.Whole(c); err != nil {
			return rec, fmt.Errorf("node %d (%s): %w", ids[i], Sample, err)
		}
		r.last, r.own = ids[i], whole.Messages
		whole.Messages = slices.Clip(whole.Messages)
		r.Remember(ids[i], whole)
		prior = Prior{Node: ids[i], Request: whole}
	}
	rec.Request, rec.Base, rec.Kept, rec.SameTools = prior.Request, 0, 0, false
	return rec, nil
}

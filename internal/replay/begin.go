package replay

import (
	"strconv"

	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// MaxBases is how many calls back a model call's record may continue
// before its chain of bases is started afresh, with a call recorded whole:
// rebuilding a call's request reads its chain, so a chain is kept short
// enough to read at once however long the conversation grows.
const MaxBases = 64

// Before returns what the first model call of the turn whose message is
// node first, on path, continues (Samples.Begin): the newest model call on
// path before first that a turn's own code made (not one made within a
// call, as a tool's or a compaction's are), with its whole request, so that a turn's first call
// records what the turn added to the conversation, not the conversation
// again. It is the zero Prior, and the call is recorded whole, when there
// is no such call or its chain of bases is MaxBases long or more. The
// bases of a call are older nodes of its path, so path is all it reads.
func Before(path tree.Path, first int64) tree.Prior {
	var last tree.Node
	for i := len(path) - 1; i >= 0; i-- {
		if n := path[i]; n.ID < first && n.Kind == tree.Sample && turnsOwn(n.Ref) {
			last = n
			break
		}
	}
	if last.ID == 0 {
		return tree.Prior{}
	}
	n, links := last, 0
	for {
		rec, err := tree.Decode[struct {
			Base int64 `json:"base"`
		}](n)
		if err != nil {
			return tree.Prior{}
		}
		if rec.Base == 0 {
			break
		}
		if links++; links >= MaxBases {
			return tree.Prior{}
		}
		var ok bool
		if n, ok = path.Node(rec.Base); !ok {
			return tree.Prior{}
		}
	}
	rec, err := new(tree.Requests).Whole(last, path.Node)
	if err != nil {
		return tree.Prior{}
	}
	return tree.Prior{Node: last.ID, Request: rec.Request}
}

// turnsOwn reports whether call id was made by a turn's own code: its
// scope is the turn's, a node id ("12-3"), not a call's ("12-3.1").
func turnsOwn(id string) bool {
	_, err := strconv.ParseInt(durable.ScopeOf(id), 10, 64)
	return err == nil
}

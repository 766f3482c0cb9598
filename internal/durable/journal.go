package durable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Journal is what a turn recorded before, indexed for replay: the nodes of
// its calls by call id, and the answers to its questions.
type Journal struct {
	calls     map[string]tree.Node // call id → the node the call recorded
	responses map[string]tree.Node // elicit id → its answer
}

// NewJournal indexes the nodes a turn recorded: the path after its user
// message. A new turn's journal is the zero Journal.
func NewJournal(nodes []tree.Node) Journal {
	j := Journal{calls: map[string]tree.Node{}, responses: map[string]tree.Node{}}
	for _, n := range nodes {
		switch {
		case n.Ref == "":
		case n.Kind == tree.ElicitResponse:
			j.responses[n.Ref] = n
		default:
			j.calls[n.Ref] = n
		}
	}
	return j
}

// OfKind returns the recorded calls of the kinds given, in no order.
func (j Journal) OfKind(kinds ...tree.Kind) []tree.Node {
	var out []tree.Node
	for _, n := range j.calls {
		if slices.Contains(kinds, n.Kind) {
			out = append(out, n)
		}
	}
	return out
}

// Len is how many calls the journal holds.
func (j Journal) Len() int { return len(j.calls) }

// Node returns the node call id recorded, if the journal holds it.
func (j Journal) Node(id string) (tree.Node, bool) {
	n, ok := j.calls[id]
	return n, ok
}

// Response returns the recorded answer to the question asked by call eid.
func (j Journal) Response(eid string) (tree.Node, bool) {
	n, ok := j.responses[eid]
	return n, ok
}

// Unanswered returns the questions the journal holds no answer to, by call
// id: the ones a resumed turn waits on again.
func (j Journal) Unanswered() map[string]tree.Node {
	out := map[string]tree.Node{}
	for id, n := range j.calls {
		if _, answered := j.responses[id]; n.Kind == tree.ElicitRequest && !answered {
			out[id] = n
		}
	}
	return out
}

// Call is a primitive call as the turn's code makes it now, to be compared
// with what the journal recorded at its position. R is the payload record
// of Kind.
type Call[R any] struct {
	ID   string
	Kind tree.Kind
	// Made words the call for a NonDeterminismError.
	Made string
	// Same reports whether the record found at the call's position is this
	// call's; nil accepts any record of Kind.
	Same func(recorded R) bool
}

// Lookup finds call c in j. It returns the node the call recorded and its
// record when the call was made before, or ok false when it is new. A
// recorded call of another kind, or one Same refuses, is a
// NonDeterminismError.
func Lookup[R any](j Journal, c Call[R]) (n tree.Node, rec R, ok bool, err error) {
	n, ok = j.calls[c.ID]
	if !ok {
		return tree.Node{}, rec, false, nil
	}
	if n.Kind != c.Kind {
		return n, rec, true, diverged(n, c.ID, c.Made)
	}
	if rec, err = tree.Decode[R](n); err != nil {
		return n, rec, true, fmt.Errorf("replay call %s: %w", c.ID, err)
	}
	if c.Same != nil && !c.Same(rec) {
		return n, rec, true, diverged(n, c.ID, c.Made)
	}
	return n, rec, true, nil
}

// Step answers a primitive call the one way every call is answered: look it
// up, compare it with the record, and replay the record or run the call and
// record what it did. run returns the record to keep; an error from run
// means the call did not finish, and nothing is recorded. record writes the
// record. Either way the caller gets the record, and builds the call's
// result from it, so that a replayed call returns what the first run did.
func Step[R any](j Journal, c Call[R], run func() (R, error), record func(R) error) (R, error) {
	_, rec, replayed, err := Lookup(j, c)
	if err != nil || replayed {
		return rec, err
	}
	if rec, err = run(); err != nil {
		return rec, err
	}
	return rec, record(rec)
}

// Value returns the value named name that the turn reads through the
// runtime (the time, a random number): the recorded one when the call is
// replayed, else a fresh one, recorded through record.
func Value[T any](j Journal, id, name string, fresh func() T, record func(tree.ValueRecord) error) (T, error) {
	var v T
	ran := false
	rec, err := Step(j, ValueCall(id, name),
		func() (tree.ValueRecord, error) {
			v, ran = fresh(), true
			raw, err := json.Marshal(v)
			if err != nil {
				return tree.ValueRecord{}, fmt.Errorf("record %s: %w", name, err)
			}
			return tree.ValueRecord{Name: name, Value: raw}, nil
		}, record)
	if err != nil || ran {
		return v, err
	}
	err = json.Unmarshal(rec.Value, &v)
	return v, err
}

// ValueCall is the call of a value named name (the time, a random number)
// read as call id.
func ValueCall(id, name string) Call[tree.ValueRecord] {
	return Call[tree.ValueRecord]{ID: id, Kind: tree.Value, Made: "value " + name, Same: func(was tree.ValueRecord) bool { return was.Name == name }}
}

// NonDeterminismError is a replay that went another way than the record: the
// turn's code, run again, made a different call at the same position. The
// turn cannot go on, since its record no longer describes what the code does.
type NonDeterminismError struct {
	Call     string // the call's id
	Recorded string // what the record holds there
	Made     string // what the code made instead
}

// EndsTurn says that the turn cannot go on: a tool that meets this error
// does not hand it to the model as its result.
func (e *NonDeterminismError) EndsTurn() bool { return true }

func (e *NonDeterminismError) Error() string {
	return fmt.Sprintf("replay diverged at call %s: the record has %s, but the code now makes %s", e.Call, e.Recorded, e.Made)
}

// diverged is the error of a call made where the record has node n.
func diverged(n tree.Node, call, made string) error {
	return &NonDeterminismError{Call: call, Recorded: describe(n), Made: made}
}

// describe words a recorded call for a NonDeterminismError, the way the
// primitives word the calls they make.
func describe(n tree.Node) string {
	switch n.Kind {
	case tree.ElicitRequest:
		req, _ := tree.Decode[elicit.Request](n)
		return DescribeElicit(req)
	case tree.Notify:
		p, _ := tree.Decode[struct{ Message string }](n)
		return DescribeNotify(p.Message)
	case tree.ToolCall:
		c, _ := tree.Decode[tree.ToolRecord](n)
		return DescribeTool(c.Agent, c.Tool)
	case tree.Sample:
		return "a model call"
	case tree.SampleRetry:
		return "a refused model answer"
	case tree.Summary:
		return "a compaction"
	case tree.Fork:
		f, _ := tree.Decode[tree.ForkRecord](n)
		return fmt.Sprintf("trying %q", f.Label)
	case tree.ForkEnd:
		f, _ := tree.Decode[tree.ForkEndRecord](n)
		if f.Forward {
			return fmt.Sprintf("keeping what trying %q did", f.Label)
		}
		return fmt.Sprintf("going back from trying %q", f.Label)
	case tree.Value:
		v, _ := tree.Decode[tree.ValueRecord](n)
		if v.Name == VersionName {
			return fmt.Sprintf("version %s of %q", v.Value, v.Change)
		}
		return "value " + v.Name
	default:
		return string(n.Kind)
	}
}

// DescribeElicit words a question for a NonDeterminismError. Every question
// a turn asks is worded so, replayed or not, and strconv.Quote words it as
// %q would, at a fraction of fmt's cost.
func DescribeElicit(req elicit.Request) string {
	return "elicit " + req.Kind + " " + strconv.Quote(req.Message)
}

// DescribeNotify words a progress report for a NonDeterminismError.
func DescribeNotify(message string) string { return fmt.Sprintf("notify %q", message) }

// DescribeTool words a tool call for a NonDeterminismError.
func DescribeTool(agent, tool string) string { return fmt.Sprintf("tool %s/%s", agent, tool) }

// SameJSON reports whether a and b encode the same value, whatever their
// spacing and key order.
func SameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ea, _ := json.Marshal(va)
	eb, _ := json.Marshal(vb)
	return bytes.Equal(ea, eb)
}

// NodeByID returns the call node id of the journal, if it holds it. It
// looks at every call: it is for the rare lookup (a record whose base a
// replay did not meet on its way), not for each call.
func (j Journal) NodeByID(id int64) (tree.Node, bool) {
	for _, n := range j.calls {
		if n.ID == id {
			return n, true
		}
	}
	return tree.Node{}, false
}

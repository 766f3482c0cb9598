package inspector

import (
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// MethodCall is a method's call (package protocol), or its answer, as the
// inspector says it: the question as the call it makes, the answer as how
// the call ended with its result, and the progress recorded with the
// answer (package words).
type MethodCall struct {
	// Words are "get-spot(accuracy high)" for the question, "get-spot →
	// done (lat 38.72, lng -9.14)" for its answer.
	Words string
	// Progress is each report recorded with the answer, in words, in the
	// order reported; none for the question.
	Progress []string
}

// methodCalls puts into in the words of the method calls among its nodes
// and of their answers. An answer's question is found in x, drawn or not.
func methodCalls(x *tree.Index, in *Inspection) {
	for id, n := range in.Nodes {
		switch n.Kind {
		case tree.ElicitRequest:
			if req, err := tree.Decode[elicit.Request](n); err == nil && words.IsCall(req) {
				in.call(id, MethodCall{Words: words.Invoked(req)})
			}
		case tree.ElicitResponse:
			req, ok := askedBy(x, n)
			if !ok || !words.IsCall(req) {
				continue
			}
			if resp, err := tree.Decode[elicit.Response](n); err == nil {
				in.call(id, MethodCall{Words: words.Called(req, resp), Progress: words.ProgressOf(resp.Progress)})
			}
		}
	}
}

// call keeps c as node id's call.
func (in *Inspection) call(id int64, c MethodCall) {
	if in.Calls == nil {
		in.Calls = map[int64]MethodCall{}
	}
	in.Calls[id] = c
}

// askedBy returns the question answer n answers, recorded under its ref.
func askedBy(x *tree.Index, n tree.Node) (elicit.Request, bool) {
	for _, id := range x.WithRef(n.Ref) {
		if q, ok := x.Node(id); ok && q.Kind == tree.ElicitRequest {
			req, err := tree.Decode[elicit.Request](q)
			return req, err == nil
		}
	}
	return elicit.Request{}, false
}

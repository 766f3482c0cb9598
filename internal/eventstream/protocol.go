package eventstream

import (
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// Method calls. A method a frontend implements (package protocol: the
// device's location, a photo, a signature) is called as a question whose
// request declares a progress schema, so it is announced as any question
// is (elicit.asked, elicit.answered), for the clients that answer every
// question alike, and then as the call it is: protocol.invoked with the
// question, and with the answer the progress the implementation reported
// (recorded with the answer, one protocol.progress each) and the call's
// protocol.result. All name the same elicit, answered the same way.

// The method call event types.
const (
	EventProtocolInvoked  = "protocol.invoked"  // ProtocolInvoked: a method was called
	EventProtocolProgress = "protocol.progress" // ProtocolProgress: its implementation reported progress
	EventProtocolResult   = "protocol.result"   // ProtocolResult: the call ended
)

// ProtocolInvoked is the data of protocol.invoked: the method called and
// its arguments, as JSON. Call is the elicit the outcome is posted to
// (POST /c/:id/elicits/:eid) and progress too (POST
// /c/:id/elicits/:eid/progress).
type ProtocolInvoked struct {
	Recorded
	Call   string          `json:"call"`
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// ProtocolProgress is the data of protocol.progress: a step the
// implementation reported while it worked, as the server took it: its
// stage, its words and its typed data (which passed the method's progress
// schema). A call's progress comes with its answer, in the order reported,
// just before its protocol.result: the progress heard while the call
// waits is shown on the pages, and is an event once it is recorded.
type ProtocolProgress struct {
	Recorded
	Call    string          `json:"call"`
	Stage   string          `json:"stage,omitempty"`
	Message string          `json:"message,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ProtocolResult is the data of protocol.result: how the call ended, as
// the method's caller is told (protocol.Status: done, declined, cancelled,
// denied or unsupported), and, when done, its result, which passed the
// method's result schema. A call the user stopped the turn on gets no
// protocol.result: its run's run.completed ends it.
type ProtocolResult struct {
	Recorded
	Call   string          `json:"call"`
	Status string          `json:"status"`
	Result json.RawMessage `json:"result,omitempty"`
}

// invoked returns the protocol.invoked of question r, recorded as rec,
// when r calls a method.
func invoked(rec Recorded, r elicit.Request) (ProtocolInvoked, bool) {
	if r.Progress == nil {
		return ProtocolInvoked{}, false
	}
	return ProtocolInvoked{Recorded: rec, Call: r.ID, Method: r.Kind, Args: r.Input}, true
}

// callEnded returns the events of answer r to call eid, recorded as rec:
// a protocol.progress for each report recorded with it, then the
// protocol.result.
func callEnded(rec Recorded, eid string, r elicit.Response) []Event {
	evs := make([]Event, 0, len(r.Progress)+1)
	for _, p := range r.Progress {
		evs = append(evs, Event{Type: EventProtocolProgress, Data: ProtocolProgress{Recorded: rec, Call: eid, Stage: p.Stage, Message: p.Message, Data: p.Data}})
	}
	res := ProtocolResult{Recorded: rec, Call: eid, Status: words.Status(r.Action)}
	if r.Action == elicit.Accept {
		res.Result = r.Content
	}
	return append(evs, Event{Type: EventProtocolResult, Data: res})
}

// callsMethod reports whether question n calls a method: its request
// declares a progress schema.
func callsMethod(n tree.Node) bool {
	var r struct {
		Progress json.RawMessage `json:"progress"`
	}
	return n.Kind == tree.ElicitRequest && json.Unmarshal(n.Payload, &r) == nil && len(r.Progress) > 0 && string(r.Progress) != "null"
}

// answersMethod reports whether answer n answers a method's call: its
// question, recorded under the same ref, calls one.
func answersMethod(x *tree.Index, n tree.Node) bool {
	for _, id := range x.WithRef(n.Ref) {
		if q, ok := x.Node(id); ok && q.Kind == tree.ElicitRequest {
			return callsMethod(q)
		}
	}
	return false
}

// progressCount is how many progress reports answer n recorded.
func progressCount(n tree.Node) int {
	var r struct {
		Progress []json.RawMessage `json:"progress"`
	}
	json.Unmarshal(n.Payload, &r)
	return len(r.Progress)
}

package eventstream

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// feed turns a conversation's nodes into events for one client.
type runs struct {
	pos     position             // where the client is
	held    heldDraft            // what the client holds of the streaming reply
	sides   map[int64]*heldDraft // and of each side question's, by its node
	pending []tree.Node          // recorded and not yet turned into events, in id order
	rescan  bool                 // pending was dropped: read the record after pos again
	runs    map[int64]runInfo
}

// newFeed starts a feed for a client at position from.
func newRuns(from position) *runs {
	f := &runs{pos: from, runs: map[int64]runInfo{}, sides: map[int64]*heldDraft{}}
	f.held.resumed(from)
	for _, sp := range from.sides {
		d := &heldDraft{}
		d.resumed(position{held: sp.held, sum: sp.sum})
		f.sides[sp.run] = d
	}
	return f
}

// runInfo is the run a node belongs to.
type runInfo struct {
	run   int64
	aside bool
	// flow is, for a side run, the flow's run it was asked beside: the run
	// that a thread continued as the flow ends (tree.Index.Continues).
	flow int64
}

// id is the position as an event id.
func (f *runs) id() string {
	p := f.pos
	p.held, p.sum = f.held.n, f.held.sum
	for _, run := range slices.Sorted(maps.Keys(f.sides)) {
		if d := f.sides[run]; d.n > 0 {
			p.sides = append(p.sides, sideHeld{run: run, held: d.n, sum: d.sum})
		}
	}
	return p.String()
}

// side returns what the client holds of side question run's reply.
func (f *runs) side(run int64) *heldDraft {
	d := f.sides[run]
	if d == nil {
		d = &heldDraft{known: true}
		f.sides[run] = d
	}
	return d
}

// eventsOf appends n's events to evs and moves the position past them.
func (f *runs) eventsOf(x *tree.Index, n tree.Node, evs []Event) []Event {
	skip := 0
	if n.ID == f.pos.node && f.pos.part > 0 {
		skip = f.pos.part // the client has these of n's events
	}
	ri := f.runOf(x, n)
	rec := Recorded{Run: ri.run, Aside: ri.aside, Node: n.ID, At: n.At}
	var data []Event // n's events, their ids set below
	switch n.Kind {
	case tree.UserMessage, tree.SideQuestion:
		m, _ := tree.Decode[tree.Message](n)
		if !ri.aside {
			f.held.reset() // a run's reply starts empty
		} else {
			delete(f.sides, ri.run)
		}
		started := RunStarted{Recorded: rec, Parent: n.Parent, Text: m.Text, Call: m.Call}
		for _, a := range m.Attachments {
			started.Files = append(started.Files, File{Attachment: a, URL: files.URL(a.ID)})
		}
		data = append(data, Event{Type: EventRunStarted, Data: started})
	case tree.ToolCall:
		r, _ := tree.Decode[tree.ToolRecord](n)
		data = append(data,
			Event{Type: EventToolCall, Data: ToolCall{Recorded: rec, Call: n.Ref, Agent: r.Agent, Tool: r.Tool, Input: r.Input, Digest: r.Digest}},
			Event{Type: EventToolResult, Data: ToolResult{Recorded: rec, Call: n.Ref, Agent: r.Agent, Tool: r.Tool, Output: r.Output, Error: r.Error,
				Decision: r.Decision, DecidedBy: r.DecidedBy, Rule: r.Rule, Outcome: r.Outcome, Duration: r.Duration}})
	case tree.ElicitRequest:
		r, _ := tree.Decode[elicit.Request](n)
		data = append(data, Event{Type: EventElicitAsked, Data: ElicitAsked{Recorded: rec, Elicit: n.Ref, Request: r}})
		if a, ok := approvalRequired(rec, r); ok {
			data = append(data, Event{Type: EventApprovalRequired, Data: a})
		}
		if c, ok := invoked(rec, r); ok {
			data = append(data, Event{Type: EventProtocolInvoked, Data: c})
		}
	case tree.ElicitResponse:
		if ri.aside {
			// A side turn's reply goes on afresh after an answer, the answer
			// of a new version of its turn included (chat.Service.ChangeAnswer).
			delete(f.sides, ri.run)
		}
		r, _ := tree.Decode[elicit.Response](n)
		answered := ElicitAnswered{Recorded: rec, Elicit: n.Ref, Response: r}
		var f elicit.File
		if r.Action == elicit.Accept && askedKind(x, n) == elicit.AskFile.Name && json.Unmarshal(r.Content, &f) == nil && f.ID != "" {
			answered.Files = []File{{Attachment: tree.Attachment{ID: f.ID, Name: f.Name, Type: f.Type, Size: f.Size}, URL: files.URL(f.ID)}}
		}
		data = append(data, Event{Type: EventElicitAnswered, Data: answered})
		if answersApproval(x, n) {
			data = append(data, Event{Type: EventApprovalResolved, Data: approvalResolved(rec, n.Ref, r)})
		}
		if answersMethod(x, n) {
			data = append(data, callEnded(rec, n.Ref, r)...)
		}
	case tree.Notify:
		p, _ := tree.Decode[middleware.Progress](n)
		data = append(data, Event{Type: EventProgress, Data: ProgressEvent{Recorded: rec, Agent: n.Agent, Progress: p}})
	case tree.Log:
		r, _ := tree.Decode[tree.LogRecord](n)
		data = append(data, Event{Type: EventLog, Data: LogLine{Recorded: rec, Agent: n.Agent, LogRecord: r}})
	case tree.Fork:
		r, _ := tree.Decode[tree.ForkRecord](n)
		data = append(data, Event{Type: EventForkTried, Data: ForkTried{Recorded: rec, Call: n.Ref, Agent: n.Agent, Label: r.Label}})
	case tree.ForkEnd:
		data = append(data, Event{Type: EventForkEnded, Data: forkEnded(x, rec, n)})
	case tree.Feedback:
		data = append(data, feedbackGiven(rec, n))
	case tree.AssistantMessage, tree.SideReply, tree.Stopped, tree.TurnError:
		if n.Kind == tree.Stopped && closesTry(x, n) {
			// The stop that closed a tried branch gone back from ends no
			// run: the run goes on beside the fork, as the fork.ended
			// after it says, and its reply has yet to come.
			break
		}
		m, _ := tree.Decode[tree.Message](n)
		done := RunCompleted{Recorded: rec, Status: tree.Ended(n.Kind, m), Text: m.Text, Partial: m.Partial, Details: m.Details, Usage: usageOf(x, n, ri.run), Outcome: m.Outcome}
		held := &f.held
		if ri.aside {
			held = f.side(ri.run)
		}
		if done.Status == tree.OutcomeReplied {
			// The client holds the reply exactly before it is told the
			// run is done: the rest of what streamed, or the whole reply
			// when what streamed is not how it begins. The delta's
			// position is the one before this node, with the reply held.
			if off, text, ok := held.take(ri.run, m.Text); ok {
				evs = append(evs, Event{ID: f.id(), Type: EventTokenDelta, Data: TokenDelta{Run: ri.run, Aside: ri.aside, Offset: off, Text: text}})
			}
		}
		if ri.aside {
			delete(f.sides, ri.run)
		} else {
			f.held.reset()
		}
		data = append(data, Event{Type: EventRunCompleted, Data: done})
	}
	// Sample, Value, Summary and SampleRetry nodes give no event of their
	// own; they move the position all the same.
	for i, e := range data {
		if i < skip {
			continue
		}
		f.pos = position{node: n.ID}
		if i+1 < len(data) {
			f.pos.part = i + 1
		}
		e.ID = f.id()
		evs = append(evs, e)
	}
	f.pos = position{node: n.ID}
	return evs
}

// runOf returns the run n belongs to: the user message or side question
// nearest above it (n itself if it is one), and whether that run answers
// a side question. What it finds is kept for the nodes below.
func (f *runs) runOf(x *tree.Index, n tree.Node) runInfo {
	// What is climbed is kept small: a stream that starts deep in a long
	// conversation climbs the whole branch once.
	type step struct {
		id   int64
		kind tree.Kind
	}
	var climbed []step
	var top runInfo
	for {
		if ri, ok := f.runs[n.ID]; ok {
			top = ri
			break
		}
		climbed = append(climbed, step{n.ID, n.Kind})
		p, ok := x.Node(n.Parent)
		if !ok {
			break // a root, or a parent collected: no run above
		}
		n = p
	}
	for i := len(climbed) - 1; i >= 0; i-- {
		n := climbed[i]
		switch {
		case n.kind == tree.SideQuestion:
			flow := top.run
			if top.aside {
				flow = top.flow
			}
			top = runInfo{run: n.id, aside: true, flow: flow}
		case n.kind == tree.UserMessage:
			top = runInfo{run: n.id, aside: top.aside, flow: top.flow}
		case x.Continues(n.id):
			top = runInfo{run: top.flow}
		}
		// Only the node asked about and the nodes that start or end a run
		// are kept: the nodes below find them in a step or two, and a
		// stream opened at a run of a long conversation (OpenRun, OpenNew)
		// climbs to the root once without keeping every node on the way.
		if i == 0 || n.kind == tree.SideQuestion || n.kind == tree.UserMessage || n.kind == tree.Stopped {
			f.runs[n.id] = top
		}
	}
	return top
}

// usageOf sums the model calls of run up to its end, the node end: those
// on the way from end up to the run's message.
func usageOf(x *tree.Index, end tree.Node, run int64) Usage {
	var u Usage
	for n, ok := end, true; ok && n.ID != run; n, ok = x.Node(n.Parent) {
		if n.Kind != tree.Sample {
			continue
		}
		// Only the response is read: the request, the conversation so far,
		// is most of a record and is not needed here.
		var rec struct {
			Response *struct {
				Usage llm.Usage `json:"usage"`
			} `json:"response"`
		}
		if json.Unmarshal(n.Payload, &rec) != nil {
			continue
		}
		u.ModelCalls++
		if rec.Response != nil {
			u.TokensIn += rec.Response.Usage.PromptTokens
			u.TokensOut += rec.Response.Usage.CompletionTokens
		}
	}
	return u
}

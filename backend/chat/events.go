package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"hash"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// The event stream. A client that is not the page (a script, another
// service, a terminal) follows a conversation as typed events instead of
// rendered patches: a run started, the reply's text as it streams, a tool
// called and what it returned, a question asked and answered, the run
// completed.
//
// Every event but the reply's text derives from a node of the record, so
// the stream is the record read in id order, and a client that reconnects
// is sent the record from where it left off. The reply's text as it streams
// is not recorded; its events carry where it goes in the reply (a byte
// offset), so a client that applies them there holds the reply's text
// exactly, whatever it missed or was sent again after a restart.
//
// An event's id is the stream's position after it, in full: the newest
// node whose events were all sent (or how many of that node's events were,
// for the node of a tool call, which gives two), and how much of the
// streaming reply the client holds, with a hash of those bytes. Resuming
// from an id therefore needs nothing remembered on the server, skips
// nothing and repeats nothing: the nodes after it are read from the record
// and the reply's text goes on from the bytes the client holds, once the
// hash shows they are the bytes the server has (after a restart the reply
// may have been asked of the model again, and come out differently).

// The event types.
const (
	EventRunStarted     = "run.started"     // RunStarted: a user message started a run (or a side question, Aside)
	EventTokenDelta     = "token.delta"     // TokenDelta: the reply's text as it streams
	EventToolCall       = "tool.call"       // ToolCall: a tool was called
	EventToolResult     = "tool.result"     // ToolResult: what it returned
	EventElicitAsked    = "elicit.asked"    // ElicitAsked: the agent asks the user
	EventElicitAnswered = "elicit.answered" // ElicitAnswered: the answer was recorded
	EventProgress       = "progress"        // ProgressEvent: the agent reported progress
	EventRunCompleted   = "run.completed"   // RunCompleted: the run ended: replied, stopped or failed
)

// How a run completed.
const (
	RunReplied = "replied"
	RunStopped = "stopped"
	RunFailed  = "failed"
)

// Event is one event of a conversation's event stream. Data is one of the
// event types' records; its JSON is what a client reads.
type Event struct {
	// ID is the stream's position after this event: send it back as
	// Last-Event-ID to resume right after it.
	ID   string
	Type string
	Data any
}

// Recorded is what every event derived from a node says: the run it
// belongs to (the id of the message that started it), whether that run
// answers a side question, the node and when it was recorded.
type Recorded struct {
	Run   int64     `json:"run"`
	Aside bool      `json:"aside,omitempty"`
	Node  int64     `json:"node"`
	At    time.Time `json:"at"`
}

// RunStarted is the data of run.started: the message that started it.
type RunStarted struct {
	Recorded
	Text string `json:"text"`
}

// TokenDelta is the data of token.delta: the reply of run Run from byte
// Offset on is Text. Deltas follow one another (each Offset the length of
// the text before it), so their texts joined are the reply; a delta at
// Offset 0 after others starts the reply over, when the text streamed so
// far is not how the reply begins (a model call that went on to call
// tools, a reply the agent wrote itself).
//
// A side question's reply streams too, beside the flow's: its deltas carry
// Aside, and Run is the side question's node.
type TokenDelta struct {
	Run    int64  `json:"run"`
	Aside  bool   `json:"aside,omitempty"`
	Offset int    `json:"offset"`
	Text   string `json:"text"`
}

// ToolCall is the data of tool.call. Call is its id within the turn.
type ToolCall struct {
	Recorded
	Call  string          `json:"call"`
	Agent string          `json:"agent"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// ToolResult is the data of tool.result: the tool's output, or its error.
type ToolResult struct {
	Recorded
	Call   string          `json:"call"`
	Agent  string          `json:"agent"`
	Tool   string          `json:"tool"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// ElicitAsked is the data of elicit.asked. Elicit is the id an answer is
// posted to (POST /c/:id/elicits/:eid).
type ElicitAsked struct {
	Recorded
	Elicit  string         `json:"elicit"`
	Request elicit.Request `json:"request"`
}

// ElicitAnswered is the data of elicit.answered.
type ElicitAnswered struct {
	Recorded
	Elicit   string          `json:"elicit"`
	Response elicit.Response `json:"response"`
}

// ProgressEvent is the data of progress.
type ProgressEvent struct {
	Recorded
	Agent string `json:"agent,omitempty"`
	runtime.Progress
}

// RunCompleted is the data of run.completed: how the run ended (RunReplied,
// RunStopped or RunFailed), its reply or what the user was told, and the
// tokens its model calls used. A stopped run's Partial is what had
// streamed of its reply when it stopped, a failed run's what had streamed
// before its reply broke off (kept for the user, never given to the model).
type RunCompleted struct {
	Recorded
	Status  string `json:"status"`
	Text    string `json:"text"`
	Partial string `json:"partial,omitempty"`
	Details string `json:"details,omitempty"`
	Usage   Usage  `json:"usage"`
}

// Usage sums the model calls of a run.
type Usage struct {
	TokensIn   int `json:"tokens_in"`
	TokensOut  int `json:"tokens_out"`
	ModelCalls int `json:"model_calls"`
}

// EventStream follows a conversation's events for one client.
type EventStream struct {
	sub  *Subscription
	feed *eventFeed
}

// Events opens the event stream of a conversation the session owns. It
// starts after the event lastID names (the id of the last event the client
// received, its Last-Event-ID), or from the first event when lastID is "".
// Errors: NotFound; Invalid for a lastID that is not an id this stream
// gives, or one the conversation has not reached.
func (s *Service) Events(ctx context.Context, session, id, lastID string) (*EventStream, error) {
	from, err := parsePosition(lastID)
	if err != nil {
		return nil, err
	}
	c, err := s.acquire(ctx, session, id)
	if err != nil {
		return nil, err
	}
	// Under c.mu nothing is recorded, so the backlog read from the record
	// and the nodes handed to the feed from now on meet with no gap and no
	// overlap: nothing to tell apart by id afterwards.
	c.mu.Lock() // not lock(): a held answer shows once it is written
	if err := from.check(c.idx, lastID); err != nil {
		c.mu.Unlock()
		s.release(c)
		return nil, err
	}
	f := &eventFeed{pos: from, runs: map[int64]runInfo{}, pending: after(c.idx, from), sides: map[int64]*heldDraft{}}
	f.held.resumed(from)
	for _, sp := range from.sides {
		d := &heldDraft{}
		d.resumed(position{held: sp.held, sum: sp.sum})
		f.sides[sp.run] = d
	}
	sub := &Subscription{conv: c, ready: make(chan struct{}, 1), events: f}
	c.subs[sub] = struct{}{}
	c.mu.Unlock()
	return &EventStream{sub: sub, feed: f}, nil
}

// Close ends the stream.
func (es *EventStream) Close() { es.sub.Close() }

// Next waits for events and returns them in order.
func (es *EventStream) Next(ctx context.Context) ([]Event, error) {
	for {
		evs, more := es.take()
		if len(evs) > 0 {
			return evs, nil
		}
		if more {
			continue
		}
		select {
		case <-es.sub.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// maxBatch bounds the nodes turned into events under the conversation's
// lock at a time, so that a client reading a long record from the start
// does not keep the turn waiting.
const maxBatch = 256

// maxPending bounds the nodes a feed keeps for a client that does not
// read; past it, the feed forgets them and reads the record again when the
// client catches up.
const maxPending = 4096

// take returns the events there are now, and whether more are waiting.
func (es *EventStream) take() (evs []Event, more bool) {
	c, f := es.sub.conv, es.feed
	c.mu.Lock()
	defer c.mu.Unlock()
	es.sub.resync = false // a page's re-render; the feed reads what it needs itself
	if f.rescan {
		f.rescan, f.pending = false, after(c.idx, f.pos)
	}
	n := min(len(f.pending), maxBatch)
	for _, node := range f.pending[:n] {
		evs = f.eventsOf(c.idx, node, evs)
	}
	f.pending = f.pending[n:]
	if len(f.pending) > 0 {
		return evs, true
	}
	f.pending = nil
	// The reply streaming now follows every node recorded.
	if t := c.current; t != nil && c.status.Draft != "" {
		if off, text, ok := f.held.take(t.id, c.status.Draft); ok {
			evs = append(evs, Event{ID: f.id(), Type: EventTokenDelta, Data: TokenDelta{Run: t.id, Offset: off, Text: text}})
		}
	}
	// So do the side questions' replies, in the order they were asked.
	for _, id := range slices.Sorted(maps.Keys(c.sides)) {
		if draft := c.sides[id].side.draft; draft != "" {
			if off, text, ok := f.side(id).take(id, draft); ok {
				evs = append(evs, Event{ID: f.id(), Type: EventTokenDelta, Data: TokenDelta{Run: id, Aside: true, Offset: off, Text: text}})
			}
		}
	}
	return evs, false
}

// feedEventsLocked hands n, just recorded, to the conversation's event
// streams; c.mu is held.
func (c *conversation) feedEventsLocked(n tree.Node) {
	for sub := range c.subs {
		f := sub.events
		if f == nil {
			continue
		}
		if f.rescan {
			// reads the record when the client catches up
		} else if len(f.pending) >= maxPending {
			f.pending, f.rescan = nil, true
		} else {
			f.pending = append(f.pending, n)
		}
		select {
		case sub.ready <- struct{}{}:
		default:
		}
	}
}

// after returns the nodes of x from position p on, in id order: those
// after p's node, and p's node itself when only part of its events were
// sent.
func after(x *tree.Index, p position) []tree.Node {
	var out []tree.Node
	for id, n := range x.Nodes() {
		if id > p.node || id == p.node && p.part > 0 {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b tree.Node) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// eventFeed turns a conversation's nodes into events for one client; it is
// guarded by the conversation's mu.
type eventFeed struct {
	pos     position             // where the client is
	held    heldDraft            // what the client holds of the streaming reply
	sides   map[int64]*heldDraft // and of each side question's, by its node
	pending []tree.Node          // recorded and not yet turned into events, in id order
	rescan  bool                 // pending was dropped: read the record after pos again
	runs    map[int64]runInfo
}

// runInfo is the run a node belongs to.
type runInfo struct {
	run   int64
	aside bool
}

// id is the position as an event id.
func (f *eventFeed) id() string {
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
func (f *eventFeed) side(run int64) *heldDraft {
	d := f.sides[run]
	if d == nil {
		d = &heldDraft{known: true}
		f.sides[run] = d
	}
	return d
}

// eventsOf appends n's events to evs and moves the position past them.
func (f *eventFeed) eventsOf(x *tree.Index, n tree.Node, evs []Event) []Event {
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
		data = append(data, Event{Type: EventRunStarted, Data: RunStarted{Recorded: rec, Text: m.Text}})
	case tree.ToolCall:
		r, _ := tree.Decode[tree.ToolRecord](n)
		data = append(data,
			Event{Type: EventToolCall, Data: ToolCall{Recorded: rec, Call: n.Ref, Agent: r.Agent, Tool: r.Tool, Input: r.Input}},
			Event{Type: EventToolResult, Data: ToolResult{Recorded: rec, Call: n.Ref, Agent: r.Agent, Tool: r.Tool, Output: r.Output, Error: r.Error}})
	case tree.ElicitRequest:
		r, _ := tree.Decode[elicit.Request](n)
		data = append(data, Event{Type: EventElicitAsked, Data: ElicitAsked{Recorded: rec, Elicit: n.Ref, Request: r}})
	case tree.ElicitResponse:
		if ri.aside {
			// A side turn's reply goes on afresh after an answer, the answer
			// of a new version of its turn included (sidechange.go).
			delete(f.sides, ri.run)
		}
		r, _ := tree.Decode[elicit.Response](n)
		data = append(data, Event{Type: EventElicitAnswered, Data: ElicitAnswered{Recorded: rec, Elicit: n.Ref, Response: r}})
	case tree.Notify:
		p, _ := tree.Decode[runtime.Progress](n)
		data = append(data, Event{Type: EventProgress, Data: ProgressEvent{Recorded: rec, Agent: n.Agent, Progress: p}})
	case tree.AssistantMessage, tree.SideReply, tree.Stopped, tree.TurnError:
		m, _ := tree.Decode[tree.Message](n)
		done := RunCompleted{Recorded: rec, Status: RunReplied, Text: m.Text, Partial: m.Partial, Details: m.Details, Usage: usageOf(x, n, ri.run)}
		switch n.Kind {
		case tree.Stopped:
			done.Status = RunStopped
		case tree.TurnError:
			done.Status = RunFailed
		}
		held := &f.held
		if ri.aside {
			held = f.side(ri.run)
		}
		if done.Status == RunReplied {
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
func (f *eventFeed) runOf(x *tree.Index, n tree.Node) runInfo {
	var climbed []tree.Node
	var top runInfo
	for {
		if ri, ok := f.runs[n.ID]; ok {
			top = ri
			break
		}
		climbed = append(climbed, n)
		p, ok := x.Node(n.Parent)
		if !ok {
			break // a root, or a parent collected: no run above
		}
		n = p
	}
	for i := len(climbed) - 1; i >= 0; i-- {
		switch n := climbed[i]; n.Kind {
		case tree.SideQuestion:
			top = runInfo{run: n.ID, aside: true}
		case tree.UserMessage:
			top = runInfo{run: n.ID, aside: top.aside}
		}
		f.runs[climbed[i].ID] = top
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

// heldDraft is what a client holds of the reply streaming: the first n
// bytes of run's reply, whose hash is sum. The bytes themselves are known
// unless the client resumed from an id, which carries only n and sum;
// they are known again once a text whose first n bytes have that hash
// shows what they were.
type heldDraft struct {
	run   int64
	n     int
	sum   uint64
	text  string
	known bool
	h     hash.Hash64 // over run and text, when known; nil until needed
}

// resumed sets what a client resuming from p holds.
func (d *heldDraft) resumed(p position) {
	*d = heldDraft{n: p.held, sum: p.sum, known: p.held == 0}
}

func (d *heldDraft) reset() { *d = heldDraft{known: true} }

// begins reports whether the client's bytes are how text, run's reply,
// begins.
func (d *heldDraft) begins(run int64, text string) bool {
	switch {
	case d.n == 0:
		return true
	case len(text) < d.n:
		return false
	case d.known:
		return d.run == run && text[:d.n] == d.text
	}
	return draftSum(run, text[:d.n]) == d.sum
}

// take brings the client to hold text, run's reply: it returns the delta
// that does it, and false when the client holds text already.
func (d *heldDraft) take(run int64, text string) (offset int, delta string, ok bool) {
	if d.begins(run, text) {
		if d.n == len(text) {
			d.run, d.text, d.known = run, text, true
			return 0, "", false
		}
		if !d.known || d.h == nil {
			d.h = newDraftHash(run, text[:d.n])
		}
		offset, delta = d.n, text[d.n:]
	} else {
		d.h = newDraftHash(run, "")
		offset, delta = 0, text
	}
	d.h.Write([]byte(delta))
	d.run, d.n, d.text, d.known, d.sum = run, len(text), text, true, d.h.Sum64()
	return offset, delta, true
}

func newDraftHash(run int64, text string) hash.Hash64 {
	h := fnv.New64a()
	h.Write(strconv.AppendInt(nil, run, 10))
	h.Write([]byte{':'})
	h.Write([]byte(text))
	return h
}

// draftSum is the hash of run's reply held as text: FNV-1a, which is
// enough to tell one model output from another, not a defence against
// anyone (a client can only fool itself).
func draftSum(run int64, text string) uint64 { return newDraftHash(run, text).Sum64() }

// position is a place in a conversation's event stream: every event of
// the nodes up to node sent (of node itself, only the first part when part
// is set), and held bytes of the streaming reply, whose hash is sum.
type position struct {
	node  int64
	part  int
	held  int
	sum   uint64
	sides []sideHeld // the side questions' replies held, by run
}

// sideHeld is what a client holds of side question run's streaming reply:
// held bytes, whose hash is sum.
type sideHeld struct {
	run  int64
	held int
	sum  uint64
}

// String writes p as an event id: "42", "42:1" (the first of node 42's two
// events), "42.120.3k9x0b2lq1t" (and 120 bytes of the reply),
// "42~40.30.1y2p0ij32e8e7" (and 30 bytes of side question 40's reply; one
// such part for each side reply held).
func (p position) String() string {
	b := strconv.AppendInt(nil, p.node, 10)
	if p.part > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(p.part), 10)
	}
	if p.held > 0 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(p.held), 10)
		b = append(b, '.')
		b = strconv.AppendUint(b, p.sum, 36)
	}
	for _, sp := range p.sides {
		b = append(b, '~')
		b = strconv.AppendInt(b, sp.run, 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(sp.held), 10)
		b = append(b, '.')
		b = strconv.AppendUint(b, sp.sum, 36)
	}
	return string(b)
}

var (
	positionSyntax = regexp.MustCompile(`^([0-9]{1,18})(?::([0-9]{1,9}))?(?:\.([0-9]{1,12})\.([0-9a-z]{1,13}))?((?:~[0-9]{1,18}\.[0-9]{1,12}\.[0-9a-z]{1,13})*)$`)
	sideSyntax     = regexp.MustCompile(`~([0-9]{1,18})\.([0-9]{1,12})\.([0-9a-z]{1,13})`)
)

// maxSidesHeld bounds the side replies an id may say a client holds: far
// more side questions than a user has answered at once.
const maxSidesHeld = 64

// parsePosition reads an event id as String writes it; "" is the start.
func parsePosition(id string) (position, error) {
	if id == "" {
		return position{}, nil
	}
	m := positionSyntax.FindStringSubmatch(id)
	bad := apperr.Errorf(apperr.Invalid,
		"Last-Event-ID %q is not an event id of this stream. Send back the id of the last event you received (such as 42 or 42.120.3k9x0b2lq1t), or no Last-Event-ID to start from the beginning.",
		clip(id))
	if m == nil {
		return position{}, bad
	}
	var p position
	var err error
	if p.node, err = strconv.ParseInt(m[1], 10, 64); err != nil {
		return position{}, bad
	}
	if m[2] != "" {
		if p.part, err = strconv.Atoi(m[2]); err != nil || p.part == 0 {
			return position{}, bad
		}
	}
	if m[3] != "" {
		if p.held, err = strconv.Atoi(m[3]); err != nil || p.held == 0 {
			return position{}, bad
		}
		if p.sum, err = strconv.ParseUint(m[4], 36, 64); err != nil {
			return position{}, bad
		}
	}
	sides := sideSyntax.FindAllStringSubmatch(m[5], -1)
	if len(sides) > maxSidesHeld {
		return position{}, bad
	}
	for _, sm := range sides {
		var sp sideHeld
		if sp.run, err = strconv.ParseInt(sm[1], 10, 64); err != nil || sp.run == 0 {
			return position{}, bad
		}
		if sp.held, err = strconv.Atoi(sm[2]); err != nil || sp.held == 0 {
			return position{}, bad
		}
		if sp.sum, err = strconv.ParseUint(sm[3], 36, 64); err != nil {
			return position{}, bad
		}
		if len(p.sides) > 0 && sp.run <= p.sides[len(p.sides)-1].run {
			return position{}, bad // in order, once each, as String writes them
		}
		p.sides = append(p.sides, sp)
	}
	if p.node == 0 && (p.part > 0 || p.held > 0 || len(p.sides) > 0) {
		return position{}, bad
	}
	return p, nil
}

// check refuses a position the conversation x has not reached, or that
// splits a node that gives no more than one event.
func (p position) check(x *tree.Index, id string) error {
	if p.node > x.Newest() {
		return apperr.Errorf(apperr.Invalid,
			"Last-Event-ID %q is ahead of this conversation, whose newest event is at %d: it is not an id this conversation's stream sent.", clip(id), x.Newest())
	}
	if p.part > 0 {
		if n, ok := x.Node(p.node); !ok || n.Kind != tree.ToolCall || p.part != 1 {
			return apperr.Errorf(apperr.Invalid,
				"Last-Event-ID %q names an event this conversation's stream never sent.", clip(id))
		}
	}
	for _, sp := range p.sides {
		// A side reply held is of a side question the stream went past.
		if n, ok := x.Node(sp.run); !ok || n.Kind != tree.SideQuestion || sp.run > p.node {
			return apperr.Errorf(apperr.Invalid,
				"Last-Event-ID %q names an event this conversation's stream never sent.", clip(id))
		}
	}
	return nil
}

// clip shortens what a client sent for quoting it back.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return strings.ToValidUTF8(s[:64], "") + "…"
}

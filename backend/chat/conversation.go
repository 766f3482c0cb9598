package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/lineend"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// conversation is the in-memory state of a conversation that has a running
// turn or an open page. mu guards everything below it and is held while a
// node is appended, so memory and the database agree.
type conversation struct {
	svc   *Service
	refs  int    // guarded by svc.mu
	owner string // the session that owns it; guarded by svc.mu, as a rotation changes it

	mu       sync.Mutex
	conv     tree.Conversation
	idx      *tree.Index // every node of every branch
	path     tree.Path   // root to HEAD
	current  *turn       // the running turn, if any
	status   Status
	pending  map[string]*waiter     // elicit id → the request waiting on it
	rejected map[string]*ElicitView // the last rejected submission per elicit
	subs     map[*Subscription]struct{}
	seq      int64
	notice   Notice      // shown on the conversation's pages until the next command
	active   time.Time   // when the last node was recorded
	held     *heldAnswer // an answer handed to the turn and not yet written (held.go)
	// suspendTimer suspends the turn once nobody watched it for a while
	// (suspend.go).
	suspendTimer *time.Timer
	// lastAnswered is the waiter answered last, whose request the pages
	// still show: kept for its decoded request.
	lastAnswered *waiter
}

func newConversation(s *Service, c tree.Conversation, nodes []tree.Node) *conversation {
	l := &conversation{
		svc: s, conv: c, owner: c.Session,
		idx:      tree.NewIndex(nodes),
		pending:  map[string]*waiter{},
		rejected: map[string]*ElicitView{},
		subs:     map[*Subscription]struct{}{},
	}
	l.path = l.idx.PathTo(c.Head)
	return l
}

// waiter is an elicit waiting for its answer.
type waiter struct {
	node     int64          // the request's node
	req      elicit.Request // as recorded
	answer   chan elicit.Response
	progress func(elicit.Request, elicit.Progress) // the asker's listener, if any
	stage    *elicit.Progress                      // the last progress reported
	reports  progressLimit                         // when the last progress reports came (progress.go)
}

func newWaiter(node int64, req elicit.Request) *waiter {
	return &waiter{node: node, req: req, answer: make(chan elicit.Response, 1)}
}

func (l *conversation) isPending(ref string) bool {
	_, ok := l.pending[ref]
	return ok
}

// decoded returns the request of node n if l holds it decoded: a pending
// one, or the one answered last. l.mu is held.
func (l *conversation) decoded(n tree.Node) (elicit.Request, bool) {
	for _, w := range []*waiter{l.pending[n.Ref], l.lastAnswered} {
		if w != nil && w.node == n.ID {
			return w.req, true
		}
	}
	return elicit.Request{}, false
}

// queueLocked returns the pending elicits of the path in the order they
// were asked: the first is the one to answer now, the rest wait their
// turn. l.mu is held.
//
// It costs the number of pending elicits, not the length of the path: a
// request asked earlier has a smaller node id, and so does every node of
// the path nearer the root, so the path is sorted by id.
func (l *conversation) queueLocked() []string {
	if len(l.pending) == 0 {
		return nil
	}
	type asked struct {
		node int64
		ref  string
	}
	q := make([]asked, 0, len(l.pending))
	for ref, w := range l.pending {
		if l.path.Contains(w.node) {
			q = append(q, asked{w.node, ref})
		}
	}
	slices.SortFunc(q, func(a, b asked) int { return cmp.Compare(a.node, b.node) })
	refs := make([]string, len(q))
	for i, a := range q {
		refs[i] = a.ref
	}
	return refs
}

// running reports whether a turn runs (or waits for an answer); l.mu is held.
func (l *conversation) running() bool { return l.current != nil }

// view builds the page's view; l.mu is held.
func (l *conversation) view() View {
	items := buildItems(l.path, l)
	items = l.withSidesLocked(items)
	answers := map[string]tree.Node{}
	for _, n := range l.path {
		if n.Kind == tree.ElicitResponse {
			answers[n.Ref] = n
		}
	}
	answer := func(eid string) (tree.Node, bool) { n, ok := answers[eid]; return n, ok }
	for i := range items {
		it := &items[i]
		if it.Elicit != nil {
			l.liveLocked(it.Elicit)
		}
		it.Branch = l.branchOf(it, answer)
	}
	return View{Conversation: l.conv, Items: items, Status: l.statusLocked(), Notice: l.notice, Model: l.svc.model.Name()}
}

// appendLocked records n durably as a child of HEAD (or of n.Parent when
// opts.Fork is set), makes it HEAD and tells subscribers; l.mu is held. An
// answer held for the turn's next record is written with n, in the same
// commit, when n goes plainly on HEAD.
func (l *conversation) appendLocked(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	n.Conversation = l.conv.ID
	if h := l.held; h != nil {
		l.held = nil
		h.timer.Stop()
		if opts == (tree.AppendOptions{}) {
			h.node.Parent = l.conv.Head
			both, err := l.svc.store.AppendChain(ctx, []tree.Node{h.node, n})
			if err == nil {
				l.recordedLocked(both[0], opts)
				l.settleLocked(h, nil)
				l.recordedLocked(both[1], opts)
				return both[1], nil
			}
			// Written apart, one's failure is not the other's.
			l.svc.log.Warn("an answer and the next record could not be written together; writing them apart", "conversation", l.conv.ID, "err", err)
		}
		_, err := l.writeLocked(ctx, h.node, tree.AppendOptions{})
		l.settleLocked(h, err)
		if err != nil {
			return tree.Node{}, err
		}
	}
	return l.writeLocked(ctx, n, opts)
}

// writeLocked records n alone; see appendLocked.
func (l *conversation) writeLocked(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	if !opts.Fork {
		n.Parent = l.conv.Head
	}
	n, err := l.svc.store.Append(ctx, n, opts)
	if err != nil {
		return n, err
	}
	l.recordedLocked(n, opts)
	return n, nil
}

// recordedLocked adds n, just recorded, to memory and tells subscribers.
func (l *conversation) recordedLocked(n tree.Node, opts tree.AppendOptions) {
	l.active = time.Now()
	l.idx.Add(n)
	if w := l.pending[n.Ref]; w != nil && n.Kind == tree.ElicitRequest {
		w.node = n.ID // its place in the queue, before anyone is told
	}
	if opts.Aside {
		if it, ok := l.sideItemLocked(n); ok {
			l.broadcastLocked(Change{Item: &it, New: n.Kind == tree.SideQuestion})
		}
		return
	}
	l.conv.Head = n.ID
	if n.Parent == l.path.Head() {
		l.path = append(l.path, n)
		if items := buildItems([]tree.Node{n}, l); len(items) == 1 {
			if items[0].Elicit != nil {
				l.liveLocked(items[0].Elicit)
			}
			l.broadcastLocked(Change{Item: &items[0], New: true})
		}
		return
	}
	l.path = l.idx.PathTo(n.ID)
	l.resyncLocked()
}

// runTurn runs turn t of agent a for the user message text. t.record is
// what the turn recorded before, when it is resumed: its calls are answered
// from there until the code makes a call the record does not have.
func (l *conversation) runTurn(ctx context.Context, t *turn, a agents.Chat, text string) {
	ctx = durable.WithScope(ctx, strconv.FormatInt(t.id, 10))
	ctx = runtime.AgentName.With(ctx, a.Name)
	ctx = runtime.ElicitAPI.Provide(ctx, t.elicit)
	ctx = runtime.NotifyAPI.Provide(ctx, t.notify)
	ctx = runtime.SampleAPI.Provide(ctx, t.sample)
	ctx = runtime.LogAPI.Provide(ctx, t.logLine)
	ctx = agents.ToolAPI.Around(ctx, t.tool, runtime.Max)
	ctx = runtime.NowAPI.Provide(ctx, t.now)
	ctx = runtime.RandomAPI.Provide(ctx, t.random)
	ctx = runtime.HistoryAPI.Provide(ctx, t.history)
	ctx = runtime.HistoryAPI.Around(ctx, t.compact, runtime.Min)
	ctx = runtime.Lanes.With(ctx, durable.Lanes)
	if n := l.svc.compactAfter; n > 0 {
		if _, set := CompactAfter.Lookup(ctx); !set {
			ctx = CompactAfter.With(ctx, n)
		}
	}

	reply, err := a.Turn(ctx, text)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.current != t {
		return // parked: HEAD moved to another branch, where this turn is not
	}
	// The turn's own context may be cancelled; recording its end must not be.
	rec := context.WithoutCancel(ctx)
	end := func(kind tree.Kind, text string, move *tree.Move) {
		_, err = l.appendLocked(rec, tree.Node{Kind: kind, Agent: a.Name, Payload: tree.MustEncode(tree.Message{Text: text})}, tree.AppendOptions{Log: move})
	}
	switch {
	case errors.Is(context.Cause(ctx), errStopped):
		// Stopped, even if the agent finished anyway: the user was told so.
		end(tree.Stopped, "Stopped.", &tree.Move{Action: tree.ActCancel})
	case err == nil:
		end(tree.AssistantMessage, reply, nil)
	case errors.Is(err, context.Canceled) && l.svc.ctx.Err() != nil:
		err = nil // shutting down: the turn stays where it was, to be resumed
	default:
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause // ended for a reason of the service's, which says more
		}
		l.svc.log.Error("turn failed", "conversation", l.conv.ID, "agent", a.Name, "err", err)
		end(tree.TurnError, userFacing(err), nil)
	}
	if err != nil {
		l.svc.log.Error("record end of turn", "conversation", l.conv.ID, "err", err)
	}
	l.current = nil
	l.status = Status{}
	if l.withdrawLocked() {
		l.resyncLocked() // its questions leave the page
	} else {
		l.broadcastStatusLocked()
	}
}

// withdrawLocked forgets what the ended turn waited for and reports whether
// there was anything.
func (l *conversation) withdrawLocked() bool {
	any := len(l.pending) > 0
	clear(l.pending)
	clear(l.rejected)
	return any
}

// turn provides the primitives' cores for one turn.
type turn struct {
	l      *conversation
	id     int64 // the user message node that started the turn
	agent  string
	record durable.Journal
	cancel context.CancelCauseFunc

	// Compaction within the turn: the summary made (or replayed) by this
	// turn, and the history as the core last built it.
	summary     *tree.SummaryRecord
	summaryNode int64
	lastHistory []message
}

// errParked ends a turn whose branch is no longer HEAD's: it stays where it
// was in the record, to be resumed when its branch is HEAD again.
var errParked = errors.New("the turn's branch is no longer the current one")

// appendLocked records n for the turn; a turn that is no longer the
// conversation's current one records nothing. l.mu is held.
func (t *turn) appendLocked(ctx context.Context, n tree.Node) (tree.Node, error) {
	if t.l.current != t {
		return tree.Node{}, errParked
	}
	return t.l.appendLocked(ctx, n, tree.AppendOptions{})
}

// parkLocked ends the current turn without recording its end, so that HEAD
// can move; the turn's record stays, and replay resumes it on its branch.
// l.mu is held.
func (l *conversation) parkLocked() {
	if l.current == nil {
		return
	}
	l.current.cancel(errParked)
	l.current = nil
	l.status = Status{}
	l.withdrawLocked()
}

func (t *turn) elicit(ctx context.Context, req elicit.Request) (elicit.Response, error) {
	l := t.l
	req.ID = durable.NextCall(ctx)
	_, _, replayed, err := durable.Lookup(t.record, durable.Call[elicit.Request]{
		ID: req.ID, Kind: tree.ElicitRequest, Made: durable.DescribeElicit(req),
		Same: func(was elicit.Request) bool {
			return was.Kind == req.Kind && was.Message == req.Message && durable.SameJSON(was.Input, req.Input)
		},
	})
	if err != nil {
		return elicit.Response{}, err
	}
	if n, ok := t.record.Response(req.ID); ok {
		return tree.Decode[elicit.Response](n)
	}
	l.mu.Lock()
	if l.current != t {
		l.mu.Unlock()
		return elicit.Response{}, errParked
	}
	if err := ctx.Err(); err != nil { // stopped: it asks nothing more
		l.mu.Unlock()
		return elicit.Response{}, context.Cause(ctx)
	}
	w := l.pending[req.ID] // made already when the conversation was loaded
	if w == nil && replayed {
		// Answered while the replay was on its way here: most often, the
		// answer that loaded the conversation. Held, it goes on with what
		// the turn records next.
		if resp, ok := l.held.take(req.ID); ok {
			l.mu.Unlock()
			return resp, nil
		}
		l.flushLocked()
		if resp, ok := l.responseLocked(req.ID); ok {
			l.mu.Unlock()
			return resp, nil
		}
	}
	if w == nil {
		w = newWaiter(0, req) // a new request's node is given it when appended
		if replayed {
			n, _ := l.requestNodeLocked(req.ID)
			w.node = n.ID
		}
		l.pending[req.ID] = w
	}
	w.progress = runtime.ElicitProgress.Get(ctx)
	if replayed {
		l.broadcastItemLocked(req.ID)
	} else if _, err := t.appendLocked(ctx, tree.Node{Kind: tree.ElicitRequest, Ref: req.ID, Agent: req.Agent, Payload: tree.MustEncode(req)}); err != nil {
		delete(l.pending, req.ID)
		l.mu.Unlock()
		return elicit.Response{}, err
	}
	if len(l.pending) > 1 {
		l.broadcastQueueLocked(req.ID) // each learns the queue grew
	}
	l.broadcastStatusLocked()
	l.mu.Unlock()
	l.svc.idle(l)
	select {
	case resp := <-w.answer:
		return resp, nil
	case <-ctx.Done():
		// The turn is over; when it ends it withdraws what it still waits on.
		return elicit.Response{}, ctx.Err()
	}
}

func (t *turn) notify(ctx context.Context, p runtime.Progress) (struct{}, error) {
	id := durable.NextCall(ctx)
	_, err := durable.Step(t.record, durable.Call[runtime.Progress]{
		ID: id, Kind: tree.Notify, Made: durable.DescribeNotify(p.Message),
		Same: func(was runtime.Progress) bool { return was.Message == p.Message },
	}, func() (runtime.Progress, error) { return p, nil }, func(p runtime.Progress) error {
		l := t.l
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, err := t.appendLocked(ctx, tree.Node{Kind: tree.Notify, Ref: id, Agent: runtime.AgentName.Get(ctx), Payload: tree.MustEncode(p)}); err != nil {
			return err
		}
		l.status.Progress = &p
		l.broadcastStatusLocked()
		return nil
	})
	return struct{}{}, err
}

func (t *turn) sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	id := durable.NextCall(ctx)
	reqJSON := tree.MustEncode(req)
	l := t.l
	var (
		ran     bool
		resp    llm.Response
		callErr error // the provider's own error, when the call ran now
	)
	rec, err := durable.Step(t.record, durable.Call[tree.SampleRecord]{
		ID: id, Kind: tree.Sample, Made: "a model call",
		Same: func(was tree.SampleRecord) bool { return durable.SameJSON(tree.MustEncode(was.Request), reqJSON) },
	}, func() (tree.SampleRecord, error) {
		l.flush() // an answer the call follows is written before it starts
		start := time.Now()
		ran = true
		resp, callErr = l.svc.model.Complete(ctx, req, func(delta string) {
			l.mu.Lock()
			if l.current == t {
				l.status.Draft += delta
				l.broadcastStatusLocked()
			}
			l.mu.Unlock()
		})
		rec := tree.SampleRecord{Request: req, LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
		if callErr != nil {
			rec.Error = callErr.Error()
		} else {
			rec.Response = &resp
		}
		return rec, nil
	}, func(rec tree.SampleRecord) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.status.Draft = ""
		if _, err := t.appendLocked(context.WithoutCancel(ctx), tree.Node{Kind: tree.Sample, Ref: id, Agent: runtime.AgentName.Get(ctx), Payload: tree.MustEncode(rec)}); err != nil {
			return err
		}
		l.broadcastStatusLocked()
		return nil
	})
	switch {
	case ran && err != nil:
		return resp, errors.Join(callErr, err)
	case ran:
		return resp, callErr
	case err != nil:
		return llm.Response{}, err
	case rec.Response == nil:
		return llm.Response{}, fmt.Errorf("recorded model call failed: %s", rec.Error)
	}
	return *rec.Response, nil
}

// tool records each finished tool call, so a resumed turn skips a tool that
// already ran and takes its recorded result; the calls a tool makes are
// numbered within it.
func (t *turn) tool(next runtime.Handler[agents.ToolCall, json.RawMessage]) runtime.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
		id := durable.NextCall(ctx)
		var (
			ran    bool
			out    json.RawMessage
			runErr error // the tool's own error, when it ran now
		)
		rec, err := durable.Step(t.record, durable.Call[tree.ToolRecord]{
			ID: id, Kind: tree.ToolCall, Made: durable.DescribeTool(c.Agent, c.Tool),
			Same: func(was tree.ToolRecord) bool {
				return was.Agent == c.Agent && was.Tool == c.Tool && durable.SameJSON(was.Input, c.Input)
			},
		}, func() (tree.ToolRecord, error) {
			// A tool may act on the world: what it acts on is recorded
			// first, so that no effect of it follows an answer the record
			// lacks.
			t.l.flush()
			ran = true
			out, runErr = next(durable.WithScope(ctx, id), c)
			if errors.Is(runErr, context.Canceled) {
				return tree.ToolRecord{}, runErr // stopped or shutting down: the tool did not finish
			}
			rec := tree.ToolRecord{Agent: c.Agent, Tool: c.Tool, Input: c.Input, Output: out}
			if runErr != nil {
				rec.Error = runErr.Error()
			}
			return rec, nil
		}, func(rec tree.ToolRecord) error {
			t.l.mu.Lock()
			defer t.l.mu.Unlock()
			_, err := t.appendLocked(context.WithoutCancel(ctx), tree.Node{Kind: tree.ToolCall, Ref: id, Agent: c.Agent, Payload: tree.MustEncode(rec)})
			return err
		})
		switch {
		case ran && errors.Is(runErr, context.Canceled):
			return out, runErr
		case ran && err != nil:
			return out, errors.Join(runErr, err)
		case ran:
			return out, runErr
		case err != nil:
			return nil, err
		case rec.Error != "":
			return nil, errors.New(rec.Error)
		}
		return rec.Output, nil
	}
}

func (t *turn) logLine(ctx context.Context, e runtime.LogEntry) (struct{}, error) {
	args := append([]any{"conversation", t.l.conv.ID, "agent", runtime.AgentName.Get(ctx)}, e.Attrs...)
	t.l.svc.log.Log(ctx, e.Level, e.Message, args...)
	return struct{}{}, nil
}

// Answer is a user's response to an elicit as it arrives: an action and
// either HTML form values or JSON content, which the service converts and
// checks against the request's schema.
type Answer struct {
	Action  elicit.Action
	Form    url.Values
	Content []byte
	Text    string
}

// normalized returns a with the line ends of everything the user wrote
// normalized (see package lineend).
func (a Answer) normalized() Answer {
	a.Text = lineend.Normalize(a.Text)
	a.Content = lineend.NormalizeJSON(a.Content)
	if a.Form != nil {
		form := make(url.Values, len(a.Form))
		for k, vs := range a.Form {
			for _, v := range vs {
				form[k] = append(form[k], lineend.Normalize(v))
			}
		}
		a.Form = form
	}
	return a
}

// Answer records the answer to elicit eid and resumes the turn waiting on
// it. Errors: NotFound for an unknown conversation or elicit; Conflict for
// an elicit already answered or no longer waited on (the first answer
// stands); Invalid with Fields for content that breaks the schema, in which
// case the elicit stays pending and shows what was wrong.
func (s *Service) Answer(ctx context.Context, session, id, eid string, a Answer) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	h, err := l.answer(eid, a)
	if err != nil {
		return err
	}
	return h.wait()
}

// answer checks a and hands it to the turn waiting on eid.
func (l *conversation) answer(eid string, a Answer) (*heldAnswer, error) {
	l.lock()
	defer l.mu.Unlock()
	if !l.isPending(eid) {
		return nil, l.notPendingLocked(eid)
	}
	req := l.requestLocked(eid)
	resp, problem := checkAnswer(l.svc.kinds, req, a)
	if problem != nil {
		return nil, l.rejectLocked(req, a.Form, problem)
	}
	return l.deliverLocked(req, resp)
}

// broadcastQueueLocked re-sends every question in the queue but skip, whose
// place in it changed.
func (l *conversation) broadcastQueueLocked(skip string) {
	for _, eid := range l.queueLocked() {
		if eid != skip {
			l.broadcastItemLocked(eid)
		}
	}
}

// responseLocked returns the recorded answer to elicit eid on the path.
func (l *conversation) responseLocked(eid string) (elicit.Response, bool) {
	n, ok := l.responseNodeLocked(eid)
	if !ok {
		return elicit.Response{}, false
	}
	var resp elicit.Response
	json.Unmarshal(n.Payload, &resp)
	return resp, true
}

// checkAnswer converts an answer as it arrived into a response and checks
// it against the request: the action must be allowed and the content must
// satisfy the schema and the rules kinds holds for the request's kind.
func checkAnswer(kinds *elicit.Kinds, req elicit.Request, a Answer) (elicit.Response, error) {
	a = a.normalized()
	resp := elicit.Response{Action: a.Action, Text: a.Text}
	if a.Action == elicit.Accept {
		if a.Form == nil {
			resp.Content = a.Content
		} else {
			content, ferrs := req.Schema.FromForm(a.Form)
			resp.Content = content
			if len(ferrs) > 0 {
				return resp, ferrs
			}
		}
	}
	return resp, kinds.Check(req, resp)
}

// rejectLocked keeps a rejected submission for display and reports it.
func (l *conversation) rejectLocked(req elicit.Request, form url.Values, problem error) error {
	rv := &ElicitView{Values: form}
	e := &apperr.Error{Code: apperr.Invalid}
	if ferrs, ok := errors.AsType[elicit.FieldErrors](problem); ok {
		rv.Errors = ferrs
		e.Fields = ferrs
		e.Message = "Some answers need fixing: " + ferrs.Error()
	} else {
		rv.Problem = "That answer can't be accepted: " + problem.Error() + "."
		e.Message = rv.Problem
	}
	l.rejected[req.ID] = rv
	l.broadcastItemLocked(req.ID)
	return e
}

func (l *conversation) requestLocked(eid string) elicit.Request {
	if w := l.pending[eid]; w != nil {
		return w.req
	}
	var req elicit.Request
	if n, ok := l.requestNodeLocked(eid); ok {
		json.Unmarshal(n.Payload, &req)
	}
	return req
}

// notPendingLocked explains why eid cannot be answered.
func (l *conversation) notPendingLocked(eid string) error {
	if _, ok := l.requestNodeLocked(eid); ok {
		if _, answered := l.responseNodeLocked(eid); answered {
			return apperr.Errorf(apperr.Conflict, "That question was already answered; the first answer stands.")
		}
		return apperr.Errorf(apperr.Conflict, "That question is no longer waiting for an answer.")
	}
	return apperr.Errorf(apperr.NotFound, "There is no question %q in this conversation.", eid)
}

// broadcastItemLocked re-sends the item of elicit eid to subscribers.
func (l *conversation) broadcastItemLocked(eid string) {
	if it, ok := l.elicitItemLocked(eid); ok {
		l.broadcastLocked(Change{Item: &it})
	}
}

// elicitItemLocked builds the item of elicit eid on the path as the page
// shows it, looking only at the nodes that concern it.
func (l *conversation) elicitItemLocked(eid string) (Item, bool) {
	req, ok := l.requestNodeLocked(eid)
	if !ok {
		return Item{}, false
	}
	nodes := []tree.Node{req}
	if resp, ok := l.responseNodeLocked(eid); ok {
		nodes = append(nodes, resp)
	}
	items := buildItems(nodes, l)
	if len(items) == 0 {
		return Item{}, false
	}
	it := items[0]
	l.liveLocked(it.Elicit)
	it.Branch = l.branchOf(&it, l.responseNodeLocked)
	return it, true
}

// liveLocked adds to e what only the running conversation knows: the last
// submission refused, the progress its implementation reported, and its
// place in the queue of questions. l.mu is held.
func (l *conversation) liveLocked(e *ElicitView) {
	eid := e.Request.ID
	if r := l.rejected[eid]; r != nil {
		e.Errors, e.Values, e.Problem = r.Errors, r.Values, r.Problem
	}
	w := l.pending[eid]
	if w == nil {
		return
	}
	e.Stage = w.stage
	q := l.queueLocked()
	e.Position, e.Queued = slices.Index(q, eid)+1, len(q)
}

// requestNodeLocked finds the request of elicit eid on the path.
func (l *conversation) requestNodeLocked(eid string) (tree.Node, bool) {
	return l.idx.NewestOnPath(l.path, eid, tree.ElicitRequest)
}

func (l *conversation) broadcastStatusLocked() {
	st := l.statusLocked()
	l.broadcastLocked(Change{Status: &st})
}

func (l *conversation) statusLocked() Status {
	st := l.status
	st.Running = l.running()
	st.Waiting = l.running() && len(l.pending) > 0
	return st
}

// Notice shows a message on every open page of the conversation, for
// problems with a request that has no better place to be shown; "" clears
// the last one.
func (s *Service) Notice(session, id, message string) {
	s.notice(session, id, Notice{Text: message})
}

// Inform shows a message on every open page of the conversation that tells
// how a request went, when it went well.
func (s *Service) Inform(session, id, message string) {
	s.notice(session, id, Notice{Text: message, Info: true})
}

func (s *Service) notice(session, id string, n Notice) {
	s.mu.Lock()
	l := s.live[id]
	mine := l != nil && l.owner == session
	s.mu.Unlock()
	if !mine {
		return
	}
	l.lock()
	defer l.mu.Unlock()
	if n == l.notice {
		return // most commands clear a notice that is not there
	}
	l.notice = n
	l.broadcastLocked(Change{Notice: n})
}

package deploycheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// A dry run replays a suspended turn against the code that runs now, as
// resuming it would, but without side effects: every call is compared
// with the record as the live cores compare it (package replay), and answered
// from the record; the run ends at the first call the record lacks, where
// the live turn would go on live, or once it reaches every question the
// turn waits on. Nothing is written, no model is called, and no tool that
// the record shows finished runs. A tool that was still running, waiting
// on a question of its own (ask_user, say), is entered, as resuming it
// would be: its code runs again up to its question, its calls answered
// from the record like the turn's own.

// dryRunLimit bounds one dry run: code that neither reaches the question it
// waits on nor diverges nor ends within it is reported as stuck.
const dryRunLimit = 10 * time.Second

// drift is where a dry run left the record: the call, what the record
// holds there and what the code does instead. A nil drift resumes.
type drift struct {
	Call, Recorded, Made string
}

// dryTurn provides the primitives' cores for one dry run.
type dryTurn struct {
	record  durable.Journal
	states  *state.Turn
	history []history.Message
	open    attach.Opener // the session's files (nil when none are kept)
	summary *tree.SummaryRecord
	node    int64 // the summary's node
	samples replay.Samples

	mu      sync.Mutex
	waits   map[string]bool // the questions the turn waits on, by id: reached yet
	outcome *drift
	done    bool
	over    chan struct{} // closed once the run's outcome is known
}

// errDryRunOver is the cause a dry run's code is cancelled with once its
// outcome is known.
var errDryRunOver = errors.New("the dry run is over")

// dryRun replays st, a suspended turn of a, under scope, the program's
// root scope (Config.Scope). It returns nil when the turn would resume,
// else where it diverges.
func dryRun(ctx context.Context, scope func(context.Context) context.Context, a agents.Assistant, st suspendedTurn) *drift {
	d := &dryTurn{record: st.record, states: st.states, history: st.history, open: st.open, waits: map[string]bool{}, over: make(chan struct{})}
	// The first model call continues the conversation's last, as the live
	// turn's does (chat's runLocked).
	d.samples.Begin(strconv.FormatInt(st.id, 10), func() tree.Prior { return replay.Before(st.path, st.id) })
	for id := range st.record.Unanswered() {
		d.waits[id] = false
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	run := a.Turn
	if st.side {
		run = a.SideTurn()
	}
	returned := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				returned <- fmt.Errorf("the code panicked: %v", r)
			}
		}()
		_, err := run(d.provide(ctx, scope, a, st.id), st.text)
		returned <- err
	}()
	limit := time.NewTimer(dryRunLimit)
	defer limit.Stop()
	ended := false
	select {
	case <-d.over:
	case err := <-returned:
		ended = true
		d.ended(err)
	case <-limit.C:
		d.conclude(d.unreached("", fmt.Sprintf("no further call within %s", dryRunLimit)))
	}
	cancel(errDryRunOver)
	if !ended {
		select { // its code sees the cancellation at its next call
		case <-returned:
		case <-time.After(dryRunLimit):
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.outcome
}

// provide gives the turn's code the dry cores, under the program's root
// scope, numbered as the live turn numbers its calls.
func (d *dryTurn) provide(ctx context.Context, scope func(context.Context) context.Context, a agents.Assistant, turnID int64) context.Context {
	if scope != nil {
		ctx = scope(ctx)
	}
	ctx = policy.Narrow(ctx, a.Policy...) // the assistant's rules, inside the program's
	ctx = durable.WithScope(ctx, strconv.FormatInt(turnID, 10))
	ctx = primitive.Cores{
		Elicit: d.elicit, Notify: d.notify, Show: d.show, Sample: d.sample, SampleRetry: d.sampleRetry,
		Log: d.logLine, History: d.historyCore, Version: d.version,
		Now:      func(ctx context.Context, _ struct{}) (time.Time, error) { return dryValue(d, ctx, "now", time.Now) },
		Random:   func(ctx context.Context, _ struct{}) (uint64, error) { return dryValue(d, ctx, "random", rand.Uint64) },
		StateGet: d.stateGet, StateSet: d.stateSet, Fork: d.fork, ForkEnd: d.forkEnd,
	}.Provide(ctx, a.Name)
	if d.open != nil { // the agent's code reads the files as the live turn's does
		ctx = primitive.Files.With(ctx, d.open)
	}
	ctx = agents.ToolAPI.Around(ctx, d.tool, middleware.Max)
	ctx = middleware.History.Around(ctx, d.compact, middleware.Min)
	return primitive.Lanes.With(ctx, durable.Lanes)
}

// conclude sets the run's outcome, once: what comes later is what the code
// did after the run was over.
func (d *dryTurn) conclude(outcome *drift) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return
	}
	d.done, d.outcome = true, outcome
	close(d.over)
}

// diverged concludes the run on err, a divergence, and returns it for the
// code.
func (d *dryTurn) diverged(err error) error {
	if nd, ok := errors.AsType[*durable.NonDeterminismError](err); ok {
		d.conclude(&drift{Call: nd.Call, Recorded: nd.Recorded, Made: nd.Made})
	} else {
		d.conclude(&drift{Recorded: "a record this code cannot read", Made: err.Error()})
	}
	return err
}

// waitOver holds the code where the live turn would wait or go on live,
// until the run is over.
func waitOver(ctx context.Context) error {
	<-ctx.Done()
	return context.Cause(ctx)
}

// reached marks question id, which the turn waits on, reached: once every
// one is, the turn resumes as it was.
func (d *dryTurn) reached(ctx context.Context, id string) error {
	d.mu.Lock()
	d.waits[id] = true
	d.mu.Unlock()
	if d.unreached("", "") == nil {
		d.conclude(nil)
	}
	return waitOver(ctx)
}

// unrecorded answers call id, which the record lacks. Where the record
// goes on after it (a position no call of the old code took), a harmless
// call — a progress report, a figure, a value — goes on, while one the
// live turn would run (a model call, a tool, a question) diverges: it would
// run in the middle of the replay. Past the record's end, the live turn
// goes on live from here: the run waits for the other branches of a
// turn.Together to reach their questions, if any.
func (d *dryTurn) unrecorded(ctx context.Context, id, made string, harmless bool) error {
	if d.record.From(id) {
		if harmless {
			return nil
		}
		return d.diverged(&durable.NonDeterminismError{Call: id, Recorded: "no call there (its calls go on after it)", Made: made})
	}
	if d.unreached("", "") == nil {
		d.conclude(nil)
	}
	return waitOver(ctx)
}

// ended concludes a run whose code returned err before the run was over:
// it diverged when a question the turn waits on was never reached.
func (d *dryTurn) ended(err error) {
	what := "the end of the turn"
	if err != nil && !errors.Is(err, errDryRunOver) {
		what += " (" + err.Error() + ")"
	}
	d.conclude(d.unreached("", what))
}

// unreached is the drift of a run that left a question the turn waits on
// unreached — of those asked as calls under prefix — while the code did
// what made says; nil when every one was reached.
func (d *dryTurn) unreached(prefix, made string) *drift {
	d.mu.Lock()
	defer d.mu.Unlock()
	var ids []string
	for id, reached := range d.waits {
		if !reached && strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return &drift{Call: ids[0], Recorded: d.describeWait(ids[0]) + ", waiting for its answer", Made: made}
}

// describeWait words the question the turn waits on as call id.
func (d *dryTurn) describeWait(id string) string {
	if n, ok := d.record.Unanswered()[id]; ok {
		if req, err := tree.Decode[elicit.Request](n); err == nil {
			return durable.DescribeElicit(req)
		}
	}
	return "a question"
}

func (d *dryTurn) elicit(ctx context.Context, req elicit.Request) (elicit.Response, error) {
	req.ID = durable.NextCall(ctx)
	_, _, replayed, err := durable.Lookup(d.record, replay.Elicit(req))
	if err != nil {
		return elicit.Response{}, d.diverged(err)
	}
	if n, ok := d.record.Response(req.ID); ok {
		return tree.Decode[elicit.Response](n)
	}
	if replayed {
		return elicit.Response{}, d.reached(ctx, req.ID)
	}
	return elicit.Response{}, d.unrecorded(ctx, req.ID, durable.DescribeElicit(req), false)
}

func (d *dryTurn) notify(ctx context.Context, p middleware.Progress) (struct{}, error) {
	return struct{}{}, dryStep(d, ctx, func(id string) durable.Call[middleware.Progress] { return replay.Notify(id, p) }, true)
}

func (d *dryTurn) show(ctx context.Context, f figure.Figure) (struct{}, error) {
	return struct{}{}, dryStep(d, ctx, func(id string) durable.Call[figure.Figure] { return replay.Show(id, f) }, true)
}

// stateGet reads the state as the live turn would: computed, not recorded.
func (d *dryTurn) stateGet(ctx context.Context, k primitive.StateKey) (json.RawMessage, error) {
	if v, ok := d.states.Get(state.Key(k), durable.Peek(ctx)); ok {
		return v.JSON, nil
	}
	return nil, nil
}

// stateSet matches a change of state with the record; one the record lacks
// would be made in the middle of the replay.
func (d *dryTurn) stateSet(ctx context.Context, ch primitive.StateChange) (struct{}, error) {
	rec := tree.StateRecord{Agent: ch.Agent, Name: ch.Name, Value: ch.Value}
	return struct{}{}, dryStep(d, ctx, func(id string) durable.Call[tree.StateRecord] { return replay.State(id, rec) }, false)
}

// fork matches the start of a tried block with the record and runs the
// block, its calls numbered within the fork's, as the live turn would.
func (d *dryTurn) fork(ctx context.Context, b primitive.ForkBlock) (string, error) {
	id := durable.Peek(ctx)
	rec := tree.ForkRecord{Label: b.Label}
	if err := dryStep(d, ctx, func(id string) durable.Call[tree.ForkRecord] { return replay.Fork(id, rec) }, false); err != nil {
		return "", err
	}
	return id, b.Run(durable.WithScope(ctx, id))
}

// forkEnd matches the decision on a tried block with the record; going
// back, the block's changes of state are not read after it.
func (d *dryTurn) forkEnd(ctx context.Context, dec primitive.ForkDecision) (struct{}, error) {
	id := durable.Peek(ctx)
	rec := tree.ForkEndRecord{Label: dec.Label, Forward: dec.Forward}
	if err := dryStep(d, ctx, func(id string) durable.Call[tree.ForkEndRecord] { return replay.ForkEnd(id, rec) }, false); err != nil {
		return struct{}{}, err
	}
	if !dec.Forward {
		d.states.Abandon(dec.Fork, id)
	}
	return struct{}{}, nil
}

func (d *dryTurn) sampleRetry(ctx context.Context, n primitive.RetryNote) (struct{}, error) {
	return struct{}{}, dryStep(d, ctx, func(id string) durable.Call[primitive.RetryNote] { return replay.Retry(id, n) }, true)
}

// dryStep answers a call that returns nothing but whether it matched the
// record; harmless says whether it may go on where the record has a gap.
func dryStep[R any](d *dryTurn, ctx context.Context, call func(id string) durable.Call[R], harmless bool) error {
	c := call(durable.NextCall(ctx))
	_, _, replayed, err := durable.Lookup(d.record, c)
	switch {
	case err != nil:
		return d.diverged(err)
	case replayed:
		return nil
	}
	return d.unrecorded(ctx, c.ID, c.Made, harmless)
}

func (d *dryTurn) sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	c := replay.Sample(&d.samples, d.record, durable.NextCall(ctx), req)
	n, rec, replayed, err := durable.Lookup(d.record, c)
	switch {
	case err != nil:
		return llm.Response{}, d.diverged(err)
	case !replayed:
		return llm.Response{}, d.unrecorded(ctx, c.ID, c.Made, false)
	}
	d.samples.Replayed(d.record, c.ID, n, rec) // the scope's next call continues this one
	if rec.Response == nil {
		return llm.Response{}, fmt.Errorf("recorded model call failed: %s", rec.Error)
	}
	return *rec.Response, nil
}

// tool answers a tool call from the record; one still running when the
// turn was suspended (the record holds calls made within it: its approval,
// its own calls) is entered, so that its calls are checked too. Its
// decision comes from the record as the live turn's does (package consent).
func (d *dryTurn) tool(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, tc agents.ToolCall) (json.RawMessage, error) {
		c := replay.Tool(d.record, durable.NextCall(ctx), tc)
		_, rec, replayed, err := durable.Lookup(d.record, c)
		switch {
		case err != nil:
			return nil, d.diverged(err)
		case replayed:
			return consent.Recorded(rec)
		case !d.record.Within(c.ID):
			return nil, d.unrecorded(ctx, c.ID, c.Made, false)
		}
		ctx = durable.WithScope(ctx, c.ID)
		// A dry run is never parked (its branch cannot stop being HEAD's),
		// so no error of its ends the turn the way a parked turn's does.
		cons, err := consent.Guard{Record: d.record, Ended: func(error) bool { return false }}.Decide(ctx, c.ID, tc)
		var out json.RawMessage
		switch {
		case err != nil:
			return nil, err
		case cons.Denied != nil:
			err = cons.Denied // the live turn records the denial and goes on live
		default:
			out, err = next(ctx, cons.Call)
		}
		if ctx.Err() == nil {
			// The tool finished: the live turn records it and goes on
			// live, unless it left a question it waited on behind.
			if miss := d.unreached(c.ID+".", "the end of "+c.Made); miss != nil {
				d.conclude(miss)
			}
		}
		return out, err
	}
}

func (d *dryTurn) logLine(ctx context.Context, _ middleware.LogEntry) (struct{}, error) {
	durable.NextLog(ctx) // numbered as the live turn numbers it; nothing printed, nothing recorded
	return struct{}{}, nil
}

// dryValue answers the value named name from the record, or a fresh one
// where the record has a gap; past the record's end the run is over.
func dryValue[T any](d *dryTurn, ctx context.Context, name string, fresh func() T) (T, error) {
	c := durable.ValueCall(durable.NextCall(ctx), name)
	_, rec, replayed, err := durable.Lookup(d.record, c)
	var v T
	switch {
	case err != nil:
		return v, d.diverged(err)
	case replayed:
		err = json.Unmarshal(rec.Value, &v)
		return v, err
	}
	if err := d.unrecorded(ctx, c.ID, c.Made, true); err != nil {
		return v, err
	}
	return fresh(), nil
}

// version is turn.Version's core: as the live one, except that a marker is
// not recorded but ends the run, the record's end reached.
func (d *dryTurn) version(ctx context.Context, q primitive.VersionRequest) (int, error) {
	v, err := durable.Version(ctx, d.record, q.Change, q.Latest, func(id string, _ tree.ValueRecord) error {
		return d.unrecorded(ctx, id, durable.DescribeVersion(q.Change, q.Latest), true)
	})
	if _, ok := errors.AsType[*durable.NonDeterminismError](err); ok {
		return v, d.diverged(err)
	}
	return v, err
}

// historyCore is the turn's history as the live core gives it, with this
// turn's summary, when its record has one.
func (d *dryTurn) historyCore(ctx context.Context, _ struct{}) ([]llm.Message, error) {
	msgs := d.history
	if d.summary != nil {
		msgs = history.ApplySummary(msgs, d.node, *d.summary)
	}
	open := d.open
	if open == nil {
		open = func(context.Context, string) (io.ReadCloser, error) {
			return nil, errors.New("files are not kept here")
		}
	}
	msgs, err := attach.History(ctx, msgs, open)
	if err != nil {
		return nil, err
	}
	return history.Plain(msgs), nil
}

// compact replays the compaction middleware: a summary recorded at its
// call is used again; where there is none, the history is given as it is
// (a compaction past the record's end would call the model).
func (d *dryTurn) compact(next middleware.Handler[struct{}, []llm.Message]) middleware.Handler[struct{}, []llm.Message] {
	return func(ctx context.Context, req struct{}) ([]llm.Message, error) {
		n, was, replayed, err := durable.Lookup(d.record, replay.Compact(durable.NextCall(ctx)))
		if err != nil {
			return nil, d.diverged(err)
		}
		if replayed {
			d.summary, d.node = &was, n.ID
		}
		return next(ctx, req)
	}
}

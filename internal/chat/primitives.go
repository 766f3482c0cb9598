package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/replycap"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// The primitives' cores. Each call a turn makes through package turn
// (elicit, notify, sample, a tool, a value) is numbered and looked up in
// the turn's record by package durable: a recorded call is answered from
// the record, a new one runs and is recorded as a node on HEAD's branch.

func (t *turn) elicit(ctx context.Context, req elicit.Request) (elicit.Response, error) {
	c := t.conv
	req.ID = durable.NextCall(ctx)
	asked, was, replayed, err := durable.Lookup(t.record, replay.Elicit(req))
	if err != nil {
		return elicit.Response{}, err
	}
	if n, ok := t.record.Response(req.ID); ok {
		return tree.Decode[elicit.Response](n)
	}
	askedAt := c.svc.now() // for the observer: when the question was asked
	if replayed {
		askedAt, req.Expires = asked.At, was.Expires
	} else if d := primitive.ExpiresIn.Get(ctx); d > 0 && req.Expires == nil {
		at := askedAt.Add(d).UTC().Truncate(time.Millisecond) // as the record keeps it
		req.Expires = &at
	}
	c.mu.Lock()
	if !t.liveLocked() {
		c.mu.Unlock()
		return elicit.Response{}, errParked
	}
	if err := ctx.Err(); err != nil { // stopped: it asks nothing more
		c.mu.Unlock()
		return elicit.Response{}, context.Cause(ctx)
	}
	w := c.questions.waiterLocked(req.ID) // made already when the conversation was loaded
	if w == nil && replayed {
		// Answered while the replay was on its way here: most often, the
		// answer that loaded the conversation. Held, it goes on with what
		// the turn records next.
		if resp, ok := c.questions.takeHeldLocked(req.ID); ok {
			c.svc.observe.ElicitWaited(ctx, req, askedAt, string(resp.Action))
			c.mu.Unlock()
			return resp, nil
		}
		c.questions.flushLocked()
		if resp, ok := t.answeredLocked(req.ID); ok {
			c.svc.observe.ElicitWaited(ctx, req, askedAt, string(resp.Action))
			c.mu.Unlock()
			return resp, nil
		}
	}
	if w == nil {
		w = newWaiter(t, 0, req) // a new request's node is given it when appended
		if replayed {
			w.node = asked.ID
		}
		c.questions.waitLocked(req.ID, w)
	}
	w.progress = primitive.ElicitProgress.Get(ctx)
	if replayed {
		c.questions.broadcastItemLocked(req.ID)
	} else if _, err := t.appendLocked(ctx, tree.Node{Kind: tree.ElicitRequest, Ref: req.ID, Agent: req.Agent, Payload: tree.MustEncode(req)}); err != nil {
		c.questions.unaskLocked(req.ID)
		c.mu.Unlock()
		return elicit.Response{}, err
	}
	if c.questions.waitedOnLocked() > 1 {
		c.questions.broadcastQueueLocked(req.ID) // each learns the queue grew
	}
	t.place.asking(t)
	c.page.broadcastStatusLocked()
	c.mu.Unlock()
	c.svc.idle(c)
	select {
	case resp := <-w.answer:
		c.svc.observe.ElicitWaited(ctx, req, askedAt, string(resp.Action))
		return resp, nil
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), errStopped) {
			c.svc.observe.ElicitWaited(ctx, req, askedAt, string(tree.OutcomeStopped))
		}
		// The turn is over; when it ends it withdraws what it still waits on.
		return elicit.Response{}, ctx.Err()
	}
}

func (t *turn) notify(ctx context.Context, p middleware.Progress) (struct{}, error) {
	id := durable.NextCall(ctx)
	_, err := durable.Step(t.record, replay.Notify(id, p), func() (middleware.Progress, error) { return p, nil }, func(p middleware.Progress) error {
		c := t.conv
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, err := t.appendLocked(ctx, tree.Node{Kind: tree.Notify, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(p)}); err != nil {
			return err
		}
		t.place.notified(t, p)
		return nil
	})
	return struct{}{}, err
}

func (t *turn) sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	id := durable.NextCall(ctx)
	c := t.conv
	var (
		ran     bool
		cut     bool // ran, and was cut by the shutdown
		resp    llm.Response
		callErr error // the provider's own error, when the call ran now
	)
	rec, err := durable.Step(t.record, replay.Sample(&t.samples, t.record, id, req), func() (tree.SampleRecord, error) {
		c.flush() // an answer the call follows is written before it starts
		start := c.svc.now()
		ran = true
		model := middleware.Model.Get(ctx)
		if model == nil {
			model = c.svc.model
		}
		model = replycap.New(model, c.svc.maxReply)
		defer t.place.waitOnModel(t)()
		var stream func(string) // only the reply's own calls reach the page as they come
		if !primitive.Aside.Get(ctx) {
			stream = func(delta string) {
				c.mu.Lock()
				t.drafted(delta)
				c.mu.Unlock()
			}
		}
		live := req // with its pictures' bytes, for the call alone: the record keeps their files' ids
		if callErr = c.svc.pictures.Fill(ctx, &live, c.openFile, c.fileCache()); callErr == nil {
			resp, callErr = primitive.Complete(ctx, model, live, stream)
		}
		if callErr != nil && errors.Is(context.Cause(ctx), errShutdown) {
			// Cut by the shutdown, not failed: not recorded, the call is
			// made again when the turn resumes after the restart.
			cut = true
			return tree.SampleRecord{}, callErr
		}
		rec := t.samples.Record(id, req) // what is new since the scope's last call
		rec.LatencyMS = float64(c.svc.since(start).Microseconds()) / 1000
		if callErr != nil {
			rec.Error = callErr.Error()
		} else {
			rec.Response = &resp
		}
		return rec, nil
	}, func(rec tree.SampleRecord) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if ctx.Err() == nil {
			// A call cut off by a stop leaves its draft for the turn's end
			// to keep (runTurn); no retry follows it. One that broke off
			// leaves what it showed, should its failure end the turn.
			t.sampledLocked(callErr)
			t.drafted("")
		}
		n, err := t.appendLocked(context.WithoutCancel(ctx), tree.Node{Kind: tree.Sample, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(rec)})
		if err != nil {
			return err
		}
		t.samples.Recorded(id, n.ID, rec, req)
		c.page.broadcastStatusLocked()
		return nil
	})
	if !ran && err == nil { // replayed: the scope's next call continues this one
		n, _ := t.record.Node(id)
		t.samples.Replayed(t.record, id, n, rec)
	}
	switch {
	case cut:
		return resp, callErr
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

// answeredLocked returns the recorded answer to t's question eid, where t
// records: on HEAD's branch, or on a side turn's own. c.mu is held.
func (t *turn) answeredLocked(eid string) (elicit.Response, bool) {
	return t.place.answered(t, eid)
}

// drafted adds delta to the reply t's model call streams in and tells the
// pages; an empty delta starts the draft afresh, once the call is recorded.
// c.mu is held.
func (t *turn) drafted(delta string) {
	if t.liveLocked() {
		t.place.drafted(t, delta)
	}
}

// sampleRetry records that a middleware of the sample pipeline refused an
// attempt, so that the inspector shows who and why; a replayed turn makes
// the same refusal, found in the record.
func (t *turn) sampleRetry(ctx context.Context, n primitive.RetryNote) (struct{}, error) {
	id := durable.NextCall(ctx)
	_, err := durable.Step(t.record, replay.Retry(id, n), func() (primitive.RetryNote, error) { return n, nil }, func(n primitive.RetryNote) error {
		t.conv.mu.Lock()
		defer t.conv.mu.Unlock()
		_, err := t.appendLocked(ctx, tree.Node{Kind: tree.SampleRetry, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(n)})
		return err
	})
	return struct{}{}, err
}

// logLine prints a log line and records it as a node, so that the debug
// page shows it in order among the turn's calls. Lines are numbered in a
// lane of their own (durable.NextLog), so recording them shifts no call's
// id: a turn recorded before lines were recorded resumes as it was, and a
// replayed turn finds each line it wrote before by its id and neither
// prints nor records it again. A line that cannot be recorded is still
// printed; it never fails the turn.
func (t *turn) logLine(ctx context.Context, e middleware.LogEntry) (struct{}, error) {
	id := durable.NextLog(ctx)
	if _, _, replayed, _ := durable.Lookup(t.record, durable.Call[tree.LogRecord]{ID: id, Kind: tree.Log}); replayed {
		return struct{}{}, nil
	}
	c, agent := t.conv, primitive.AgentName.Get(ctx)
	args := append([]any{"conversation", c.conv.ID, "agent", agent}, e.Attrs...)
	c.svc.log.Log(ctx, e.Level, e.Message, args...)
	rec := tree.LogRecord{Level: e.Level, Message: e.Message, Attrs: logAttrs(e.Attrs)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := t.appendLocked(context.WithoutCancel(ctx), tree.Node{Kind: tree.Log, Ref: id, Agent: agent, Payload: tree.MustEncode(rec)}); err != nil && !errors.Is(err, errParked) {
		c.svc.log.Warn("record a log line", "conversation", c.conv.ID, "err", err)
	}
	return struct{}{}, nil
}

// logAttrs words a log line's attributes (slog's key-value pairs or
// slog.Attrs) as slog does.
func logAttrs(args []any) []tree.LogAttr {
	if len(args) == 0 {
		return nil
	}
	r := slog.NewRecord(time.Time{}, 0, "", 0)
	r.Add(args...)
	out := make([]tree.LogAttr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		out = append(out, tree.LogAttr{Key: a.Key, Value: a.Value.Resolve().String()})
		return true
	})
	return out
}

// recordValue gives the turn's call its recorded value when it is replayed,
// and otherwise takes a fresh one and records it.
func recordValue[T any](t *turn, ctx context.Context, name string, fresh func() T) (T, error) {
	id := durable.NextCall(ctx)
	return durable.Value(t.record, id, name, fresh, func(rec tree.ValueRecord) error {
		t.conv.mu.Lock()
		defer t.conv.mu.Unlock()
		_, err := t.appendLocked(ctx, tree.Node{Kind: tree.Value, Ref: id, Payload: tree.MustEncode(rec)})
		return err
	})
}

func (t *turn) now(ctx context.Context, _ struct{}) (time.Time, error) {
	return recordValue(t, ctx, "now", t.conv.svc.now)
}

func (t *turn) random(ctx context.Context, _ struct{}) (uint64, error) {
	return recordValue(t, ctx, "random", rand.Uint64)
}

// version records which version of a change the turn takes (turn.Version):
// a live turn's is recorded as a marker, a replayed turn's is read from the
// record, and a turn recorded before the change takes its old path without
// a call id taken. A version the code cannot take (a record newer than the
// code) or a marker that cannot be written ends the turn, with the error
// as its cause: Version itself returns no error to its caller.
func (t *turn) version(ctx context.Context, q primitive.VersionRequest) (int, error) {
	v, err := durable.Version(ctx, t.record, q.Change, q.Latest, func(id string, rec tree.ValueRecord) error {
		t.conv.mu.Lock()
		defer t.conv.mu.Unlock()
		_, err := t.appendLocked(ctx, tree.Node{Kind: tree.Value, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(rec)})
		return err
	})
	if err != nil {
		t.cancel(err)
	}
	return v, err
}

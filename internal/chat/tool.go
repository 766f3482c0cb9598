package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// tool records each tool call with its audit, so a resumed turn skips a
// tool that already ran and takes its recorded result; the calls a tool
// makes are numbered within it. Before it runs, a call is decided by the
// guard (package consent); a denied one is recorded too, and does not run. A call
// the user stops is recorded as cancelled; one cut off otherwise (its
// branch left, the service closing) is not recorded, and is decided and
// run again when its turn resumes. A call that fails while the service
// shuts down is taken as cut off, whatever its error says: a tool may word
// its context's end as its own failure ("add: context canceled").
func (t *turn) tool(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
		id := durable.NextCall(ctx)
		var (
			ran    bool
			cut    bool // ran, and was cut off before it finished
			out    json.RawMessage
			runErr error // the tool's own error, or its denial, when it was decided now
		)
		rec, err := durable.Step(t.record, replay.Tool(t.record, id, c), func() (tree.ToolRecord, error) {
			ran = true
			var rec tree.ToolRecord
			rec, out, runErr = t.decideAndRun(context.WithValue(ctx, insideToolKey{}, true), id, c, next)
			if cut = runErr != nil && cutOff(ctx, runErr); cut {
				return rec, runErr // not recorded: the turn resumes here
			}
			t.conv.svc.observe.ToolDecided(ctx, rec.Agent, rec.Tool, rec.Decision, rec.DecidedBy, rec.Outcome)
			return rec, nil
		}, func(rec tree.ToolRecord) error {
			t.conv.mu.Lock()
			defer t.conv.mu.Unlock()
			n := tree.Node{Conversation: t.conv.conv.ID, Kind: tree.ToolCall, Ref: id, Agent: c.Agent, Payload: tree.MustEncode(rec)}
			if t.call != nil && ctx.Value(insideToolKey{}) == nil && t.place == (flow{}) && t.liveLocked() {
				// The call's own tool returned: the turn's reply follows
				// at once, and is written with it (held.go). A tool
				// called from inside another is recorded at once, as the
				// other may act on the world after it.
				t.conv.records.hold(n)
				return nil
			}
			_, err := t.appendLocked(context.WithoutCancel(ctx), n)
			return err
		})
		switch {
		case cut:
			return out, runErr
		case ran && err != nil:
			return out, errors.Join(runErr, err)
		case ran:
			return out, runErr
		case err != nil:
			return nil, err
		}
		return consent.Recorded(rec)
	}
}

// insideToolKey marks the context of a tool's run, so that a tool called
// from inside it knows it is not the call turn's own (held.go).
type insideToolKey struct{}

// cutOff reports whether err, the error of a call made from ctx, means the
// call was cut off rather than that it failed: its branch was left or the
// service is shutting down, not the user's stop, which is recorded.
func cutOff(ctx context.Context, err error) bool {
	cause := context.Cause(ctx)
	return errors.Is(cause, errShutdown) || errors.Is(err, context.Canceled) && !errors.Is(cause, errStopped)
}

// decideAndRun decides call c, made as call id, and runs it if it may:
// the record of the call, and the tool's result. ctx is the caller's.
func (t *turn) decideAndRun(ctx context.Context, id string, c agents.ToolCall, next middleware.Handler[agents.ToolCall, json.RawMessage]) (tree.ToolRecord, json.RawMessage, error) {
	ctx = durable.WithScope(ctx, id) // the calls the approval and the tool make are numbered within it
	cons, err := t.guard().Decide(ctx, id, c)
	if err != nil {
		return consent.Audit(cons, nil, err, consent.OutcomeCancelled), nil, err
	}
	if cons.Denied != nil {
		return consent.Audit(cons, nil, cons.Denied, consent.OutcomeDenied), nil, cons.Denied
	}
	// A tool may act on the world: what it acts on is recorded first (the
	// user's approval among it), so that no effect of it follows an answer
	// the record lacks.
	t.conv.flush()
	call := cons.Call
	call.Decision = policy.Decision{Action: cons.Decision.Action, By: cons.By, Rule: cons.Decision.Rule, Redact: cons.Decision.Redact}
	start := t.conv.svc.now()
	out, err := next(ctx, call)
	outcome := consent.OutcomeOK
	switch {
	case errors.Is(err, context.Canceled):
		outcome = consent.OutcomeCancelled
	case err != nil:
		outcome = consent.OutcomeError
	}
	rec := consent.Audit(cons, out, err, outcome)
	rec.Started, rec.Duration = start.UnixMilli(), t.conv.svc.since(start).Microseconds()
	return rec, out, err
}

// guard is the turn's guard of its tool calls: its record, the user's
// remembered choices on its branch and in their session, and the session
// where an "Always allow" is kept.
func (t *turn) guard() consent.Guard {
	c := t.conv
	return consent.Guard{
		Record: t.record,
		Ended:  func(err error) bool { return errors.Is(err, errParked) },
		Remembered: func(pc policy.Call) (policy.Decision, string, bool) {
			c.mu.Lock()
			approval, ok := t.place.choices(t).Allowed(t.place.branch(t), pc.Agent, pc.Tool)
			c.mu.Unlock()
			if ok {
				return policy.Decision{Action: policy.Allow, By: "remembered", Rule: "allowed for this conversation"}, approval, true
			}
			r, ok, err := c.svc.always.Allowing(context.WithoutCancel(c.svc.ctx), c.session(), pc.Agent, pc.Tool)
			if err != nil {
				// Not known to be allowed: the call is decided as if it
				// were not (it asks, where nothing else allows it).
				c.svc.log.Warn("read the always rules", "conversation", c.conv.ID, "err", err)
			}
			if !ok {
				return policy.Decision{}, "", false
			}
			return policy.Decision{Action: policy.Allow, By: "remembered", Rule: fmt.Sprintf("always allowed (rule %d)", r.ID)}, "", true
		},
		Always: func(ctx context.Context, agent, tool string) {
			if err := c.svc.always.Allow(context.WithoutCancel(ctx), c.session(), agent, tool); err != nil {
				c.svc.log.Error("keep an always rule", "conversation", c.conv.ID, "agent", agent, "tool", tool, "err", err)
			}
		},
	}
}

// session is the session that owns c now.
func (c *conversation) session() string {
	c.svc.mu.Lock()
	defer c.svc.mu.Unlock()
	return c.owner
}

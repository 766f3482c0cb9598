package telemetry

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TurnStarted opens the turn's span, "invoke_agent {agent}", which the
// spans of its model calls, tool calls and elicit waits are children of,
// and counts the turn as running until it ends.
func (t *Telemetry) TurnStarted(ctx context.Context, conversation, agent string, resumed bool) (context.Context, func(tree.Outcome)) {
	t.turnsRunning.Inc()
	var span trace.Span
	if t.traced {
		ctx, span = t.tracer.Start(ctx, opInvokeAgent+" "+agent, trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(genAIOperation.String(opInvokeAgent), genAIAgentName.String(agent),
				genAIConversation.String(conversation), turnResumed.Bool(resumed)))
	}
	return ctx, func(outcome tree.Outcome) {
		t.turnsRunning.Dec()
		t.turns.WithLabelValues(agent, string(outcome)).Inc()
		if span == nil {
			return
		}
		span.SetAttributes(turnOutcome.String(string(outcome)))
		if outcome == tree.OutcomeFailed {
			span.SetAttributes(errorType.String(string(outcome)))
			span.SetStatus(codes.Error, string(outcome))
		}
		span.End()
	}
}

// ElicitWaited records a question's wait as a span from when it was asked
// to now, made only now: a wait that outlives the process is not left
// half-open by the one that asked, and is recorded once, whole, by the
// one the answer reaches.
func (t *Telemetry) ElicitWaited(ctx context.Context, req elicit.Request, asked time.Time, outcome string) {
	now := time.Now()
	if asked.IsZero() || asked.After(now) {
		asked = now
	}
	switch elicit.Action(outcome) { // a bounded label: the actions, or stopped
	case elicit.Accept, elicit.Decline, elicit.Cancel, elicit.Denied, elicit.Other, elicit.Action(tree.OutcomeStopped):
	default:
		outcome = "other"
	}
	t.elicitSeconds.WithLabelValues(req.Agent, req.Kind, outcome).Observe(now.Sub(asked).Seconds())
	if !t.traced {
		return
	}
	_, span := t.tracer.Start(ctx, "elicit "+req.Kind, trace.WithTimestamp(asked), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(elicitKind.String(req.Kind), genAIAgentName.String(req.Agent), elicitOutcome.String(outcome)))
	span.End(trace.WithTimestamp(now))
}

// Suspended counts conversation as suspended, until it is loaded again.
func (t *Telemetry) Suspended(conversation string) {
	t.mu.Lock()
	t.suspended[conversation] = struct{}{}
	t.mu.Unlock()
}

// ToolDecided counts a tool call the permission policy decided, denied
// ones included, which run no tool and so have no span of their own.
func (t *Telemetry) ToolDecided(_ context.Context, agent, tool, decision, decidedBy, outcome string) {
	t.toolDecisions.WithLabelValues(agent, tool, decision, decidedBy, outcome).Inc()
}

// Loaded stops counting conversation as suspended.
func (t *Telemetry) Loaded(conversation string) {
	t.mu.Lock()
	delete(t.suspended, conversation)
	t.mu.Unlock()
}

package telemetry

import (
	"cmp"
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// complete observes one model call a provider answers (primitive.CompleteAPI
// middleware): a span "chat {model}" with the GenAI attributes, its
// latency and its tokens.
func (t *Telemetry) complete(next middleware.Handler[primitive.Completion, llm.Response]) middleware.Handler[primitive.Completion, llm.Response] {
	return func(ctx context.Context, c primitive.Completion) (llm.Response, error) {
		provider, agent, requested := c.Model.Name(), primitive.AgentName.Get(ctx), requestedModel(c)
		var span trace.Span
		if t.traced {
			name := opChat
			if requested != "" {
				name += " " + requested
			}
			attrs := []attribute.KeyValue{genAIOperation.String(opChat), genAIProvider.String(provider)}
			if requested != "" {
				attrs = append(attrs, genAIRequestModel.String(requested))
			}
			if agent != "" {
				attrs = append(attrs, genAIAgentName.String(agent))
			}
			ctx, span = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		}
		start := time.Now()
		resp, err := next(ctx, c)
		elapsed := time.Since(start)
		model := cmp.Or(resp.Model, requested, provider)
		t.modelSeconds.WithLabelValues(provider, model, agent, outcome(err)).Observe(elapsed.Seconds())
		if err == nil {
			t.modelTokens.WithLabelValues(provider, model, agent, "input").Add(float64(resp.Usage.PromptTokens))
			t.modelTokens.WithLabelValues(provider, model, agent, "output").Add(float64(resp.Usage.CompletionTokens))
		}
		if span != nil {
			if err != nil {
				failed(span, err)
			} else {
				span.SetAttributes(genAIResponseModel.String(resp.Model),
					genAIInputTokens.Int(resp.Usage.PromptTokens), genAIOutputTokens.Int(resp.Usage.CompletionTokens))
				if resp.FinishReason != "" {
					span.SetAttributes(genAIFinishReasons.StringSlice([]string{resp.FinishReason}))
				}
			}
			span.End()
		}
		return resp, err
	}
}

// tool observes one tool call that runs (agents.ToolAPI middleware): a
// span "execute_tool {tool}" and its latency, with what the permission
// policy decided of it (a denied call does not run: its record says so).
func (t *Telemetry) tool(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
		decision := cmp.Or(string(c.Decision.Action), "none") // none: no guard decided (a call outside a conversation)
		var span trace.Span
		if t.traced {
			attrs := []attribute.KeyValue{genAIOperation.String(opExecuteTool), genAIToolName.String(c.Tool), genAIAgentName.String(c.Agent),
				toolDecision.String(decision)}
			if c.Decision.By != "" {
				attrs = append(attrs, toolDecidedBy.String(c.Decision.By))
			}
			ctx, span = t.tracer.Start(ctx, opExecuteTool+" "+c.Tool, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
		}
		start := time.Now()
		out, err := next(ctx, c)
		t.toolSeconds.WithLabelValues(c.Agent, c.Tool, decision, outcome(err)).Observe(time.Since(start).Seconds())
		if span != nil {
			if err != nil {
				failed(span, err)
			}
			span.End()
		}
		return out, err
	}
}

// failed marks span as failed by err, naming its type and not its text.
func failed(span trace.Span, err error) {
	typ := errType(err)
	span.SetAttributes(errorType.String(typ))
	span.SetStatus(codes.Error, typ)
}

// requestedModel is the model c asks for: the request's, else the
// provider's default when it says (openai and offline do), else "".
func requestedModel(c primitive.Completion) string {
	if c.Request.Model != "" {
		return c.Request.Model
	}
	if m, ok := c.Model.(interface{ Model() string }); ok {
		return m.Model()
	}
	return ""
}

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"

	"github.com/sweatpants-go/sweatpants/llm"
)

// The attributes of the OpenTelemetry semantic conventions for generative
// AI (gen_ai.*) and errors that the spans carry. The semconv packages of
// otel v1.47 no longer hold the gen_ai keys (they are still marked as in
// development), so they are spelled here.
const (
	genAIOperation     = attribute.Key("gen_ai.operation.name")
	genAIProvider      = attribute.Key("gen_ai.provider.name")
	genAIRequestModel  = attribute.Key("gen_ai.request.model")
	genAIResponseModel = attribute.Key("gen_ai.response.model")
	genAIFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	genAIInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	genAIOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	genAIToolName      = attribute.Key("gen_ai.tool.name")
	genAIAgentName     = attribute.Key("gen_ai.agent.name")
	genAIConversation  = attribute.Key("gen_ai.conversation.id")
	errorType          = attribute.Key("error.type")

	// Our own, for what the conventions do not name.
	turnResumed   = attribute.Key("sweatpants.turn.resumed")
	turnOutcome   = attribute.Key("sweatpants.turn.outcome")
	elicitKind    = attribute.Key("sweatpants.elicit.kind")
	elicitOutcome = attribute.Key("sweatpants.elicit.outcome")
	toolDecision  = attribute.Key("sweatpants.tool.decision")   // the permission policy's: allow, ask
	toolDecidedBy = attribute.Key("sweatpants.tool.decided_by") // rule, user, remembered, default
)

// The operation names of the conventions the spans use.
const (
	opChat        = "chat"
	opExecuteTool = "execute_tool"
	opInvokeAgent = "invoke_agent"
)

// errType names err for error.type with few distinct values, as the
// conventions ask: a provider failure by its HTTP status (or "unavailable"
// when there was none), a timeout or cancellation by what it is, anything
// else by its Go type. Never the error's text, which may hold what a user
// or a model wrote.
func errType(err error) string {
	if le, ok := errors.AsType[*llm.Error](err); ok {
		if le.Status != 0 {
			return strconv.Itoa(le.Status)
		}
		return "unavailable"
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return fmt.Sprintf("%T", err)
}

// outcome is "ok" for a call that succeeded, else "error".
func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

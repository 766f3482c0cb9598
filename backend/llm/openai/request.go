package openai

import (
	"encoding/json"
	"math"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/backend/llm"
)

// request translates req into go-openai's request.
func (p *Provider) request(req llm.Request) goopenai.ChatCompletionRequest {
	creq := goopenai.ChatCompletionRequest{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
		LogProbs:  req.Logprobs,
	}
	if creq.Model == "" {
		creq.Model = p.model
	}
	if t := req.Temperature; t != nil {
		// go-openai omits a zero temperature, which the API reads as the
		// default of 1; the smallest positive float32 keeps "greedy".
		creq.Temperature = max(*t, math.SmallestNonzeroFloat32)
	}
	for _, m := range req.Messages {
		creq.Messages = append(creq.Messages, message(m))
	}
	for _, t := range req.Tools {
		creq.Tools = append(creq.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: schema(t.Parameters),
		}})
	}
	// The API refuses a tool choice when no tool is offered; without
	// tools there is nothing to choose.
	if len(creq.Tools) > 0 {
		creq.ToolChoice = toolChoice(req.ToolChoice)
	}
	if o := req.Output; o != nil {
		name := o.Name
		if name == "" {
			name = "output" // the API requires a name
		}
		creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name: name, Description: o.Description, Schema: schema(o.Schema), Strict: true,
			},
		}
	}
	return creq
}

// message translates one message, with the tool calls of an assistant
// message and the call a tool message answers.
func message(m llm.Message) goopenai.ChatCompletionMessage {
	out := goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, goopenai.ToolCall{
			ID: c.ID, Type: goopenai.ToolTypeFunction,
			Function: goopenai.FunctionCall{Name: c.Name, Arguments: c.Arguments},
		})
	}
	return out
}

// toolChoice is the wire form of an llm.Request's ToolChoice: nil for the
// endpoint's default, a mode as a string, or an object naming a tool.
func toolChoice(choice string) any {
	switch choice {
	case "":
		return nil
	case llm.ToolAuto, llm.ToolNone, llm.ToolRequired:
		return choice
	default:
		return goopenai.ToolChoice{Type: goopenai.ToolTypeFunction, Function: goopenai.ToolFunction{Name: choice}}
	}
}

// schema is a JSON Schema as sent; a missing one is the schema of an
// object with no properties, which the API accepts where it refuses null.
func schema(s json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return s
}

package openai

import (
	"encoding/base64"
	"encoding/json"
	"math"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/llm"
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
// message and the call a tool message answers. A message with images is
// sent as parts, its text and then each image as a data URL; one without
// is sent with its content a string, as it always was, so that a request
// recorded before images existed is sent byte for byte the same.
func message(m llm.Message) goopenai.ChatCompletionMessage {
	out := goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
	if len(m.Images) > 0 {
		out.Content, out.MultiContent = "", parts(m)
	}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, goopenai.ToolCall{
			ID: c.ID, Type: goopenai.ToolTypeFunction,
			Function: goopenai.FunctionCall{Name: c.Name, Arguments: c.Arguments},
		})
	}
	return out
}

// parts is a message with images as the wire's content parts: a text part,
// when there is text, and an image_url part per image.
func parts(m llm.Message) []goopenai.ChatMessagePart {
	var out []goopenai.ChatMessagePart
	if m.Content != "" {
		out = append(out, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: m.Content})
	}
	for _, img := range m.Images {
		url := "data:" + img.Type + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		out = append(out, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{URL: url}})
	}
	return out
}

// unread finds an image of req whose bytes were not read (attach.Pictures.Fill
// reads them before a call), which would be sent as an empty picture.
func unread(req llm.Request) (llm.Image, bool) {
	for _, m := range req.Messages {
		for _, img := range m.Images {
			if len(img.Data) == 0 {
				return img, true
			}
		}
	}
	return llm.Image{}, false
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

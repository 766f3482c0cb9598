package main

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/app"
)

// extension is what the fixture serves beside its tools: the resources,
// the prompts and the completion the scenarios read.
func extension() app.MCPExtension {
	return app.MCPExtension{
		Options: func(o *sdk.ServerOptions) {
			o.CompletionHandler = complete
			// Subscriptions are the SDK's to keep; the fixture's resources
			// never change.
			o.SubscribeHandler = func(context.Context, *sdk.SubscribeRequest) error { return nil }
			o.UnsubscribeHandler = func(context.Context, *sdk.UnsubscribeRequest) error { return nil }
		},
		Add: func(s *sdk.Server) {
			addResources(s)
			addPrompts(s)
		},
	}
}

// complete offers no values: the scenario wants the capability and a
// well-formed answer.
func complete(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
}

func addResources(s *sdk.Server) {
	text := func(uri, mime, body string) sdk.ResourceHandler {
		return func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: body}}}, nil
		}
	}
	s.AddResource(&sdk.Resource{Name: "static-text", Description: "A static text resource", MIMEType: "text/plain", URI: "test://static-text"},
		text("test://static-text", "text/plain", "This is the content of the static text resource."))
	s.AddResource(&sdk.Resource{Name: "static-binary", Description: "A static binary resource (an image)", MIMEType: "image/png", URI: "test://static-binary"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: decode(pngBase64)}}}, nil
		})
	s.AddResource(&sdk.Resource{Name: "watched-resource", Description: "A resource one may subscribe to", MIMEType: "text/plain", URI: "test://watched-resource"},
		text("test://watched-resource", "text/plain", "Watched resource content"))
	s.AddResourceTemplate(&sdk.ResourceTemplate{Name: "template", Description: "A resource template with a parameter", MIMEType: "application/json", URITemplate: "test://template/{id}/data"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			body := fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id)
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: body}}}, nil
		})
}

func addPrompts(s *sdk.Server) {
	user := func(c sdk.Content) *sdk.PromptMessage { return &sdk.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&sdk.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Description: "A simple test prompt",
				Messages: []*sdk.PromptMessage{user(&sdk.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []*sdk.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			a := req.Params.Arguments
			return &sdk.GetPromptResult{Description: "A prompt with arguments",
				Messages: []*sdk.PromptMessage{user(&sdk.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])})}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that embeds a resource",
		Arguments: []*sdk.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Description: "A prompt with an embedded resource", Messages: []*sdk.PromptMessage{
				user(&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(&sdk.TextContent{Text: "Please process the embedded resource above."}),
			}}, nil
		})
	// A prompt that asks for context first, as revision 2026-07-28 lets
	// any request do (input_required): the SDK's own, since a prompt runs
	// outside any conversation.
	s.AddPrompt(&sdk.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks for context first"},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			if r, ok := req.Params.InputResponses["user_context"].(*sdk.ElicitResult); ok && r.Action == "accept" {
				return &sdk.GetPromptResult{Description: "A prompt with context",
					Messages: []*sdk.PromptMessage{user(&sdk.TextContent{Text: fmt.Sprintf("Context: %v", r.Content["context"])})}}, nil
			}
			return &sdk.GetPromptResult{InputRequests: sdk.InputRequestMap{"user_context": &sdk.ElicitParams{
				Message: "Please provide context for the prompt",
				RequestedSchema: map[string]any{"type": "object", "required": []string{"context"},
					"properties": map[string]any{"context": map[string]any{"type": "string"}}},
			}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that holds an image"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Description: "A prompt with an image", Messages: []*sdk.PromptMessage{
				user(&sdk.ImageContent{Data: decode(pngBase64), MIMEType: "image/png"}),
				user(&sdk.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}

package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The suite's small files: a 1x1 PNG and a silent WAV.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func decode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// none is the input of a tool that takes no arguments.
type none struct{}

// conformanceAgent declares the tools the scenarios call, by the names
// they call them.
func conformanceAgent() *agents.Agent {
	a := agents.New("conformance", "The tools the MCP conformance suite calls.")
	content := func(name, desc string, blocks ...agents.Block) {
		agents.NewTool(a, name, desc, func(context.Context, none) (agents.Content, error) {
			return agents.Content{Blocks: blocks}, nil
		})
	}
	content("test_simple_text", "Returns simple text content",
		agents.Text("This is a simple text response for testing."))
	content("test_image_content", "Returns image content",
		agents.Image(decode(pngBase64), "image/png"))
	content("test_audio_content", "Returns audio content",
		agents.Audio(decode(wavBase64), "audio/wav"))
	content("test_embedded_resource", "Returns an embedded resource",
		agents.Embed(agents.Resource{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}))
	content("test_multiple_content_types", "Returns text, an image and an embedded resource",
		agents.Text("Multiple content types test:"),
		agents.Image(decode(pngBase64), "image/png"),
		agents.Embed(agents.Resource{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}))

	agents.NewTool(a, "test_tool_with_logging", "Logs three lines while it runs", func(ctx context.Context, _ none) (agents.Content, error) {
		for i, line := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond) // the scenario asks for lines spread over the call
			}
			turn.Log(ctx, slog.LevelInfo, line)
		}
		return text("Tool with logging executed successfully"), nil
	})
	agents.NewTool(a, "test_tool_with_progress", "Reports progress at 0, 50 and 100%", func(ctx context.Context, _ none) (agents.Content, error) {
		for i, f := range []float64{0, 0.5, 1} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			if err := turn.Notify(ctx, fmt.Sprintf("Completed step %d of 3", i+1), f); err != nil {
				return agents.Content{}, err
			}
		}
		return text("Tool with progress executed successfully"), nil
	})
	agents.NewTool(a, "test_error_handling", "Always fails", func(context.Context, none) (agents.Content, error) {
		return agents.Content{}, errors.New("This tool intentionally returns an error for testing")
	})
	agents.NewTool(a, "test_elicitation", "Asks the user for a username and an email", askUser)
	agents.NewTool(a, "test_elicitation_sep1034_defaults", "Asks with a form whose fields have defaults", askWithDefaults)
	agents.NewTool(a, "test_elicitation_sep1330_enums", "Asks with a form of enums", askEnums)
	addStatelessTools(a)
	addTaskTools(a)
	return a
}

type elicitationIn struct {
	Message string `json:"message" desc:"The message to show the user"`
}

type user struct {
	Username string `json:"username" desc:"User's response"`
	Email    string `json:"email" desc:"User's email address"`
}

var userForm = elicit.Form[user]()

func askUser(ctx context.Context, in elicitationIn) (agents.Content, error) {
	r, err := turn.Ask(ctx, userForm, in.Message, struct{}{})
	if err != nil {
		return agents.Content{}, err
	}
	return said("User response", r.Action, r.Content), nil
}

type defaults struct {
	Name     string  `json:"name" desc:"User name" default:"John Doe"`
	Age      int     `json:"age" desc:"User age" default:"30"`
	Score    float64 `json:"score" desc:"User score" default:"95.5"`
	Status   string  `json:"status" desc:"User status" enum:"active,inactive,pending" default:"active"`
	Verified bool    `json:"verified" desc:"Verification status" default:"true"`
}

var defaultsForm = elicit.Form[defaults]()

func askWithDefaults(ctx context.Context, _ none) (agents.Content, error) {
	r, err := turn.Ask(ctx, defaultsForm, "Test defaults for primitives", struct{}{})
	if err != nil {
		return agents.Content{}, err
	}
	return said("Elicitation completed", r.Action, r.Content), nil
}

// enums holds the enum variants an elicit schema can say: single choice
// and multiple choice without titles. The titled variants (oneOf, anyOf,
// enumNames) it cannot, which the test's list of unpassed scenarios says.
type enums struct {
	UntitledSingle string   `json:"untitledSingle" enum:"option1,option2,option3"`
	UntitledMulti  []string `json:"untitledMulti" enum:"option1,option2,option3" min:"1" max:"3"`
}

var enumsForm = elicit.Form[enums]()

func askEnums(ctx context.Context, _ none) (agents.Content, error) {
	r, err := turn.Ask(ctx, enumsForm, "Test enum schemas", struct{}{})
	if err != nil {
		return agents.Content{}, err
	}
	return said("Elicitation completed", r.Action, r.Content), nil
}

// said is the tool's answer: what the user did, and what they gave.
func said(what string, action elicit.Action, content any) agents.Content {
	return text(fmt.Sprintf("%s: action=%s, content=%+v", what, action, content))
}

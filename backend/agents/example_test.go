package agents_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
)

// Greeting is what the greeter asks for.
type Greeting struct {
	Name string `json:"name" title:"Your name" min:"1" max:"40"`
}

var greetingForm = elicit.Form[Greeting]()

// Weather is a tool: what it returns is recorded, so a resumed turn does
// not call it again.
var (
	greeterAgent = agents.New("greeter", "Greets you by name.")
	weather      = agents.NewTool(greeterAgent, "weather", "Today's weather in a city",
		func(ctx context.Context, city string) (string, error) { return "sunny in " + city, nil })
)

// An agent is a Go function of a turn: it asks the user through elicit,
// shows progress with notify, calls the model with sample and tools, and
// logs. The README's "Writing an agent" shows this same code.
func Example_writingAnAgent() {
	greeter := agents.Assistant{
		Name:        "greeter",
		Description: "Greets you by name.",
		Turn: func(ctx context.Context, message string) (string, error) {
			who, err := runtime.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
			if err != nil {
				return "", err
			}
			if who.Action != elicit.Accept {
				return "Hello, stranger.", nil // declined, cancelled or off-script
			}
			if err := runtime.Notify(ctx, "Looking outside", 0.5); err != nil {
				return "", err
			}
			sky, err := weather.Call(ctx, "Lisbon")
			if err != nil {
				return "", err
			}
			out, err := runtime.Sample(ctx, llm.Request{Messages: []llm.Message{
				{Role: llm.User, Content: fmt.Sprintf("Greet %s; it is %s.", who.Content.Name, sky)}}})
			if err != nil {
				return "", err
			}
			runtime.Log(ctx, slog.LevelInfo, "greeted", "name", who.Content.Name)
			return out.Content, nil
		},
	}
	// chat.New(chat.Config{Store: db, Agents: agents.NewRegistry(greeter), Model: model}) serves it.
	_ = agents.NewRegistry(greeter)
}

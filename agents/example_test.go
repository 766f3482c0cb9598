package agents_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
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
		Starters:    []string{"Hello!"}, // offered on a new conversation
		Turn: func(ctx context.Context, message string) (string, error) {
			who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
			if err != nil {
				return "", err
			}
			if who.Action != elicit.Accept {
				return "Hello, stranger.", nil // declined, cancelled or off-script
			}
			if err := turn.Notify(ctx, "Looking outside", 0.5); err != nil {
				return "", err
			}
			sky, err := weather.Call(ctx, "Lisbon")
			if err != nil {
				return "", err
			}
			out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{
				{Role: llm.User, Content: fmt.Sprintf("Greet %s; it is %s.", who.Content.Name, sky)}}})
			if err != nil {
				return "", err
			}
			turn.Log(ctx, slog.LevelInfo, "greeted", "name", who.Content.Name)
			return out.Content, nil
		},
	}
	// An application serves it: app.Config{Assistants: []agents.Assistant{greeter}}.

	// A test runs it against a scripted user and a scripted model
	// (agenttest.Run in a go test; Play here, where there is no test).
	got, err := agenttest.Play(context.Background(), greeter, "Hello!",
		agenttest.User(agenttest.Answer("What should I call you?", Greeting{Name: "Ana"})),
		agenttest.Model(agenttest.Reply("Hi Ana! It is sunny in Lisbon.")),
	)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Print(got)
	// Output:
	// user: Hello!
	// ask form "What should I call you?": accept {"name":"Ana"}
	// notify: Looking outside (50%)
	// tool greeter.weather("Lisbon"): "sunny in Lisbon"
	// model: Greet Ana; it is sunny in Lisbon. → Hi Ana! It is sunny in Lisbon.
	// log info: greeted name=Ana
	// reply: Hi Ana! It is sunny in Lisbon.
}

// Trip is a value the model is asked for with SampleAs: its JSON Schema
// comes from the type.
type Trip struct {
	Destination string `json:"destination" desc:"The city to travel to"`
	Date        string `json:"date" format:"date" desc:"The day of departure"`
}

// readTrip is a tool that reads a trip out of the user's words with the
// model, as a typed value.
var readTrip = agents.NewTool(greeterAgent, "readTrip", "Read where and when the user wants to travel",
	func(ctx context.Context, words string) (Trip, error) {
		trip, err := turn.SampleAs[Trip](ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: words}}})
		return trip.Value, err // an *turn.OutputError when the model could not say it twice
	})

// A model-driven agent hands the turn to the model: it is offered the tools
// of the agents listed, calls them (several at once when it likes), and may
// ask the user itself through ask_user, until it answers in words. The
// README's "Writing an agent" shows this same code.
func Example_modelDrivenAgent() {
	planner := agents.Assistant{
		Name:        "planner",
		Description: "Plans trips, with the model in charge.",
		Turn: agents.Loop{
			System:  "You plan trips. Read the trip, look at the weather, and ask the user when you must.",
			Agents:  []*agents.Agent{greeterAgent}, // weather and readTrip
			AskUser: true,
		}.Turn,
	}

	// A test scripts the model's every step, readTrip's own call included,
	// and the user's answer to the question the model asks.
	got, err := agenttest.Play(context.Background(), planner, "Lisbon next Friday?",
		agenttest.Model(
			agenttest.Call("readTrip", "Lisbon next Friday"),
			agenttest.Reply(`{"destination":"Lisbon","date":"2026-06-05"}`), // readTrip's SampleAs
			agenttest.Call("weather", "Lisbon"),
			agenttest.Call(agents.AskUserTool, agents.AskUserInput{Question: "Book Lisbon on 5 June?", Kind: "confirm"}),
			agenttest.Reply("Booked: Lisbon on 5 June, and it will be sunny."),
		),
		agenttest.User(agenttest.Answer("Book Lisbon on 5 June?", elicit.Confirmation{Yes: true})),
	)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Print(got)
	// Output:
	// user: Lisbon next Friday?
	// model: Lisbon next Friday? → readTrip("Lisbon next Friday")
	// model: Lisbon next Friday → {"destination":"Lisbon","date":"2026-06-05"}
	// tool greeter.readTrip("Lisbon next Friday"): {"destination":"Lisbon","date":"2026-06-05"}
	// model: {"destination":"Lisbon","date":"2026-06-05"} → weather("Lisbon")
	// tool greeter.weather("Lisbon"): "sunny in Lisbon"
	// model: "sunny in Lisbon" → ask_user({"question":"Book Lisbon on 5 June?","kind":"confirm"})
	// ask confirm "Book Lisbon on 5 June?": accept {"yes":true}
	// model: {"action":"accept","answer":{"yes":true}} → Booked: Lisbon on 5 June, and it will be sunny.
	// reply: Booked: Lisbon on 5 June, and it will be sunny.
}

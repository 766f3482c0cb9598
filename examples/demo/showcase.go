package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The showcase agent asks every kind of question there is, and shows a
// table and charts, chosen by what the user writes, so each can be tried
// from the browser and the terminal.

// Profile is a form with a field of every type a form can have.
type Profile struct {
	Name       string   `json:"name" title:"Name" min:"1" max:"80"`
	Age        int      `json:"age" title:"Age" min:"0" max:"130"`
	Height     float64  `json:"height,omitempty" title:"Height (m)" min:"0.3" max:"2.8"`
	Diet       string   `json:"diet" title:"Diet" enum:"anything,vegetarian,vegan" default:"anything"`
	Interests  []string `json:"interests,omitempty" title:"Interests" enum:"art,food,hiking,music" desc:"Pick any"`
	Newsletter bool     `json:"newsletter" title:"Send me the newsletter?"`
	About      string   `json:"about,omitempty" title:"About you" format:"multiline" max:"1000"`
}

var profileForm = elicit.Form[Profile]()

// Luggage is what the packer agent asks.
type Luggage struct {
	Bags int  `json:"bags" title:"Checked bags" min:"0" max:"5" default:"1"`
	Skis bool `json:"skis" title:"Bringing skis?"`
}

var luggageForm = elicit.Form[Luggage]()

// Packer and Diner are two agents the showcase runs at once, to show their
// questions queued together.
var (
	Packer = agents.New("packer", "Sorts out luggage.")
	Diner  = agents.New("diner", "Sorts out meals on board.")
)

// AskLuggage asks about bags.
var AskLuggage = agents.NewTool(Packer, "ask-luggage", "Ask how much luggage the user brings", func(ctx context.Context, _ struct{}) (string, error) {
	res, err := turn.Ask(ctx, luggageForm, "How much luggage are you bringing?", struct{}{})
	if err != nil || res.Action != elicit.Accept {
		return outcome(res.Action, "no luggage noted"), err
	}
	skis := ""
	if res.Content.Skis {
		skis = " and skis"
	}
	return fmt.Sprintf("%d checked bag(s)%s", res.Content.Bags, skis), nil
})

// AskMeal asks about the meal on board.
var AskMeal = agents.NewTool(Diner, "ask-meal", "Ask which meal the user wants on board", func(ctx context.Context, _ struct{}) (string, error) {
	res, err := turn.Ask(ctx, elicit.Choose, "Which meal would you like on board?",
		elicit.ChoiceInput{Options: []string{"pasta", "curry", "salad"}, Else: "Something else"})
	if err != nil || res.Action != elicit.Accept {
		return outcome(res.Action, "no meal chosen"), err
	}
	return res.Content.Picked() + " for the meal", nil
})

// noInput is the input of a demo that needs nothing from the model.
type noInput struct{}

// where is the location demo's input.
type where struct {
	Precise bool `json:"precise,omitempty" desc:"Whether the user wants their exact, precise position"`
}

// demo is a demo as the menu lists it.
type demo struct {
	label string
	run   func(ctx context.Context) (string, error)
}

// Demos returns the showcase's tools, one a kind of question or of figure
// (figures.go); the model picks the one the user's words ask for. The menu
// is offered first: it is what a model made to act picks when nothing else
// fits.
func Demos() *agents.Agent {
	a := agents.New("showcase", "Tries every kind of question.")
	var demos []demo
	agents.NewTool(a, "menu", "Show a menu of what can be tried here and let the user pick one",
		func(ctx context.Context, _ noInput) (string, error) { return showMenu(ctx, demos) })
	demos = []demo{
		declare(a, "shareLocation", "Share my location", "Ask where the user is: locate their device (where am I, near me, my location)", showLocation),
		declare(a, "giveFile", "Give a file", "Ask the user for a file (a spreadsheet, a document, a picture) and say what is in it", showFile),
		declare(a, "pasteClipboard", "Paste from my clipboard", "Read and paste what the user's clipboard holds", showPaste),
		declare(a, "copyToClipboard", "Copy something to my clipboard", "Copy a booking code to the user's clipboard", showCopy),
		declare(a, "confirmDelete", "Confirm something", "Ask the user to confirm deleting their drafts: a yes/no, are you sure", showConfirm),
		declare(a, "pickColour", "Pick a colour", "Ask the user to pick or choose a colour (color) for the theme", showChoice),
		declare(a, "approveArchive", "Approve a tool call", "Ask the user to approve or deny a tool call that archives their old drafts: an approval, a permission, consent", showApproval),
		declare(a, "bookFlight", "Book a flight", "Book a flight: the user picks one and a seat", showFlight),
		declare(a, "askTogether", "Two agents at once", "Ask about luggage and meals together: two agents queue their questions at once, both", showTogether),
		declare(a, "fillProfile", "Fill in a profile", "Ask the user to fill in a profile form about themselves", showProfile),
		declare(a, "compareFares", "Compare fares (a table and a chart)", "Compare the fares and prices of flights: show a table and a bar chart of them", showFares),
		declare(a, "showTemperatures", "Temperatures through the year (a line chart)", "Show temperatures, the weather through the year, as a line chart", showTemperatures),
		declare(a, "takePhoto", "Take a photo", "Take a photo, a selfie or a snapshot with the user's camera", showPhoto),
		declare(a, "notifyMe", "Send me a notification", "Notify the user: show a notification, an alert, on their desktop", showNotification),
		declare(a, "waitTenSeconds", "Wait ten seconds", "Wait ten seconds (a timer, a pause, sleep, remind me shortly), then tell the user the time is up", showWait),
	}
	return a
}

// declare adds a demo to a as a tool, and returns it as the menu lists it.
func declare[In any](a *agents.Agent, name, label, description string, run func(ctx context.Context, in In) (string, error)) demo {
	agents.NewTool(a, name, description, run)
	var zero In
	return demo{label, func(ctx context.Context) (string, error) { return run(ctx, zero) }}
}

// showMenu lists the demos and runs the one the user picks.
func showMenu(ctx context.Context, demos []demo) (string, error) {
	labels := make([]string, len(demos))
	for i, d := range demos {
		labels[i] = d.label
	}
	res, err := turn.Ask(ctx, elicit.Choose, "What would you like to try?", elicit.ChoiceInput{Options: labels})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "Nothing tried."), nil
	}
	for _, d := range demos {
		if d.label == res.Content.Option {
			return d.run(ctx)
		}
	}
	return "", fmt.Errorf("no demo %q", res.Content.Option) // the schema's enum makes this impossible
}

// Showcase is the assistant that tries every kind of question. The model
// picks the demo the user's words ask for, made to act at once; a demo's
// result is the reply, as it is.
func Showcase() agents.Assistant {
	loop := agents.Loop{
		System: "You show what this app can ask and show a user. Call the tool that fits the user's words; when none fits, call menu.",
		Agents: []*agents.Agent{Demos()},
		Choice: llm.ToolRequired,
		Direct: func(results []agents.Result) string {
			texts := make([]string, len(results))
			for i, r := range results {
				texts[i] = r.Text()
			}
			return strings.Join(texts, "\n\n")
		},
	}
	return agents.Assistant{
		Name:        "showcase",
		Description: "Asks every kind of question: location, a file, clipboard, yes/no, a choice, a flight, a form, an approval, two agents at once, a photo, a desktop notification; waits ten seconds; shows a table and charts.",
		Turn:        loop.Turn,
		Starters:    []string{"Show me what you can ask", "Compare fares in a table and a chart"},
	}
}

// outcome words an answer that is not accept.
func outcome(a elicit.Action, none string) string {
	switch a {
	case elicit.Decline:
		return "You declined — " + none
	case elicit.Cancel:
		return "You dismissed the question — " + none
	case elicit.Denied:
		return "Permission was refused — " + none
	case elicit.Unsupported:
		return "Your device can't do that here — " + none
	}
	return none
}

func showLocation(ctx context.Context, in where) (string, error) {
	accuracy := "low"
	if in.Precise {
		accuracy = "high"
	}
	var heard stages
	res, err := turn.AskWithProgress(ctx, elicit.LocateDevice, "May I see where you are?", elicit.LocationInput{Accuracy: accuracy},
		func(p elicit.Progress) { heard.add(p.Stage) })
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "I don't know where you are."), nil
	}
	l := res.Content
	return fmt.Sprintf("You are at %.4f, %.4f (within %.0f m).%s", l.Lat, l.Lng, l.Accuracy, heard.said()), nil
}

func showPaste(ctx context.Context, _ noInput) (string, error) {
	res, err := turn.Ask(ctx, elicit.ReadClipboard, "May I read your clipboard?", elicit.ClipboardReadInput{Purpose: "to quote it back"})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "I didn't read your clipboard."), nil
	}
	text := res.Content.Text
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…"
	}
	return fmt.Sprintf("Your clipboard holds %d characters: “%s”", len([]rune(res.Content.Text)), text), nil
}

func showCopy(ctx context.Context, _ noInput) (string, error) {
	code := fmt.Sprintf("SWEAT-%04d", turn.Random(ctx)%10000)
	res, err := turn.Ask(ctx, elicit.WriteClipboard, "Here is your booking code. Copy it to your clipboard?", elicit.ClipboardWriteInput{Text: code})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "nothing was copied. Your code is "+code+"."), nil
	}
	return "Copied " + code + " to your clipboard.", nil
}

func showConfirm(ctx context.Context, _ noInput) (string, error) {
	res, err := turn.Ask(ctx, elicit.Confirm, "Delete all your drafts?", elicit.ConfirmInput{Yes: "Delete them", No: "Keep them", Destructive: true})
	if err != nil {
		return "", err
	}
	switch {
	case res.Action == elicit.Other:
		return fmt.Sprintf("You said “%s” — I'll leave your drafts alone.", res.Text), nil
	case res.Action != elicit.Accept:
		return outcome(res.Action, "your drafts are untouched."), nil
	case res.Content.Yes:
		return "Done: your drafts are deleted.", nil
	}
	return "Kept: your drafts are untouched.", nil
}

func showChoice(ctx context.Context, _ noInput) (string, error) {
	res, err := turn.Ask(ctx, elicit.Choose, "Which colour should the theme be?",
		elicit.ChoiceInput{Options: []string{"red", "green", "blue"}, Else: "Another colour"})
	if err != nil {
		return "", err
	}
	switch res.Action {
	case elicit.Accept:
		if res.Content.Else != "" {
			return "A colour of your own: " + res.Content.Else + ".", nil
		}
		return "The theme is now " + res.Content.Option + ".", nil
	case elicit.Other:
		return fmt.Sprintf("You said “%s” — the theme stays as it is.", res.Text), nil
	}
	return outcome(res.Action, "the theme stays as it is."), nil
}

func showFlight(ctx context.Context, _ noInput) (string, error) {
	return bookFlight(ctx, "Lisbon")
}

func showTogether(ctx context.Context, _ noInput) (string, error) {
	var bags, meal string
	err := turn.Together(ctx,
		func(ctx context.Context) (err error) { bags, err = AskLuggage.Call(ctx, struct{}{}); return err },
		func(ctx context.Context) (err error) { meal, err = AskMeal.Call(ctx, struct{}{}); return err },
	)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("All set: %s; %s.", bags, meal), nil
}

func showProfile(ctx context.Context, _ noInput) (string, error) {
	res, err := turn.Ask(ctx, profileForm, "Tell me about yourself:", struct{}{})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "no profile saved."), nil
	}
	p := res.Content
	interests := "no particular interests"
	if len(p.Interests) > 0 {
		interests = strings.Join(p.Interests, ", ")
	}
	return fmt.Sprintf("Saved: %s, %d, eats %s, likes %s, newsletter %v.", p.Name, p.Age, p.Diet, interests, p.Newsletter), nil
}

// showWait waits ten seconds durably (turn.Wait): the wait is in the
// conversation, which the page shows with its time, and it ends on time
// after a restart too.
func showWait(ctx context.Context, _ noInput) (string, error) {
	if err := turn.Wait(ctx, elicit.WaitInput{Until: turn.Now(ctx).Add(10 * time.Second), For: "Ten seconds, then I tell you"}); err != nil {
		return "", err
	}
	return "Ten seconds are up. The wait was kept in the conversation, so it would have ended on time after a restart too.", nil
}

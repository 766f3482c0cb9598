package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
)

// The showcase agent asks every kind of question there is, chosen by what
// the user writes, so each can be tried from the browser and the terminal.

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
	res, err := runtime.Ask(ctx, luggageForm, "How much luggage are you bringing?", struct{}{})
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
	res, err := runtime.Ask(ctx, elicit.Choose, "Which meal would you like on board?",
		elicit.ChoiceInput{Options: []string{"pasta", "curry", "salad"}, Else: "Something else"})
	if err != nil || res.Action != elicit.Accept {
		return outcome(res.Action, "no meal chosen"), err
	}
	return res.Content.Picked() + " for the meal", nil
})

// demos are what the showcase can do, by the words that call for each.
var demos = []struct {
	name  string
	words []string
	run   func(ctx context.Context, message string) (string, error)
}{
	{"Share my location", []string{"location", "where am i", "locate", "near me"}, showLocation},
	{"Paste from my clipboard", []string{"paste", "clipboard", "read"}, showPaste},
	{"Copy something to my clipboard", []string{"copy"}, showCopy},
	{"Confirm something", []string{"confirm", "sure", "delete"}, showConfirm},
	{"Pick a colour", []string{"colour", "color", "pick", "choose"}, showChoice},
	{"Book a flight", []string{"flight", "fly", "book"}, showFlight},
	{"Two agents at once", []string{"together", "both", "queue", "two"}, showTogether},
	{"Fill in a profile", []string{"form", "profile"}, showProfile},
}

// Showcase is the assistant that tries every kind of question.
func Showcase() agents.Assistant {
	return agents.Assistant{
		Name:        "showcase",
		Description: "Asks every kind of question: location, clipboard, yes/no, a choice, a flight, a form, two agents at once.",
		Turn: func(ctx context.Context, message string) (string, error) {
			lower := strings.ToLower(message)
			for _, d := range demos {
				for _, w := range d.words {
					if strings.Contains(lower, w) {
						return d.run(ctx, message)
					}
				}
			}
			names := make([]string, len(demos))
			for i, d := range demos {
				names[i] = d.name
			}
			res, err := runtime.Ask(ctx, elicit.Choose, "What would you like to try?", elicit.ChoiceInput{Options: names})
			if err != nil {
				return "", err
			}
			if res.Action != elicit.Accept {
				return outcome(res.Action, "Nothing tried."), nil
			}
			for _, d := range demos {
				if d.name == res.Content.Option {
					return d.run(ctx, message)
				}
			}
			return "", fmt.Errorf("no demo %q", res.Content.Option) // the schema's enum makes this impossible
		},
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
	}
	return none
}

func showLocation(ctx context.Context, message string) (string, error) {
	accuracy := "low"
	if strings.Contains(strings.ToLower(message), "precise") || strings.Contains(strings.ToLower(message), "exact") {
		accuracy = "high"
	}
	var (
		mu     sync.Mutex // progress arrives on the reporting request's goroutine
		stages []string
	)
	res, err := runtime.AskWithProgress(ctx, elicit.LocateDevice, "May I see where you are?", elicit.LocationInput{Accuracy: accuracy},
		func(p elicit.Progress) { mu.Lock(); stages = append(stages, p.Stage); mu.Unlock() })
	if err != nil {
		return "", err
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Action != elicit.Accept {
		return outcome(res.Action, "I don't know where you are."), nil
	}
	l := res.Content
	steps := ""
	if len(stages) > 0 {
		steps = " Your device went through: " + strings.Join(stages, " → ") + "."
	}
	return fmt.Sprintf("You are at %.4f, %.4f (within %.0f m).%s", l.Lat, l.Lng, l.Accuracy, steps), nil
}

func showPaste(ctx context.Context, _ string) (string, error) {
	res, err := runtime.Ask(ctx, elicit.ReadClipboard, "May I read your clipboard?", elicit.ClipboardReadInput{Purpose: "to quote it back"})
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

func showCopy(ctx context.Context, _ string) (string, error) {
	code := fmt.Sprintf("SWEAT-%04d", runtime.Random(ctx)%10000)
	res, err := runtime.Ask(ctx, elicit.WriteClipboard, "Here is your booking code. Copy it to your clipboard?", elicit.ClipboardWriteInput{Text: code})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "nothing was copied. Your code is "+code+"."), nil
	}
	return "Copied " + code + " to your clipboard.", nil
}

func showConfirm(ctx context.Context, _ string) (string, error) {
	res, err := runtime.Ask(ctx, elicit.Confirm, "Delete all your drafts?", elicit.ConfirmInput{Yes: "Delete them", No: "Keep them"})
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

func showChoice(ctx context.Context, _ string) (string, error) {
	res, err := runtime.Ask(ctx, elicit.Choose, "Which colour should the theme be?",
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

func showFlight(ctx context.Context, _ string) (string, error) {
	return bookFlight(ctx, "Lisbon")
}

func showTogether(ctx context.Context, _ string) (string, error) {
	var bags, meal string
	err := runtime.Together(ctx,
		func(ctx context.Context) (err error) { bags, err = AskLuggage.Call(ctx, struct{}{}); return err },
		func(ctx context.Context) (err error) { meal, err = AskMeal.Call(ctx, struct{}{}); return err },
	)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("All set: %s; %s.", bags, meal), nil
}

func showProfile(ctx context.Context, _ string) (string, error) {
	res, err := runtime.Ask(ctx, profileForm, "Tell me about yourself:", struct{}{})
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

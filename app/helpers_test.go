package app

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// testName is the tests' application's name.
const testName = "greeter"

// greeting is what the tests' greeter asks for.
type greeting struct {
	Name string `json:"name" title:"Your name" min:"1"`
}

var greetingForm = elicit.Form[greeting]()

// testConfig is an application of the tests' own, which is not the demo:
// a greeter that asks the user's name with a form, and an echo.
func testConfig() Config {
	greeter := agents.Assistant{Name: "greeter", Description: "Greets you by name.",
		Turn: func(ctx context.Context, message string) (string, error) {
			who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
			if err != nil || who.Action != elicit.Accept {
				return "Hello, stranger.", err
			}
			return "Hello, " + who.Content.Name + "!", nil
		}}
	echo := agents.Assistant{Name: "echo", Description: "Says what you say.",
		Turn: func(ctx context.Context, message string) (string, error) { return message, nil }}
	return Config{Name: testName, Assistants: []agents.Assistant{greeter, echo}}
}

// runWith runs the program of cfg with args and an empty environment,
// returning what it printed and its error.
func runWith(cfg Config, args ...string) (stdout, stderr string, err error) {
	var out, errOut strings.Builder
	p := newProgram(cfg, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	p.interrupts = make(chan os.Signal)
	err = p.run(context.Background(), args)
	return out.String(), errOut.String(), err
}

// parseServe reads serve's flags of the tests' application from args and
// the environment getenv reads.
func parseServe(args []string, getenv func(string) string, stdout io.Writer) (serveConfig, error) {
	return newProgram(testConfig(), getenv, nil, stdout, io.Discard).parseServe(args)
}

// parseChat reads chat's flags of the tests' application.
func parseChat(args []string, getenv func(string) string, stdout io.Writer) (chatConfig, error) {
	return newProgram(testConfig(), getenv, nil, stdout, io.Discard).parseChat(args)
}

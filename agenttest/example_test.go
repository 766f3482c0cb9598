package agenttest_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// Play runs a turn where no test is at hand; a test calls Run, which
// fails the test with the error Play returns.
func ExamplePlay() {
	butler := agents.Assistant{Name: "butler", Turn: func(ctx context.Context, message string) (string, error) {
		tea, err := turn.Ask(ctx, elicit.Confirm, "Some tea?", elicit.ConfirmInput{})
		if err != nil || tea.Action != elicit.Accept || !tea.Content.Yes {
			return "Very well.", err
		}
		out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Announce the tea."}}})
		return out.Content, err
	}}
	got, err := agenttest.Play(context.Background(), butler, "Good morning",
		agenttest.User(agenttest.Answer("Some tea?", elicit.Confirmation{Yes: true})),
		agenttest.Model(agenttest.Reply("Tea is served.")),
	)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Print(got)
	// Output:
	// user: Good morning
	// ask confirm "Some tea?": accept {"yes":true}
	// model: Announce the tea. → Tea is served.
	// reply: Tea is served.
}

// A scripted model that writes ask_user with a field of no name: the loop
// would tell the model, and no question would be asked; the run stops
// there and says so.
func ExamplePlay_strict() {
	host := agents.Assistant{Name: "host", Turn: agents.Loop{AskUser: true}.Turn}
	_, err := agenttest.Play(context.Background(), host, "A table, please",
		agenttest.Model(
			agenttest.Call(agents.AskUserTool, map[string]any{"question": "For how many?", "kind": "form",
				"fields": []map[string]any{{"label": "People", "type": "integer"}}}),
			agenttest.Reply("A table for two it is."),
		),
		agenttest.User(agenttest.Answer("For how many?", map[string]any{"people": 2})),
	)
	fmt.Println(err)
	// Output:
	// the run did not follow the script:
	//   - model call 1 (step 1): the script calls ask_user with arguments that do not fit its input (fields[0].name: is required): {"fields":[{"label":"People","type":"integer"}],"kind":"form","question":"For how many?"}
	// what happened:
	//     user: A table, please
	//     model: A table, please → the script broke here
	//     failed: the script broke
}

// A scripted user gives a file to a turn that asks for one: the turn gets
// it named, typed and sized, and turn.OpenFile reads the bytes given.
func ExampleGiveFile() {
	counter := agents.Assistant{Name: "counter", Turn: func(ctx context.Context, message string) (string, error) {
		res, err := turn.Ask(ctx, elicit.AskFile, "Which list?", elicit.FileInput{Accept: []string{"text/csv"}})
		if err != nil || res.Action != elicit.Accept {
			return "No list.", err
		}
		b, err := turn.ReadFile(ctx, res.Content.ID)
		return fmt.Sprintf("%s has %d rows.", res.Content.Name, bytes.Count(b, []byte("\n"))-1), err
	}}
	got, err := agenttest.Play(context.Background(), counter, "Count my guests",
		agenttest.User(agenttest.GiveFile("Which list?", "guests.csv", []byte("name\nAna\nBo\n"))),
	)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Print(got)
	// Output:
	// user: Count my guests
	// ask file "Which list?": accept {"id":"file-1","name":"guests.csv","type":"text/csv","size":12}
	// reply: guests.csv has 2 rows.
}

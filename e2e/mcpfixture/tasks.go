package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The tools the tasks scenarios (the tasks extension, SEP-2663) call, and
// which of them are served as tasks. Every one is a plain tool: that its
// call is a task is the binding's doing, named in app.MCP.Tasks.

type greeting struct {
	Name string `json:"name"`
}

type computation struct {
	Seconds float64 `json:"seconds" desc:"How long to work, in seconds"`
	Label   string  `json:"label,omitempty" desc:"A label the result repeats"`
}

type deletion struct {
	Filename string `json:"filename" desc:"The file to delete"`
}

type confirmDelete struct {
	Confirm bool `json:"confirm"`
}

type entry struct {
	Name    string `json:"name,omitempty"`
	Confirm bool   `json:"confirm,omitempty"`
}

var (
	confirmDeleteForm = elicit.Form[confirmDelete]()
	entryForm         = elicit.Form[entry]()
)

// turnEnding is an error that ends the call's turn rather than being the
// tool's result: the task fails, as a protocol error, not a tool error.
type turnEnding struct{ error }

func (turnEnding) EndsTurn() bool { return true }

// taskTools are the fixture's tools served as tasks, by qualified name.
func taskTools() map[string]app.MCPTask {
	q := func(tool string) string { return mcp.QualifiedName("conformance", tool) }
	return map[string]app.MCPTask{
		q("slow_compute"):        {},
		q("failing_job"):         {Required: true},
		q("protocol_error_job"):  {},
		q("confirm_delete"):      {},
		q("multi_input"):         {},
		q("test_tool_with_task"): {Required: true, AfterInput: true},
	}
}

func addTaskTools(a *agents.Agent) {
	agents.NewTool(a, "greet", "Greets someone, at once", func(_ context.Context, in greeting) (agents.Content, error) {
		return text(fmt.Sprintf("Hello, %s!", in.Name)), nil
	})
	agents.NewTool(a, "slow_compute", "Works for the seconds asked, then answers", func(ctx context.Context, in computation) (agents.Content, error) {
		if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
			return agents.Content{}, err
		}
		return text(fmt.Sprintf("Computed %s in %gs", in.Label, in.Seconds)), nil
	})
	agents.NewTool(a, "failing_job", "Fails after a second", func(ctx context.Context, _ none) (agents.Content, error) {
		if err := sleep(ctx, time.Second); err != nil {
			return agents.Content{}, err
		}
		return agents.Content{}, errors.New("the job failed, as it always does")
	})
	agents.NewTool(a, "protocol_error_job", "Breaks off its turn", func(context.Context, none) (agents.Content, error) {
		return agents.Content{}, turnEnding{errors.New("the job broke off its turn")}
	})
	agents.NewTool(a, "confirm_delete", "Asks before it deletes a file", func(ctx context.Context, in deletion) (agents.Content, error) {
		r, err := turn.Ask(ctx, confirmDeleteForm, fmt.Sprintf("Delete %s?", in.Filename), struct{}{})
		if err != nil {
			return agents.Content{}, err
		}
		if r.Action != elicit.Accept || !r.Content.Confirm {
			return text(fmt.Sprintf("%s was kept", in.Filename)), nil
		}
		return text(fmt.Sprintf("%s was deleted", in.Filename)), nil
	})
	agents.NewTool(a, "multi_input", "Asks two questions at once", func(ctx context.Context, _ none) (agents.Content, error) {
		var first, second elicit.Result[entry]
		ask := func(r *elicit.Result[entry], msg string) func(context.Context) error {
			return func(ctx context.Context) (err error) {
				*r, err = turn.Ask(ctx, entryForm, msg, struct{}{})
				return err
			}
		}
		if err := turn.Together(ctx, ask(&first, "First entry?"), ask(&second, "Second entry?")); err != nil {
			return agents.Content{}, err
		}
		return text(fmt.Sprintf("Entries: %s, %s", first.Content.Name, second.Content.Name)), nil
	})
	agents.NewTool(a, "test_tool_with_task", "Asks a name, then works on it", func(ctx context.Context, _ none) (agents.Content, error) {
		r, err := turn.Ask(ctx, nameForm, "What is your name?", struct{}{})
		if err != nil {
			return agents.Content{}, err
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return agents.Content{}, err
		}
		return text(fmt.Sprintf("Done for %s", r.Content.Name)), nil
	})
}

// sleep waits d, or until the call is stopped.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

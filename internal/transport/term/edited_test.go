package term

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Arguments edited at the terminal into ones a rule forbids are refused,
// naming the rule, and nothing is recorded; the approval is asked again
// with what was typed, and a deny then goes to the model.
func TestRunRefusesAnEditTheRulesForbid(t *testing.T) {
	model := llmtest.NewServer(t,
		llmtest.Reply{Chunks: []string{"I'll keep that for you."},
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "remember_note", Arguments: `{"text":"buy milk"}`}}},
		llmtest.Text("Not noted."))
	forbid := policy.Rule{Action: policy.FinalDeny, Tool: "notes/remember_note", When: policy.If("text", "~", "*password*")}
	db := storetest.Open(t)
	c := startConsoleOn(t, db, chat.Config{
		Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...),
		Model: openai.New(openai.Config{APIKey: "test", BaseURL: model.URL, Model: "gpt-test"}),
		Scope: func(ctx context.Context) context.Context { return policy.Program(ctx, forbid) },
	}, Config{Agent: "assistant"})
	c.expect("you> ")
	c.send("Remember to buy milk")
	c.expect("[o/c/a/d/e]: ")
	c.send("e")
	c.expect("(Enter keeps them): ")
	c.send(`{"text":"my password is hunter2"}`)
	c.expect("[o/c/a/d/e]: ")
	c.send("o")
	c.expect("! Arguments are forbidden by a rule: " + forbid.String())
	c.expect(`The arguments you typed: {"text":"my password is hunter2"}`)
	c.expect("[o/c/a/d/e]: ")
	convs, err := db.Conversations(t.Context(), "s")
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations: %v %v", convs, err)
	}
	if got := countKind(t, db, convs[0].ID, tree.ElicitResponse); got != 0 {
		t.Fatalf("%d answers recorded after the refused edit, want 0", got)
	}
	c.send("d")
	c.expect("Why not?")
	c.send("")
	c.expect("Not noted.")
	if got := countKind(t, db, convs[0].ID, tree.ToolCall); got != 1 {
		t.Errorf("%d tool calls recorded, want the denied one", got)
	}
	if strings.Contains(c.text(), "Noted: my password") {
		t.Errorf("the forbidden note was kept:\n%s", c.text())
	}
}

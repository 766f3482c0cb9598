package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// Arguments edited on the card into ones a rule forbids are refused on
// the card, naming the rule, with what was typed kept and the card still
// waiting; fixed, the edited call runs, and the audit holds it alone.
func TestAnEditTheRulesForbidIsRefusedOnTheCard(t *testing.T) {
	t.Parallel()
	rules := filepath.Join(t.TempDir(), "policy.rules")
	if err := os.WriteFile(rules, []byte("finalDeny notes/remember_note if text ~ \"*password*\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewServer(t,
		llmtest.Reply{Chunks: []string{"I'll keep that for you."},
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "remember_note", Arguments: `{"text":"buy milk"}`}}},
		llmtest.Text("Noted."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL, "SWEATPANTS_POLICY="+rules)
	p := openAgent(t, a, "assistant")
	q := p.start("Remember to buy milk", "approval")
	editor := q.GetByTestId("approval-args-editor")
	p.must(q.GetByTestId("approval-edit-toggle").Click())
	typed := `{"text": "my password is hunter2"}`
	p.must(editor.Fill(typed))
	p.must(q.GetByTestId("approval-once").Click())
	p.must(expect.Locator(q.GetByTestId("error-args")).ToContainText(`Arguments are forbidden by a rule: finalDeny notes/remember_note if text ~ *password*`))
	p.must(expect.Locator(editor).ToHaveValue(typed))
	p.must(expect.Locator(editor).ToHaveAttribute("aria-invalid", "true"))
	p.must(expect.Locator(q).ToHaveAttribute("data-state", "pending"))

	// Fixed: the edited call runs, and is the one recorded.
	p.must(editor.Fill(`{"text": "buy oat milk"}`))
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Noted.")
	_, err := p.Goto(a.URL + "/tools")
	p.must(err)
	rows := p.GetByTestId("tool-call")
	p.must(expect.Locator(rows).ToHaveCount(1))
	p.must(expect.Locator(rows.First().GetByTestId("tool-args")).ToHaveText(`{"text":"buy oat milk"}`))
	p.must(expect.Locator(rows.First().GetByTestId("tool-decision")).ToContainText("allowed by you"))
}

package e2e

import (
	"regexp"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// Consent from end to end, in Chromium, with a model that asks for a tool
// that writes: the card comes up; the user edits the argument and allows
// once, and the edited call is the one that runs; a second call is allowed
// for the conversation, and the next runs without a card; the user edits
// the message the conversation's choice was given under, and the new
// branch asks again. The audit page lists every call made, newest first,
// nothing missing: with the arguments each ran with and who decided it.
func TestConsentFromTheCardToTheAudit(t *testing.T) {
	t.Parallel()
	note := func(reason, text string) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{reason},
			ToolCalls: []llmtest.ToolCall{{ID: "call_" + text, Name: "remember_note", Arguments: `{"text":"` + text + `"}`}}}
	}
	model := llmtest.NewServer(t,
		note("I'll keep that for you.", "buy milk"), llmtest.Text("Noted: buy oat milk."),
		note("Noting it.", "call mum"), llmtest.Text("Noted: call mum."),
		note("Noting it too.", "water the plants"), llmtest.Text("Noted: water the plants."),
		note("Noting the new one.", "call dad"), llmtest.Text("Noted: call dad."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	cards := p.Locator(`[data-testid=elicit][data-kind=approval]`)

	// The model's call, shown; the argument edited, allowed once.
	q := p.start("Remember to buy milk", "approval")
	p.must(expect.Locator(q.GetByTestId("approval-tool")).ToHaveText("remember_note"))
	p.must(expect.Locator(q.GetByTestId("approval-agent")).ToHaveText("of notes"))
	p.must(expect.Locator(q.GetByTestId("approval-effects")).ToHaveText("changes data"))
	p.must(expect.Locator(q.Locator("[data-testid=approval-args] [data-arg=text]")).ToHaveText("buy milk"))
	p.must(expect.Locator(q.GetByTestId("approval-reason")).ToContainText("I'll keep that for you."))
	p.must(q.GetByTestId("approval-edit-toggle").Click())
	p.must(q.GetByTestId("approval-args-editor").Fill(`{"text": "buy oat milk"}`))
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Noted: buy oat milk.")
	p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Allowed once, with the arguments you edited"))

	// Allowed for the conversation: the next call asks no more.
	q = p.ask("Remember to call mum", "approval")
	p.must(q.GetByTestId("approval-conversation").Click())
	p.replied("Noted: call mum.")
	p.send("Remember to water the plants")
	p.replied("Noted: water the plants.")
	p.must(expect.Locator(cards).ToHaveCount(2))

	// An edit of the message the choice was given under: the new branch
	// has no such choice, and asks.
	turn := p.GetByTestId("user-turn").Nth(1)
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("Remember to call dad"))
	p.must(turn.GetByTestId("edit-send").Click())
	q = p.active()
	p.must(expect.Locator(q).ToHaveAttribute("data-kind", "approval"))
	p.must(expect.Locator(q.Locator("[data-testid=approval-args] [data-arg=text]")).ToHaveText("call dad"))
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Noted: call dad.")

	// The audit: every call made, newest first, as it ran, and who let it.
	_, err := p.Goto(a.URL + "/tools")
	p.must(err)
	rows := p.GetByTestId("tool-call")
	p.must(expect.Locator(rows).ToHaveCount(4))
	for i, want := range []struct{ args, decision string }{
		{`{"text":"call dad"}`, "allowed by you"},
		{`{"text":"water the plants"}`, "allowed by your earlier choice"},
		{`{"text":"call mum"}`, "allowed by you"},
		{`{"text":"buy oat milk"}`, "allowed by you"},
	} {
		row := rows.Nth(i)
		p.must(expect.Locator(row.GetByTestId("tool-name")).ToHaveText("remember_note"))
		p.must(expect.Locator(row.GetByTestId("tool-args")).ToHaveText(want.args))
		p.must(expect.Locator(row.GetByTestId("tool-decision")).ToContainText(want.decision))
		p.must(expect.Locator(row.GetByTestId("tool-outcome")).ToContainText("ok"))
	}
	p.must(expect.Locator(rows.Nth(0).GetByTestId("tool-conversation")).ToHaveAttribute("href", regexp.MustCompile(`^/c/[0-9a-f]+$`)))
}

// "Always allow" is a setting of the browser's session: the tool runs
// without a card in another conversation, the settings page lists it, and
// once revoked there the next call asks again.
func TestAlwaysAllowIsASettingToRevoke(t *testing.T) {
	t.Parallel()
	note := func(text string) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"Noting it."},
			ToolCalls: []llmtest.ToolCall{{ID: "call_" + text, Name: "remember_note", Arguments: `{"text":"` + text + `"}`}}}
	}
	model := llmtest.NewServer(t,
		note("buy milk"), llmtest.Text("Noted: buy milk."),
		note("call mum"), llmtest.Text("Noted: call mum."),
		note("water the plants"), llmtest.Text("Noted: water the plants."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	q := p.start("Remember to buy milk", "approval")
	p.must(q.GetByTestId("approval-always").Click())
	p.replied("Noted: buy milk.")
	p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Always allowed"))

	// Another conversation of the session: no card.
	_, err := p.Goto(a.URL + "/new?agent=assistant")
	p.must(err)
	p.send("Remember to call mum")
	p.replied("Noted: call mum.")
	p.must(expect.Locator(p.Locator(`[data-testid=elicit]`)).ToHaveCount(0))

	// The setting, revoked: the next call asks.
	p.must(p.GetByTestId("permissions-link").Click())
	rule := p.GetByTestId("always-rule")
	p.must(expect.Locator(rule).ToHaveCount(1))
	p.must(expect.Locator(rule.GetByTestId("always-tool")).ToHaveText("remember_note"))
	p.must(rule.GetByTestId("revoke").Click())
	p.must(expect.Locator(p.GetByTestId("always-none")).ToHaveText("None yet."))
	_, err = p.Goto(a.URL + "/new?agent=assistant")
	p.must(err)
	q = p.start("Remember to water the plants", "approval")
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Noted: water the plants.")
}

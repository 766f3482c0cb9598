package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/turn"
)

// TestALongConversationStaysWithinTheContext: at the terminal, with a
// real-wire model whose replies are long, an assistant that sends the
// model the whole history has every request trimmed to the default
// budget, the user's latest message always sent.
func TestALongConversationStaysWithinTheContext(t *testing.T) {
	// Each reply is 40,000 tokens as estimated: three do not fit.
	const turns = 5
	srv := llmtest.NewServer(t)
	for i := range 2 * turns {
		srv.Add(llmtest.Text(fmt.Sprintf("Reply %d: %s", i+1, strings.Repeat("x", 160_000))))
	}
	cfg := Config{Name: testName, Assistants: []agents.Assistant{{Name: "reader", Description: "Reads everything.",
		Turn: func(ctx context.Context, message string) (string, error) {
			history, err := turn.History(ctx)
			if err != nil {
				return "", err
			}
			if n := len(history); n == 0 || history[n-1].Content != message {
				history = append(history, llm.Message{Role: llm.User, Content: message})
			}
			resp, err := turn.Sample(ctx, llm.Request{Messages: history})
			return resp.Content, err
		}}}}
	var lines []string
	for i := range turns {
		lines = append(lines, fmt.Sprintf("Question %d?", i+1))
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL}
	var out strings.Builder
	p := newProgram(cfg, func(k string) string { return env[k] }, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, &out)
	p.interrupts = make(chan os.Signal)
	if err := p.run(t.Context(), []string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) < turns {
		t.Fatalf("the model got %d requests, want one a message at least\n%s", len(reqs), strings.ReplaceAll(out.String(), strings.Repeat("x", 1000), "…"))
	}
	trimmed := 0
	for i, r := range reqs {
		tokens := 0
		for _, m := range r.Messages {
			tokens += 4 + (len(m.Content)+3)/4
		}
		if tokens > defaultContextTokens {
			t.Errorf("request %d holds %d tokens, over the budget of %d", i+1, tokens, defaultContextTokens)
		}
		for _, m := range r.Messages {
			if m.Role == "system" && strings.HasSuffix(m.Content, "omitted)") {
				trimmed++
			}
		}
	}
	for i, line := range lines {
		last := reqs[i].Messages[len(reqs[i].Messages)-1]
		if last.Role != "user" || last.Content != line {
			t.Errorf("request %d does not end with message %d", i+1, i+1)
		}
	}
	if trimmed == 0 {
		t.Error("no request was trimmed: the test sends too little")
	}
}

package attach_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// FuzzMessage: whatever a text file holds and whatever the budget, the
// text Message writes reads back as the words said and the one file, whose
// content given is the file's beginning, and a file given keeps to the
// budget.
func FuzzMessage(f *testing.F) {
	f.Add("hello", "a,b\n1,2\n", 100)
	f.Add("", "```\ncode\n```\n", 40)
	f.Add("Attached file x.txt (1 byte, text/plain):\n```\nx\n```", "é\nü\n", 60)
	f.Add("a\n\n", strings.Repeat("line\n", 300), 90)
	f.Fuzz(func(t *testing.T, said, content string, budget int) {
		if !utf8.ValidString(content) || strings.ContainsRune(content, 0) || budget < 0 || budget > 1<<16 ||
			strings.Contains(said, "Attached ") { // words imitating a file's lines are read as one
			t.Skip()
		}
		fs := newFiles(t)
		att := fs.add("f", "f.txt", "text/plain", content)
		m, err := attach.Message(context.Background(), user(said), []tree.Attachment{att}, fs.Open, budget)
		if err != nil {
			t.Fatal(err)
		}
		_, files := attach.Parse(m.Content)
		if len(files) == 0 {
			t.Fatalf("no file read back from %q", m.Content)
		}
		got := files[len(files)-1]
		if got.Name != "f.txt" || got.Kind != attach.Text {
			t.Fatalf("read back %+v from %q", got, m.Content)
		}
		if !got.LeftOut && !strings.HasPrefix(content, strings.TrimSuffix(got.Text, "\n")) {
			t.Fatalf("content given %q is not the file's beginning %q", got.Text, content)
		}
		added := history.EstimateTokens([]llm.Message{m}) - history.EstimateTokens([]llm.Message{user(said)})
		if !got.LeftOut && content != "" && added > budget {
			t.Fatalf("added %d tokens, over the budget of %d", added, budget)
		}
		if !got.LeftOut && !got.Trimmed && strings.TrimSuffix(got.Text, "\n") != strings.TrimSuffix(content, "\n") {
			t.Fatalf("untrimmed content given %q, want %q", got.Text, content)
		}
	})
}

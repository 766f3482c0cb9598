package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// TestChatGivesAFileByItsPath: at the chat command a file question is
// answered with a path; the assistant gets the file under its own name,
// typed and sized by the server, and reads its bytes.
func TestChatGivesAFileByItsPath(t *testing.T) {
	sum := agents.Assistant{Name: "summer", Description: "Sums a spending file.",
		Turn: func(ctx context.Context, message string) (string, error) {
			res, err := turn.Ask(ctx, elicit.AskFile, "Which spending file?", elicit.FileInput{Accept: []string{"text/csv"}})
			if err != nil || res.Action != elicit.Accept {
				return "No file, no sum.", err
			}
			b, err := turn.ReadFile(ctx, res.Content.ID)
			return fmt.Sprintf("Read %s (%s, %d bytes): %q", res.Content.Name, res.Content.Type, res.Content.Size, b), err
		}}
	csv := filepath.Join(t.TempDir(), "spending.csv")
	if err := os.WriteFile(csv, []byte("date,amount\n2026-11-01,12.50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	p := newProgram(Config{Name: testName, Assistants: []agents.Assistant{sum}}, func(string) string { return "" },
		strings.NewReader("Sum my spending\n"+csv+"\n"), &out, io.Discard)
	p.interrupts = make(chan os.Signal)
	if err := p.run(t.Context(), []string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}); err != nil {
		t.Fatalf("chat: %v\n%s", err, &out)
	}
	want := `summer> Read spending.csv (text/csv, 29 bytes): "date,amount\n2026-11-01,12.50\n"`
	if !strings.Contains(out.String(), want) {
		t.Errorf("the terminal lacks %s:\n%s", want, &out)
	}
}

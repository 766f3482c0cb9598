package agenttest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// accountant asks for a CSV statement of at most 1 KB and replies with
// the file it got and the lines it read of it.
var accountant = agents.Assistant{Name: "accountant", Turn: func(ctx context.Context, message string) (string, error) {
	res, err := turn.Ask(ctx, elicit.AskFile, "Which statement?", elicit.FileInput{Accept: []string{"text/csv"}, MaxSize: 1024})
	if err != nil || res.Action != elicit.Accept {
		return "No statement.", err
	}
	b, err := turn.ReadFile(ctx, res.Content.ID)
	if err != nil {
		return "", err
	}
	lines := strings.Count(string(b), "\n")
	return fmt.Sprintf("%s (%s, %d bytes): %d lines, first %q", res.Content.Name, res.Content.Type, res.Content.Size, lines, strings.SplitN(string(b), "\n", 2)[0]), nil
}}

const statement = "date,amount\n2026-11-01,12.50\n2026-11-02,3.20\n"

const statementRead = `march.csv (text/csv, 45 bytes): 3 lines, first "date,amount"`

// A scripted user gives a file as a user picks one: the turn gets it typed
// by its name and sized, and reads its bytes, in process.
func TestRunGivesAFile(t *testing.T) {
	ft := newFakeT(t)
	got := agenttest.Run(ft, accountant, "Sum March",
		agenttest.User(agenttest.GiveFile("Which statement?", "march.csv", []byte(statement)).Of("file")))
	if f := ft.failed(); f != "" {
		t.Fatalf("a correct script failed the test: %s", f)
	}
	if got.Reply != statementRead {
		t.Errorf("reply = %q, want %q", got.Reply, statementRead)
	}
	want := `ask file "Which statement?": accept {"id":"file-1","name":"march.csv","type":"text/csv","size":45}`
	if !strings.Contains(got.String(), want) {
		t.Errorf("the transcript lacks %s:\n%s", want, got)
	}
}

// The file a scripted user gives reaches the turn through the real
// service as well: its check, its record and a restart while the
// question waits.
func TestServeGivesAFile(t *testing.T) {
	t.Run("from the user's script", func(t *testing.T) {
		s := agenttest.Serve(t, accountant, agenttest.User(agenttest.GiveFile("Which statement?", "march.csv", []byte(statement))))
		if got := s.Send("Sum March").Reply(); got != statementRead {
			t.Errorf("reply = %q, want %q", got, statementRead)
		}
	})
	t.Run("from the test, after a restart", func(t *testing.T) {
		s := agenttest.Serve(t, accountant)
		c := s.Send("Sum March")
		if q := c.Question(); q.Kind != elicit.AskFile.Name {
			t.Fatalf("the question is %+v, want a file question", q)
		}
		s.Restart()
		c.GiveFile("march.csv", []byte(statement))
		if got := c.Reply(); got != statementRead {
			t.Errorf("reply = %q, want %q", got, statementRead)
		}
	})
}

// A file the question does not take is the script's problem, named as
// other misfits are, and the turn does not get it.
func TestAFileTheQuestionRefusesBreaksTheScript(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		want    []string
	}{
		{"a type it does not take", "march.xlsx", "PK\x03\x04",
			[]string{`user step 1 (GiveFile "Which statement?" (march.xlsx)) does not fit file "Which statement?"`, "this question takes text/csv"}},
		{"larger than it takes", "march.csv", strings.Repeat("1,2\n", 300),
			[]string{`user step 1 (GiveFile "Which statement?" (march.csv))`, "is 1.2 KB; the most this question takes is 1 KB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := agenttest.Play(t.Context(), accountant, "Sum March",
				agenttest.User(agenttest.GiveFile("Which statement?", tt.file, []byte(tt.content))))
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("got %v, want a problem saying %q", err, want)
				}
			}
			if got.Reply != "" {
				t.Errorf("the turn replied %q with the file refused", got.Reply)
			}
		})
	}
}

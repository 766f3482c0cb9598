package app

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// greeterReleased is the tests' greeter as a later release writes it: it
// says what it does before it asks, guarded by turn.Version or not.
func greeterReleased(versioned bool) Config {
	cfg := testConfig()
	cfg.Assistants[0].Turn = func(ctx context.Context, message string) (string, error) {
		if !versioned || turn.Version(ctx, "greet-with-notice", 1) >= 1 {
			if err := turn.Notify(ctx, "Getting to know you", -1); err != nil {
				return "", err
			}
		}
		who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
		if err != nil || who.Action != elicit.Accept {
			return "Hello, stranger.", err
		}
		return "Hello, " + who.Content.Name + "!", nil
	}
	return cfg
}

// TestCheckListsTheWaitingTurnsANewReleaseWouldBreak records a turn waiting
// on the greeter's question with one release, then checks the database with
// others, as a deploy script would before each: the program fails, naming
// the turn, only for the release whose change is not guarded by
// turn.Version, and leaves the database as it found it.
func TestCheckListsTheWaitingTurnsANewReleaseWouldBreak(t *testing.T) {
	db := filepath.Join(t.TempDir(), "greeter.db")
	var out, errOut strings.Builder
	p := newProgram(testConfig(), func(string) string { return "" }, strings.NewReader("Hello\n"), &out, &errOut)
	p.interrupts = make(chan os.Signal)
	if err := p.run(context.Background(), []string{"chat", "--db", db, "--agent", "greeter"}); err != nil {
		t.Fatalf("chat: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "What should I call you?") || !strings.Contains(out.String(), "stays open") {
		t.Fatalf("the greeter's question is not left waiting:\n%s", out.String())
	}
	before := snapshot(t, db)

	missing := filepath.Join(t.TempDir(), "typo.db")
	if _, _, err := runWith(testConfig(), "check", "--db", missing); err == nil || !strings.Contains(err.Error(), "no database to check at "+missing) {
		t.Errorf("check of a path with no database: err = %v, want it named", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("check created a database where there was none")
	}

	stdout, _, err := runWith(testConfig(), "check", "--db", db)
	if err != nil || !strings.Contains(stdout, "resumes") {
		t.Errorf("check with the release that recorded the turn: %v\n%s", err, stdout)
	}
	stdout, _, err = runWith(greeterReleased(false), "check", "--db", db)
	if err == nil || !strings.Contains(err.Error(), "1 waiting turn would not resume") {
		t.Errorf("check with an unguarded change: err = %v, want 1 waiting turn named", err)
	}
	if !strings.Contains(stdout, "greeter") || !strings.Contains(stdout, "Hello") {
		t.Errorf("check's report does not name the turn's assistant and conversation:\n%s", stdout)
	}
	stdout, _, err = runWith(greeterReleased(true), "check", "--db", db)
	if err != nil {
		t.Errorf("check with the change guarded by turn.Version: %v\n%s", err, stdout)
	}
	if after := snapshot(t, db); after != before {
		t.Error("check changed the database")
	}
}

// snapshot is the database's main file as it is on disk, its bytes and
// its time of change, which a check must leave alone.
func snapshot(t *testing.T, db string) string {
	t.Helper()
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime().String() + "\n" + string(b)
}

// TestCheckReadsALiveDatabaseWithWhatItsLogHolds: the server runs (it
// holds the database's lock) and everything it recorded is still in the
// write-ahead log, none of it in the database's file. check, given the
// database itself, finds the waiting turn there, as a deploy script runs
// it beside the live server, and leaves the file as it was; a copy of the
// file made without its -wal has no schema, and check refuses it rather
// than find nothing waiting.
func TestCheckReadsALiveDatabaseWithWhatItsLogHolds(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "greeter.db")
	// A reader that began before anything was recorded keeps the
	// checkpoints from copying what follows into the file.
	raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	reader, err := raw.BeginTx(t.Context(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Rollback()
	var tables int
	if err := reader.QueryRow(`SELECT COUNT(*) FROM sqlite_master`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("a fresh database has %d tables (%v)", tables, err)
	}
	var out, errOut strings.Builder
	p := newProgram(testConfig(), func(string) string { return "" }, strings.NewReader("Hello\n"), &out, &errOut)
	p.interrupts = make(chan os.Signal)
	if err := p.run(context.Background(), []string{"chat", "--db", db, "--agent", "greeter"}); err != nil {
		t.Fatalf("chat: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "stays open") {
		t.Fatalf("the greeter's question is not left waiting:\n%s", out.String())
	}
	release, err := lockDB("greeter", db) // the server, running on it
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	copied := filepath.Join(dir, "copied.db")
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, db)

	stdout, _, err := runWith(testConfig(), "check", "--db", db)
	if err != nil || !strings.Contains(stdout, "The one suspended turn resumes") {
		t.Errorf("check of the live database: %v\n%s", err, stdout)
	}
	if _, _, err := runWith(greeterReleased(false), "check", "--db", db); err == nil || !strings.Contains(err.Error(), "1 waiting turn would not resume") {
		t.Errorf("check of the live database with an unguarded change: err = %v, want 1 waiting turn named", err)
	}
	stdout, _, err = runWith(testConfig(), "check", "--db", copied)
	if err == nil || !strings.Contains(err.Error(), copied+" is not a database to check: it has no schema") {
		t.Errorf("check of the file copied without its -wal: err = %v, want it refused for having no schema\n%s", err, stdout)
	}
	if after := snapshot(t, db); after != before {
		t.Error("check changed the live database's file")
	}
	if got, err := os.ReadFile(copied); err != nil || string(got) != string(b) {
		t.Errorf("check changed the copy it refused (%v)", err)
	}
}

// TestCheckTrimsAsTheServerDoes: a waiting turn whose model call was sent
// whole resumes under the budget it was recorded with, and check says it
// would not under a budget that trims that call (--context-tokens): a
// deploy that changes the server's budget is checked with the new one.
func TestCheckTrimsAsTheServerDoes(t *testing.T) {
	cfg := testConfig()
	cfg.Assistants[0].Turn = func(ctx context.Context, message string) (string, error) {
		if _, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{
			{Role: llm.User, Content: "Earlier, a long question about trains."},
			{Role: llm.Assistant, Content: "And its long answer."},
			{Role: llm.User, Content: message},
		}}); err != nil {
			return "", err
		}
		who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
		if err != nil || who.Action != elicit.Accept {
			return "Hello, stranger.", err
		}
		return "Hello, " + who.Content.Name + "!", nil
	}
	db := filepath.Join(t.TempDir(), "greeter.db")
	var out, errOut strings.Builder
	p := newProgram(cfg, func(string) string { return "" }, strings.NewReader("Hello\n"), &out, &errOut)
	p.interrupts = make(chan os.Signal)
	if err := p.run(context.Background(), []string{"chat", "--db", db, "--agent", "greeter"}); err != nil {
		t.Fatalf("chat: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "stays open") {
		t.Fatalf("the greeter's question is not left waiting:\n%s", out.String())
	}
	if stdout, _, err := runWith(cfg, "check", "--db", db); err != nil {
		t.Errorf("check under the budget the turn was recorded with: %v\n%s", err, stdout)
	}
	if _, _, err := runWith(cfg, "check", "--db", db, "--context-tokens", "20"); err == nil || !strings.Contains(err.Error(), "1 waiting turn would not resume") {
		t.Errorf("check under a budget that trims the turn's model call: err = %v, want 1 waiting turn named", err)
	}
}

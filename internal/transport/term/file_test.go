package term

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/terminal"
	"github.com/sweatpants-go/sweatpants/turn"
)

// countingFiles is the real store, counting the files sent to it.
type countingFiles struct {
	*files.Store
	mu   sync.Mutex
	puts int
}

func (c *countingFiles) Put(ctx context.Context, session, name, declared string, r io.Reader, lim files.Limits) (files.File, error) {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	return c.Store.Put(ctx, session, name, declared, r, lim)
}

func (c *countingFiles) sent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.puts
}

// fileStore is a store of files on a temp database, under lim.
func fileStore(t *testing.T, lim files.Limits) *countingFiles {
	t.Helper()
	return &countingFiles{Store: files.New(storetest.Open(t), files.Options{Limits: lim, Spool: t.TempDir()})}
}

// writeFile writes content to a file called name in a temp folder and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// askFile asks in at a question whose files go to fs as session "s"'s, and
// returns the answer, the output and the stages reported.
func askFile(t *testing.T, fs Files, in elicit.FileInput, script ...string) (elicit.Response, string, []string) {
	t.Helper()
	req := request(t, elicit.AskFile, in)
	var stages []string
	lines := &reporting{Reader: strings.NewReader(strings.Join(script, "\n") + "\n"),
		report: func(p elicit.Progress) { stages = append(stages, p.Stage) }}
	out := &strings.Builder{}
	q := terminal.NewQuestion(req, lines, out)
	p := Builtin().For(req).(filePrompter)
	if fs != nil {
		p.upload = uploadTo(t.Context(), fs, "s")
	}
	resp, err := terminal.Answer(p, q)
	if err != nil {
		t.Fatalf("prompt: %v\n%s", err, out)
	}
	return resp, out.String(), stages
}

// reporting is a script of lines that hears the progress reported on its
// question.
type reporting struct {
	io.Reader
	report func(elicit.Progress)
}

func (r *reporting) ReportProgress(p elicit.Progress) { r.report(p) }

// The terminal takes a file question's answer as a path: it says what the
// question takes, sends the file to the session's store under its base
// name with the stages of its travel, and answers with the upload's id.
func TestPromptFileSendsTheFileAtThePath(t *testing.T) {
	fs := fileStore(t, files.Limits{})
	path := writeFile(t, "spending.csv", "date,amount\n2026-11-01,12.50\n")
	in := elicit.FileInput{Accept: []string{"text/csv", ".csv"}, MaxSize: 2 << 20, Reason: "to chart your spending"}
	resp, out, stages := askFile(t, fs, in, path)

	res, err := elicit.AskFile.Decode(resp)
	if err != nil || resp.Action != elicit.Accept {
		t.Fatalf("answer %s %s: %v", resp.Action, resp.Content, err)
	}
	got := res.Content
	if string(resp.Content) != `{"id":"`+got.ID+`"}` {
		t.Errorf("the answer is %s, want the upload's id alone", resp.Content)
	}
	f, err := fs.Stat(t.Context(), "s", got.ID)
	if err != nil {
		t.Fatalf("the upload is not the session's: %v", err)
	}
	if f.Name != "spending.csv" || f.Type != "text/csv" || f.Size != 29 {
		t.Errorf("stored %+v, want spending.csv, text/csv, 29 bytes", f)
	}
	if got, want := strings.Join(stages, ","), "uploading,stored"; got != want {
		t.Errorf("stages %s, want %s", got, want)
	}
	for _, want := range []string{"(to chart your spending)", "Types taken: text/csv, .csv", "At most: 2 MB", "Uploaded spending.csv (text/csv, 29 bytes)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
}

// A path that names no file the question could take is a problem said in
// place, and the path is asked again; nothing is sent before it is right.
func TestPromptFileAsksAgainForAPathItCannotSend(t *testing.T) {
	good := writeFile(t, "notes.txt", "hello")
	big := writeFile(t, "big.txt", strings.Repeat("x", 2048))
	notDir := filepath.Join(good, "inside.txt")
	tests := []struct {
		name  string
		in    elicit.FileInput
		lim   files.Limits
		typed string
		shown string
	}{
		{"no file there", elicit.FileInput{}, files.Limits{}, filepath.Join(t.TempDir(), "missing.txt"), "There is no file at "},
		{"a folder", elicit.FileInput{}, files.Limits{}, t.TempDir(), "is a folder; type the path of a file."},
		{"through a file", elicit.FileInput{}, files.Limits{}, notDir, notDir + " cannot be read: not a directory."},
		{"nothing typed", elicit.FileInput{}, files.Limits{}, "", "Type the path of a file on this computer. /d declines · /c cancels"},
		{"larger than the question takes", elicit.FileInput{MaxSize: 1024}, files.Limits{}, big, "big.txt is 2 KB; the most this question takes is 1 KB."},
		{"larger than the server takes", elicit.FileInput{}, files.Limits{MaxFile: 1024}, big, "big.txt is 2 KB; the most a file may be here is 1 KB."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := fileStore(t, tt.lim)
			resp, out, _ := askFile(t, fs, tt.in, tt.typed, good)
			if resp.Action != elicit.Accept {
				t.Fatalf("got %s, want the good file taken", resp.Action)
			}
			if !strings.Contains(out, "  ! ") || !strings.Contains(out, tt.shown) {
				t.Errorf("the terminal does not say %q:\n%s", tt.shown, out)
			}
			if n := fs.sent(); n != 1 {
				t.Errorf("%d files sent, want the good one alone", n)
			}
		})
	}
}

// A file the reader may not open is said so, and asked again.
func TestPromptFileSaysAFileCannotBeRead(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	locked := writeFile(t, "locked.txt", "secret")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	fs := fileStore(t, files.Limits{})
	resp, out, _ := askFile(t, fs, elicit.FileInput{}, locked, "/c")
	if resp.Action != elicit.Cancel || !strings.Contains(out, "locked.txt cannot be read: you lack the permission.") {
		t.Errorf("got %s:\n%s", resp.Action, out)
	}
}

// A file the store refuses (a type the server does not take) is the
// store's message, and the path is asked again.
func TestPromptFileShowsTheStoresRefusal(t *testing.T) {
	fs := fileStore(t, files.Limits{})
	page := writeFile(t, "page.html", "<!doctype html><html><body>hi</body></html>")
	good := writeFile(t, "notes.txt", "hello")
	resp, out, stages := askFile(t, fs, elicit.FileInput{}, page, good)
	if resp.Action != elicit.Accept {
		t.Fatalf("got %s, want the good file taken", resp.Action)
	}
	if !strings.Contains(out, "  ! page.html") || !strings.Contains(out, "Path of the file: "+good) {
		t.Errorf("the refusal is not shown, or the path not asked again:\n%s", out)
	}
	if got, want := strings.Join(stages, ","), "uploading,uploading,stored"; got != want {
		t.Errorf("stages %s, want %s", got, want)
	}
}

// A file question takes the keystrokes every question does; where no files
// are kept it says so, and only they answer it.
func TestPromptFileKeystrokes(t *testing.T) {
	path := writeFile(t, "notes.txt", "hello")
	tests := []struct {
		name   string
		files  bool
		script []string
		want   elicit.Action
		shown  string
	}{
		{"decline", true, []string{"/d"}, elicit.Decline, ""},
		{"cancel", true, []string{"/c"}, elicit.Cancel, ""},
		{"no refusing", true, []string{"/r", "/d"}, elicit.Decline, "cannot be answered with /r"},
		{"no files kept", false, []string{path, "/c"}, elicit.Cancel, "! Files cannot be given here: this terminal keeps none. /d declines · /c cancels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs *countingFiles
			var kept Files
			if tt.files {
				fs = fileStore(t, files.Limits{})
				kept = fs
			}
			resp, out, stages := askFile(t, kept, elicit.FileInput{}, tt.script...)
			if resp.Action != tt.want {
				t.Errorf("got %s, want %s", resp.Action, tt.want)
			}
			if !strings.Contains(out, tt.shown) {
				t.Errorf("the terminal does not say %q:\n%s", tt.shown, out)
			}
			if len(stages) > 0 || (fs != nil && fs.sent() > 0) {
				t.Errorf("a file was sent: stages %v", stages)
			}
		})
	}
}

// A typed path may come in quotes, as a terminal writes a file dropped on
// it, and start at the home folder.
func TestLocalPath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	tests := []struct{ typed, want string }{
		{"/tmp/a b.csv", "/tmp/a b.csv"},
		{"'/tmp/a b.csv'", "/tmp/a b.csv"},
		{`"/tmp/a b.csv"`, "/tmp/a b.csv"},
		{`"/tmp/a.csv'`, `"/tmp/a.csv'`},
		{"~/data/a.csv", filepath.Join(home, "data/a.csv")},
		{"~user/a.csv", "~user/a.csv"},
		{"'", "'"},
	}
	for _, tt := range tests {
		if got := localPath(tt.typed); got != tt.want {
			t.Errorf("localPath(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// reader asks for a CSV file and replies with what it read of it.
func reader() agents.Assistant {
	return agents.Assistant{Name: "reader", Turn: func(ctx context.Context, message string) (string, error) {
		res, err := turn.Ask(ctx, elicit.AskFile, "Which spending file?", elicit.FileInput{Accept: []string{"text/csv"}, Reason: "to sum it"})
		if err != nil || res.Action != elicit.Accept {
			return "No file, no sum.", err
		}
		b, err := turn.ReadFile(ctx, res.Content.ID)
		return fmt.Sprintf("Read %s (%s, %d bytes): %q", res.Content.Name, res.Content.Type, res.Content.Size, b), err
	}}
}

// At the terminal a file question is answered with a path: the file goes
// to the conversation's session, the server checks it against the
// question (a type it does not take is said, and asked again) and the
// agent reads the bytes given.
func TestRunGivesAFileByItsPath(t *testing.T) {
	db := storetest.Open(t)
	fs := files.New(db, files.Options{Spool: t.TempDir()})
	notes := writeFile(t, "notes.txt", "not a table")
	csv := writeFile(t, "spending.csv", "date,amount\n2026-11-01,12.50\n")
	c := startConsoleOn(t, db, chat.Config{Assistants: registry.New(reader()), Kinds: kindset.New(elicit.BuiltinKinds()...), Model: offline.New(), Files: fs}, Config{Files: fs})
	c.expect("you> ")
	c.send("Sum my spending")
	c.expect("Which spending file?")
	c.expect("Types taken: text/csv")
	c.expect("Path of the file: ")
	c.send(notes)
	c.expect("! File is text/plain; this question takes text/csv")
	c.expect("Path of the file: ")
	c.send(csv)
	c.expect(`reader> Read spending.csv (text/csv, 29 bytes): "date,amount\n2026-11-01,12.50\n"`)
}

package e2e

import (
	"database/sql"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestAPluginFromAModuleOfItsOwn builds testdata/notesplugin, an
// application of its own module whose plugin (package notes, written
// against the public packages alone) brings a table made by its own
// migrations, a route listing it, a flag, and a tool its assistant finds
// through plugin.Tools. The server serves the route from the table, the
// assistant's turn calls the tool (recorded as any tool call), and the
// database records the plugin's migrations under its name. A second
// plugin that wants a route the program serves stops the start, naming
// both.
func TestAPluginFromAModuleOfItsOwn(t *testing.T) {
	t.Parallel()
	bin := buildModule(t, "notesplugin", moduleFiles(t, "testdata/notesplugin"))

	a := startBinary(t, bin, 0, "SWEATPANTS_NOTES_HEADING=To do")
	res, err := http.Get(a.URL + "/notes")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Heading string
		Notes   []string
	}
	err = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if want := []string{"Water the plants", "Call the plumber"}; err != nil || res.StatusCode != http.StatusOK || list.Heading != "To do" || !reflect.DeepEqual(list.Notes, want) {
		t.Errorf("GET /notes = %s %+v (%v), want 200 with the heading of the flag's variable and %q", res.Status, list, err, want)
	}

	cl := newEventsClient(t, a)
	conv := cl.start("", "How many notes have I?")
	evs := cl.open(conv, "").until("the reply", endsRun)
	if end := evs[len(evs)-1]; end.Data["status"] != "replied" || end.Data["text"] != "You have 2 notes." {
		t.Errorf("the turn ended %s, want the reply %q", end.Raw, "You have 2 notes.")
	}
	var called bool
	for _, ev := range evs {
		called = called || (ev.Type == "tool.call" && ev.Data["tool"] == "count_notes" && ev.Data["agent"] == "notes")
	}
	if !called {
		t.Errorf("no tool.call of notes' count_notes among the run's events")
	}

	db, err := sql.Open("sqlite", "file:"+a.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied []string
	rows, err := db.Query(`SELECT name FROM app_migrations WHERE app = 'plugin:notes' ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		applied = append(applied, s)
	}
	rows.Close()
	if want := []string{"001_notes.sql", "002_first_notes.sql"}; !reflect.DeepEqual(applied, want) {
		t.Errorf("the plugin's migrations recorded are %q, want %q", applied, want)
	}

	// A plugin that wants the program's page stops serve before it
	// listens: exit 1, the clash said on stderr.
	clash := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "clash.db"))
	clash.Env = append(os.Environ(), "SWEATPANTS_PROVIDER=offline", "NOTES_CLASH_ROUTE=/new")
	out, err := clash.CombinedOutput()
	if want := "notesplugin: plugin clash: the route GET /new clashes with the program's route GET /new\n"; clash.ProcessState.ExitCode() != 1 || string(out) != want {
		t.Errorf("serve with a clashing route: %v\n%s\nwant exit 1 and %q", err, out, want)
	}
	clash = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "clash.db"))
	clash.Env = append(os.Environ(), "SWEATPANTS_PROVIDER=offline", "NOTES_CLASH_ROUTE=/notes")
	out, _ = clash.CombinedOutput()
	if want := "plugin clash: the route GET /notes clashes with plugin notes's route GET /notes"; !strings.Contains(string(out), want) {
		t.Errorf("serve with two plugins' route:\n%s\nwant %q", out, want)
	}
}

// moduleFiles reads the files of the module in dir, by their paths in it.
func moduleFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

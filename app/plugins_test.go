package app

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/plugin"
)

// notesPlugin is a plugin of the tests' own: a table of notes made by
// its migrations, GET /notes listing them, a tool source offering one tool
// per note, and a --notes-greeting flag; started and stopped are counted.
type notesPlugin struct {
	migrations fstest.MapFS
	db         plugin.DB
	greeting   string
	started    int
	stopped    int
}

func newNotes() *notesPlugin {
	return &notesPlugin{migrations: fstest.MapFS{
		"001_notes.sql": {Data: []byte(`CREATE TABLE notes (text TEXT NOT NULL)`)},
		"002_first.sql": {Data: []byte(`INSERT INTO notes (text) VALUES ('buy milk')`)},
	}}
}

func (n *notesPlugin) Name() string { return "notes" }

func (n *notesPlugin) Parts() plugin.Parts {
	return plugin.Parts{
		Routes:     []plugin.Route{{Method: "GET", Path: "/notes", Handler: http.HandlerFunc(n.list)}},
		Migrations: n.migrations,
		Tools:      n,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&n.greeting, "notes-greeting", "notes:", "what the note list starts with")
		},
		Start: func(ctx context.Context, env plugin.Env) error { n.db, n.started = env.DB, n.started+1; return nil },
		Stop:  func(context.Context) error { n.stopped++; return nil },
	}
}

func (n *notesPlugin) texts(ctx context.Context) ([]string, error) {
	rows, err := n.db.QueryContext(ctx, `SELECT text FROM notes ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// list answers GET /notes.
func (n *notesPlugin) list(w http.ResponseWriter, r *http.Request) {
	texts, err := n.texts(r.Context())
	if err != nil {
		http.Error(w, "no notes", http.StatusInternalServerError)
		return
	}
	fmt.Fprintln(w, n.greeting, strings.Join(texts, "; "))
}

// Tools offers a tool named after each note.
func (n *notesPlugin) Tools(ctx context.Context) ([]agents.AnyTool, error) {
	texts, err := n.texts(ctx)
	var out []agents.AnyTool
	for _, t := range texts {
		out = append(out, agents.Outside(agents.ToolInfo{Agent: "notes", Name: strings.ReplaceAll(t, " ", "_")}, []byte(`{"type":"object"}`), nil))
	}
	return out, err
}

// toolLister is an application whose one assistant says the tools the
// notes plugin offers it.
func toolLister(plugins ...plugin.Plugin) Config {
	lister := agents.Assistant{Name: "lister", Description: "Lists the notes' tools.",
		Turn: func(ctx context.Context, message string) (string, error) {
			tools, err := plugin.Tools("notes").Tools(ctx)
			var names []string
			for _, t := range tools {
				names = append(names, t.Info().Name)
			}
			return "tools: " + strings.Join(names, ", "), err
		}}
	return Config{Name: testName, Assistants: []agents.Assistant{lister}, Plugins: plugins}
}

func TestAPluginServesARouteOverItsTableAndOffersTools(t *testing.T) {
	notes := newNotes()
	addr := startServerWith(t, toolLister(notes), "--notes-greeting", "Notes:")
	res, err := http.Get("http://" + addr + "/notes")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got, want := strings.TrimSpace(string(body)), "Notes: buy milk"; res.StatusCode != http.StatusOK || got != want {
		t.Errorf("GET /notes = %s %q, want 200 %q", res.Status, got, want)
	}
	if notes.started != 1 {
		t.Errorf("the plugin started %d times, want once", notes.started)
	}

	// At the terminal the assistant's loop finds the plugin's tools.
	var out strings.Builder
	p := newProgram(toolLister(newNotes()), func(string) string { return "" }, strings.NewReader("hi\n"), &out, io.Discard)
	p.interrupts = make(chan os.Signal)
	if err := p.run(context.Background(), []string{"chat", "--db", filepath.Join(t.TempDir(), "chat.db")}); err != nil {
		t.Fatalf("chat: %v", err)
	}
	if !strings.Contains(out.String(), "tools: buy_milk") {
		t.Errorf("the chat did not offer the plugin's tools:\n%s", out.String())
	}
}

func TestAPluginStopsWhenTheCommandEnds(t *testing.T) {
	notes := newNotes()
	p := newProgram(toolLister(notes), func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	p.interrupts = make(chan os.Signal)
	if err := p.run(context.Background(), []string{"chat", "--db", filepath.Join(t.TempDir(), "chat.db")}); err != nil {
		t.Fatalf("chat: %v", err)
	}
	if notes.started != 1 || notes.stopped != 1 {
		t.Errorf("started %d, stopped %d times, want once each", notes.started, notes.stopped)
	}
}

func TestAPluginsRouteThatClashesStopsServe(t *testing.T) {
	clash := plugin.New("pages", plugin.Parts{Routes: []plugin.Route{{Method: "GET", Path: "/c/mine", Handler: http.NotFoundHandler()}}})
	_, _, err := runWith(toolLister(clash), "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "app.db"))
	if want := "plugin pages: the route GET /c/mine clashes with the program's route GET /c/:id"; err == nil || err.Error() != want {
		t.Errorf("serve: %v, want %q", err, want)
	}
	two := plugin.New("more", plugin.Parts{Routes: []plugin.Route{{Path: "/notes", Handler: http.NotFoundHandler()}}})
	_, _, err = runWith(toolLister(newNotes(), two), "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "app.db"))
	if want := "plugin more: the route GET /notes clashes with plugin notes's route GET /notes"; err == nil || err.Error() != want {
		t.Errorf("serve: %v, want %q", err, want)
	}
}

func TestPluginsAreCheckedBeforeAnyCommand(t *testing.T) {
	run := func() plugin.Parts { return plugin.Parts{} }
	flagged := func(name string) plugin.Parts {
		return plugin.Parts{Flags: func(fs *flag.FlagSet) { fs.String(name, "", "") }}
	}
	tests := []struct {
		name    string
		plugins []plugin.Plugin
		want    string
	}{
		{"a name twice", []plugin.Plugin{plugin.New("a", run()), plugin.New("a", run())}, `two plugins are named "a"`},
		{"no name", []plugin.Plugin{plugin.New("", run())}, "app.Config.Plugins[0] has no name"},
		{"the program's command", []plugin.Plugin{plugin.New("a", plugin.Parts{Commands: []plugin.Command{{Name: "serve",
			Run: func(context.Context, plugin.CommandEnv) error { return nil }}}})}, `plugin a: the command "serve" is the program's already`},
		{"the program's flag", []plugin.Plugin{plugin.New("a", flagged("db"))}, "plugin a: the flag --db of serve is the program or the application's already"},
		{"another plugin's flag", []plugin.Plugin{plugin.New("a", flagged("x")), plugin.New("b", flagged("x"))}, "plugin b: the flag --x of serve is plugin a's already"},
		{"a built-in kind", []plugin.Plugin{plugin.New("a", plugin.Parts{Prompters: nil, Kinds: newKindsLike("confirm")})}, `plugin a: the elicit kind "confirm" is the application's already`},
		{"a migration missing", []plugin.Plugin{plugin.New("a", plugin.Parts{Migrations: fstest.MapFS{"001_a.sql": {}, "003_c.sql": {}}})},
			`plugin a: the migrations are out of order: 003_c.sql is number 2`},
		{"a migration misnamed", []plugin.Plugin{plugin.New("a", plugin.Parts{Migrations: fstest.MapFS{"a.sql": {}}})},
			`plugin a: the migration a.sql is not named NNN_name.sql`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runWith(toolLister(tt.plugins...), "version")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestAPluginsMigrationAddedBelowAnAppliedOneStopsTheCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "chat.db")
	first := newNotes()
	if _, _, err := runWith(toolLister(first), "chat", "--db", db); err != nil {
		t.Fatal(err)
	}
	// The next build slips a migration in at 002 and moves the one the
	// database had to 003.
	second := newNotes()
	second.migrations["003_first.sql"] = second.migrations["002_first.sql"]
	second.migrations["002_index.sql"] = &fstest.MapFile{Data: []byte(`CREATE INDEX notes_text ON notes (text)`)}
	delete(second.migrations, "002_first.sql")
	_, _, err := runWith(toolLister(second), "chat", "--db", db)
	if want := "plugin notes: the migrations are out of order: the database applied 002_first.sql, which is 002_index.sql now"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	// Nothing of the second build was applied.
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT COUNT(*) FROM notes`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the notes hold %d rows (%v), want the one of the first build", n, err)
	}
}

// newKindsLike is a kind called name.
func newKindsLike(name string) []elicit.Registered {
	return []elicit.Registered{elicit.NewKind[struct{}, struct{}](name, "A kind of the test's.")}
}

func TestAPluginsCommandRunsWithItsFlags(t *testing.T) {
	var who string
	hello := plugin.New("hello", plugin.Parts{Commands: []plugin.Command{{Name: "hello", Args: "[flags]", Does: "say hello",
		Flags: func(fs *flag.FlagSet) { fs.StringVar(&who, "who", "world", "whom to greet") },
		Run: func(_ context.Context, env plugin.CommandEnv) error {
			_, err := fmt.Fprintf(env.Stdout, "hello, %s\n", who)
			return err
		}}}})
	var out strings.Builder
	p := newProgram(toolLister(hello), func(k string) string { return map[string]string{"SWEATPANTS_WHO": "Ann"}[k] }, strings.NewReader(""), &out, io.Discard)
	if err := p.run(context.Background(), []string{"hello"}); err != nil || out.String() != "hello, Ann\n" {
		t.Errorf("hello with SWEATPANTS_WHO=Ann: %v, %q; want %q", err, out.String(), "hello, Ann\n")
	}
	help, _, err := runWith(toolLister(hello), "help")
	if err != nil || !regexp.MustCompile(`(?m)^  greeter hello \[flags\]\s+say hello$`).MatchString(help) {
		t.Errorf("help (%v) does not list the plugin's command:\n%s", err, help)
	}
	help, _, err = runWith(toolLister(hello), "help", "hello")
	if err != nil || !strings.Contains(help, "Usage: greeter hello [flags]\n\nSay hello.") || !strings.Contains(help, "--who (SWEATPANTS_WHO, default world)") {
		t.Errorf("help hello (%v):\n%s", err, help)
	}
	_, _, err = runWith(toolLister(hello), "hello", "there")
	var usage *usageError
	if !errors.As(err, &usage) || usage.cmd != "hello" {
		t.Errorf("hello there: %v, want a usage error of hello", err)
	}
}

func TestAPluginsBrowserModuleIsServedBesideTheApplications(t *testing.T) {
	cfg := toolLister(plugin.New("bell", plugin.Parts{Modules: fstest.MapFS{"bell.js": {Data: []byte("export const ring = 1\n")}}}))
	cfg.Modules = fstest.MapFS{"own.js": {Data: []byte("export const own = 1\n")}}
	addr := startServerWith(t, cfg)
	for path, want := range map[string]string{"/app/bell.js": "export const ring = 1\n", "/app/own.js": "export const own = 1\n"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("GET %s = %s %q, want 200 %q", path, res.Status, body, want)
		}
	}
	_, _, err := runWith(toolLister(plugin.New("bell", plugin.Parts{Modules: fstest.MapFS{"own.js": {}}}), plugin.New("more", plugin.Parts{Modules: fstest.MapFS{"own.js": {}}})), "version")
	if want := `plugin more: the browser module "own.js" is plugin bell's already`; err == nil || err.Error() != want {
		t.Errorf("two plugins' own.js: %v, want %q", err, want)
	}
}

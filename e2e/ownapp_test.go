package e2e

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"go/format"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
	"github.com/sweatpants-go/sweatpants/internal/web/static"
	_ "modernc.org/sqlite" // registers the "sqlite" driver, to read the database
)

// TestAnApplicationOfItsOwn builds the README's "Ship your own agent"
// program as its author would: a module of its own that requires this one
// (through a replace, at this checkout), built with plain go and nothing
// but the module cache. Its binary serves its own assistant, which a
// client without a browser talks to over HTTP: it starts a conversation,
// sees the question on the event stream, answers it and gets the reply.
// The page it serves loads a Datastar client the server serves, its help
// names its assistant, not the demo's, and its database has none of the
// demo's tables.
func TestAnApplicationOfItsOwn(t *testing.T) {
	t.Parallel()
	bin := buildReadmeProgram(t)

	out, err := exec.Command(bin, "help").CombinedOutput()
	help := strings.Join(strings.Fields(string(out)), " ")
	if err != nil || !strings.Contains(help, "greeter serves a chat in the browser with the assistant greeter") ||
		!strings.Contains(help, "greeter chat [flags] talk to greeter at the terminal") || strings.Contains(help, "demo") {
		t.Errorf("greeter help (%v) does not speak of greeter alone:\n%s", err, out)
	}

	a := startBinary(t, bin, 0)
	checkDatastarServed(t, a.URL)

	cl := newEventsClient(t, a)
	conv := cl.start("", "Hello")
	events := cl.open(conv, "")
	asked := events.until("the question", func(evs []streamEvent) bool { return evs[len(evs)-1].Type == "elicit.asked" })
	q := asked[len(asked)-1].Data
	request, _ := q["request"].(map[string]any)
	if request["message"] != "What should I call you?" {
		t.Fatalf("the question is %v, want the greeter's", q)
	}
	answer, _ := json.Marshal(map[string]any{"action": "accept", "content": map[string]string{"name": "Ann"}})
	res, err := cl.http.Post(a.URL+"/c/"+conv+"/elicits/"+q["elicit"].(string), "application/json", bytes.NewReader(answer))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("the answer: %s %s, want 204", res.Status, body)
	}
	done := events.until("the reply", endsRun)
	if end := done[len(done)-1]; end.Data["status"] != "replied" || end.Data["text"] != "Hello, Ann!" {
		t.Errorf("the turn ended %s, want the reply %q", end.Raw, "Hello, Ann!")
	}

	// Its database holds the framework's tables, none of the demo's: it
	// served without making or stocking a flight catalogue.
	db, err := sql.Open("sqlite", "file:"+a.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var demoTables int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('flights', 'bookings')`).Scan(&demoTables); err != nil || demoTables != 0 {
		t.Errorf("the greeter's database has %d of the demo's tables (%v), want none", demoTables, err)
	}

	// In Chromium its page works as the demo's does: the Datastar client
	// it found sends the message, draws the form and posts the answer.
	p := &chatPage{t: t, Page: newPage(t)}
	if _, err := p.Goto(a.URL + "/new"); err != nil {
		t.Fatal(err)
	}
	p.send("Hi there")
	form := p.pendingForm()
	p.must(expect.Locator(form).ToBeVisible())
	p.must(form.GetByLabel("Your name").Fill("Bo"))
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Hello, Bo!"))
}

// buildReadmeProgram writes the README's program as main.go of a module
// of its own in a temporary directory and builds it offline, with only
// what the module cache holds (GOPROXY=off), as `make deps` leaves it.
func buildReadmeProgram(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Ship your own agent\n")
	if !ok {
		t.Fatal(`the README has no "Ship your own agent" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if block == nil || !strings.Contains(block[1], "package main") || !strings.Contains(block[1], "app.Main(") {
		t.Fatalf("the README's section holds no program calling app.Main:\n%s", section)
	}
	if formatted, err := format.Source([]byte(block[1])); err != nil || string(formatted) != block[1] {
		t.Errorf("the README's program is not as gofmt writes it (%v):\n%s", err, formatted)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(ours)
	// The lines the README says go.mod needs, the replace pointing at
	// this checkout where the README's points at the reader's clone.
	require := regexp.MustCompile("`(require github\\.com/sweatpants-go/sweatpants \\S+)`").FindStringSubmatch(section)
	replace := regexp.MustCompile("`(replace github\\.com/sweatpants-go/sweatpants => )\\S+`").FindStringSubmatch(section)
	if require == nil || replace == nil {
		t.Fatalf("the README's section does not say the require and the replace its go.mod needs:\n%s", section)
	}
	files := map[string]string{
		"main.go": block[1],
		"go.mod":  "module example.com/greeter\n\n" + string(goLine) + "\n\n" + require[1] + "\n\n" + replace[1] + root + "\n",
	}
	return buildModule(t, "greeter", files)
}

// buildModule writes files as a module of its own in a temporary
// directory, the replace of this module in its go.mod pointing at this
// checkout, and builds the program name offline, with only what the
// module cache holds (GOPROXY=off), as `make deps` leaves it.
func buildModule(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = regexp.MustCompile(`(?m)^(replace github\.com/sweatpants-go/sweatpants => ).*$`).
		ReplaceAllLiteralString(files["go.mod"], "replace github.com/sweatpants-go/sweatpants => "+root)
	// The module's requirements are ours, so our go.sum holds their sums.
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sums)
	dir := t.TempDir()
	for path, text := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of %s: %v\n%s", name, err, out)
	}
	return bin
}

// checkDatastarServed checks that the page at base loads a Datastar client
// that the server serves: JavaScript, the pinned client.
func checkDatastarServed(t *testing.T, base string) {
	t.Helper()
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	src := regexp.MustCompile(`<script[^>]*src="([^"]*datastar[^"]*)"`).FindSubmatch(page)
	if res.StatusCode != http.StatusOK || src == nil {
		t.Fatalf("GET / = %s, with no Datastar script:\n%s", res.Status, page)
	}
	res, err = http.Get(base + string(src[1]))
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(res.Body)
	res.Body.Close()
	sum := sha256.Sum256(js)
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "javascript") ||
		hex.EncodeToString(sum[:]) != static.DatastarSHA256 {
		t.Errorf("GET %s = %s, %s, sha256 %x; want the pinned Datastar client", src[1], res.Status, res.Header.Get("Content-Type"), sum)
	}
}

// TestAnApplicationShipsAMethodOfItsOwn builds testdata/signer, a module of
// its own that declares a method ("sign-here", package protocol) and
// implements it in the browser with a JavaScript module it embeds and
// hands to app.Config.Modules. The server serves the module as
// JavaScript; in Chromium the method's run button opens the module's own
// dialog, and the name signed there reaches the assistant, whose reply
// says it. The dialog's other button declines. At the terminal its own
// prompter signs.
func TestAnApplicationShipsAMethodOfItsOwn(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	err := filepath.WalkDir("testdata/signer", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel("testdata/signer", path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bin := buildModule(t, "signer", files)

	// At the terminal the same assistant is answered by the signer's
	// prompter.
	chat := exec.Command(bin, "chat", "--db", filepath.Join(t.TempDir(), "chat.db"))
	chat.Stdin = strings.NewReader("Sign, please\nAnn Example\n")
	out, err := chat.CombinedOutput()
	if err != nil || !regexp.MustCompile(`signer> Signed “Lease of flat 3” by Ann Example at \S+Z\.`).Match(out) {
		t.Errorf("signer chat (%v) did not sign:\n%s", err, out)
	}

	a := startBinary(t, bin, 0)

	res, err := http.Get(a.URL + "/app/sign.js")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "javascript") || string(js) != files["web/sign.js"] {
		t.Errorf("GET /app/sign.js = %s, %s; want the module the signer embeds", res.Status, res.Header.Get("Content-Type"))
	}

	p := &chatPage{t: t, Page: newPage(t)}
	if _, err := p.Goto(a.URL + "/new"); err != nil {
		t.Fatal(err)
	}
	p.send("I'm ready to sign")
	p.run("sign-here")
	dialog := p.GetByRole("dialog")
	p.must(expect.Locator(dialog).ToContainText("Sign “Lease of flat 3”"))
	p.must(dialog.GetByLabel("Your name").Fill("Ann Example"))
	p.must(dialog.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Sign", Exact: playwright.Bool(true)}).Click())
	p.must(expect.Locator(p.lastAssistant()).ToHaveText(regexp.MustCompile(`^Signed “Lease of flat 3” by Ann Example at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\.\s*$`)))
	p.must(expect.Locator(dialog).ToHaveCount(0))

	p.send("Once more")
	p.run("sign-here")
	p.must(p.GetByRole("dialog").GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Do not sign"}).Click())
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("The lease is not signed (declined)."))
}

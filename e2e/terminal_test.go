package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// termApp is one run of `sweatpants chat` with its stdin and stdout as
// pipes: the test types lines and waits for what the terminal prints.
type termApp struct {
	t    *testing.T
	db   string
	cmd  *exec.Cmd
	in   io.WriteCloser
	done chan struct{}

	mu      sync.Mutex
	out     bytes.Buffer
	stderr  bytes.Buffer
	changed chan struct{} // closed and replaced on every write to out
	cursor  int           // how far expect has read
}

// startTerm runs the binary's chat command on a fresh database.
func startTerm(t *testing.T, args ...string) *termApp {
	t.Helper()
	return startTermDB(t, filepath.Join(t.TempDir(), "data", "terminal.db"), args...)
}

func startTermDB(t *testing.T, db string, args ...string) *termApp {
	t.Helper()
	a := &termApp{t: t, db: db, done: make(chan struct{}), changed: make(chan struct{})}
	a.cmd = exec.Command(binPath, append([]string{"chat", "--db", db}, args...)...)
	a.cmd.Env = append(os.Environ(), "SWEATPANTS_PROVIDER=offline")
	a.cmd.Stdout = writerFunc(func(p []byte) (int, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		close(a.changed)
		a.changed = make(chan struct{})
		return a.out.Write(p)
	})
	a.cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.stderr.Write(p)
	})
	in, err := a.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	a.in = in
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start %s chat: %v", binPath, err)
	}
	go func() { a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		a.in.Close()
		select {
		case <-a.done:
		case <-time.After(patience(10 * time.Second)):
			a.cmd.Process.Kill()
			<-a.done
			t.Errorf("chat did not end with its input")
		}
		if t.Failed() {
			t.Logf("terminal:\n%s\nstderr:\n%s", a.output(), a.errors())
		}
	})
	return a
}

func (a *termApp) output() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.out.String()
}

func (a *termApp) errors() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stderr.String()
}

// expect waits until the output after the last match shows s, and moves
// past it; it returns what came before s.
func (a *termApp) expect(s string) string {
	a.t.Helper()
	deadline := time.After(patience(15 * time.Second))
	for {
		a.mu.Lock()
		rest := a.out.String()[a.cursor:]
		i := strings.Index(rest, s)
		if i >= 0 {
			a.cursor += i + len(s)
		}
		changed := a.changed
		a.mu.Unlock()
		if i >= 0 {
			return rest[:i]
		}
		select {
		case <-changed:
		case <-a.done:
			a.t.Fatalf("chat ended before showing %q:\n%s", s, rest)
		case <-deadline:
			a.t.Fatalf("timed out waiting for %q; after the last match the terminal shows:\n%s", s, rest)
		}
	}
}

// expectNot fails when the output so far, after the last match, shows s.
func (a *termApp) expectNot(s string) {
	a.t.Helper()
	a.mu.Lock()
	rest := a.out.String()[a.cursor:]
	a.mu.Unlock()
	if strings.Contains(rest, s) {
		a.t.Fatalf("the terminal shows %q:\n%s", s, rest)
	}
}

func (a *termApp) send(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, line+"\n"); err != nil {
		a.t.Fatalf("type %q: %v", line, err)
	}
}

// say sends a message at the message prompt.
func (a *termApp) say(message string) {
	a.t.Helper()
	a.expect("you> ")
	a.send(message)
}

// exit ends the input and waits for the program to exit cleanly.
func (a *termApp) exit() {
	a.t.Helper()
	a.in.Close()
	select {
	case <-a.done:
	case <-time.After(patience(10 * time.Second)):
		a.t.Fatal("chat did not exit at the end of its input")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		a.t.Fatalf("chat exited with %d, want 0", code)
	}
}

func TestTerminalLocation(t *testing.T) {
	t.Parallel()
	t.Run("typed", func(t *testing.T) {
		a := startTerm(t, "--agent", "showcase")
		a.say("where am i")
		a.expect("── showcase asks")
		a.expect("May I see where you are?")
		a.expect("lat,lng (/r refuses): ")
		a.send("48.8584, 2.2945")
		a.expect("showcase> You are at 48.8584, 2.2945")
		a.expect("requesting-permission → acquiring.")
		a.exit()
	})
	t.Run("denied", func(t *testing.T) {
		a := startTerm(t, "--agent", "showcase")
		a.say("where am i")
		a.expect("lat,lng (/r refuses): ")
		a.send("/r")
		a.expect("→ denied")
		a.expect("showcase> Permission was refused — I don't know where you are.")
		a.exit()
	})
	t.Run("out of range is refused in place", func(t *testing.T) {
		a := startTerm(t, "--agent", "showcase")
		a.say("where am i")
		a.expect("lat,lng (/r refuses): ")
		a.send("12,200")
		a.expect("! Longitude must be at most 180")
		a.expect("lat,lng (/r refuses): ")
		a.send("12,20")
		a.expect("showcase> You are at 12.0000, 20.0000")
		a.exit()
	})
}

func TestTerminalChoiceOwnText(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("pick a colour")
	a.expect("Which colour should the theme be?")
	a.expect("4) Another colour (type your own)")
	a.expect("Pick one [1-4]: ")
	a.send("4")
	a.expect("Another colour: ")
	a.send("teal")
	a.expect("showcase> A colour of your own: teal.")
	a.exit()
}

func TestTerminalOffScriptIsOther(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("pick a colour")
	a.expect("Pick one [1-4]: ")
	a.send("whatever you like best")
	a.expect("→ other")
	a.expect("showcase> You said “whatever you like best” — the theme stays as it is.")

	a.say("confirm")
	a.expect("[y/n]: ")
	a.send("let me think about it")
	a.expect("showcase> You said “let me think about it” — I'll leave your drafts alone.")
	a.exit()
}

func TestTerminalFlight(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("book a flight")
	a.expect("Which flight to Lisbon?")
	a.expect("3) LZ440")
	a.expect("Flight [1-3]: ")
	a.send("1")
	a.expect("Free seats on SP101:")
	a.expect("3) 12F")
	a.expect("Seat [1-3]: ")
	a.send("12F")
	a.expect("showcase> Booked SP101 Amsterdam → Lisbon, departing 07:10, seat 12F (€129).")
	a.exit()
}

func TestTerminalFormInvalidValue(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("profile")
	a.expect("Tell me about yourself:")
	a.expect("Name (up to 80 characters): ")
	a.send("Ann")
	a.expect("Age (0–130): ")
	a.send("old")
	a.expect("! Age must be a whole number")
	a.expect("Age (0–130): ")
	a.send("300")
	a.expect("! Age must be at most 130")
	a.expect("Age (0–130): ")
	a.send("30")
	a.expect("Height (m) (0.3–2.8, Enter skips): ")
	a.send("")
	a.expect("Diet (Enter: anything): ")
	a.send("3")
	a.expect("Interests (numbers separated by commas, Enter skips): ")
	a.send("1,3")
	a.expect("Send me the newsletter? (y/n, Enter: no): ")
	a.send("y")
	a.expect("About you (up to 1000 characters, Enter skips): ")
	a.send("")
	a.expect("showcase> Saved: Ann, 30, eats vegan, likes art, hiking, newsletter true.")
	a.exit()
}

func TestTerminalDecline(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("confirm")
	a.expect("/d declines · /c cancels")
	a.expect("[y/n]: ")
	a.send("/d")
	a.expect("→ decline")
	a.expect("showcase> You declined — your drafts are untouched.")

	a.say("paste")
	a.expect("Paste the text (/r refuses): ")
	a.send("/c")
	a.expect("→ cancel")
	a.expect("showcase> You dismissed the question — I didn't read your clipboard.")
	a.exit()
}

func TestTerminalClipboard(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("paste")
	a.expect("Paste the text (/r refuses): ")
	a.send("hello from the terminal")
	a.expect("showcase> Your clipboard holds 23 characters: “hello from the terminal”")

	a.say("copy")
	a.expect("┃ SWEAT-")
	a.expect("Copy it, then press Enter (/r refuses): ")
	a.send("")
	a.expect("showcase> Copied SWEAT-")
	a.exit()
}

func TestTerminalQueue(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("together")
	// packer and diner ask at once, in either order; the terminal asks the
	// first, then the second once the first is answered.
	a.expect("── ")
	first := strings.TrimSpace(strings.Fields(a.expect(" asks"))[0])
	answer := map[string][]string{"packer": {"3", "n"}, "diner": {"2"}}
	second := map[string]string{"packer": "diner", "diner": "packer"}[first]
	if answer[first] == nil {
		t.Fatalf("the first to ask is %q, want packer or diner", first)
	}
	for _, line := range answer[first] {
		a.send(line)
	}
	a.expect("── " + second + " asks")
	for _, line := range answer[second] {
		a.send(line)
	}
	a.expect("showcase> All set: 3 checked bag(s); curry for the meal.")
	a.exit()
}

func TestTerminalContinue(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "data", "terminal.db")
	a := startTermDB(t, db, "--agent", "showcase")
	a.say("confirm")
	a.expect("[y/n]: ")
	a.exit()
	out := a.output()
	_, rest, ok := strings.Cut(out, "continue with --conversation ")
	if !ok {
		t.Fatalf("no conversation to continue:\n%s", out)
	}
	id := strings.TrimSuffix(strings.Fields(rest)[0], ".)")

	b := startTermDB(t, db, "--conversation", id)
	b.expect("you> confirm")
	b.expect("Delete all your drafts?")
	b.expect("[y/n]: ")
	b.send("y")
	b.expect("showcase> Done: your drafts are deleted.")
	b.expectNot("! ")
	b.exit()
}

// Ctrl-C while the agent waits stops its turn, the way the browser's Stop
// does; Ctrl-C at the message prompt ends the program cleanly.
func TestTerminalCtrlC(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("confirm")
	a.expect("[y/n]: ")
	if err := a.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	a.expect("(Stopped.)")
	a.say("pick a colour")
	a.expect("Pick one [1-")
	a.send("2")
	a.expect("The theme is now")

	a.expect("you> ")
	if err := a.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	case <-time.After(patience(10 * time.Second)):
		t.Fatal("chat did not exit on Ctrl-C at the prompt")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("chat exited with %d, want 0", code)
	}
}

// An approval at the terminal: the call is shown, arguments edited to
// something the tool does not take are refused with why, and the fixed
// ones are what the call runs with.
func TestTerminalApproval(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("approve a tool call")
	a.expect("Allow archiveDrafts?")
	a.expect("Tool: archiveDrafts (of showcase)")
	a.expect("Does: changes data")
	a.expect("olderThanDays: 30")
	a.expect("[o/c/a/d/e]: ")
	a.send("e")
	a.expect(`Now: {"olderThanDays":30,"folder":"Archive"}`)
	a.send(`{"olderThanDays": 90}`)
	a.expect("[o/c/a/d/e]: ")
	a.send("o")
	a.expect("! Arguments do not fit the tool's input")
	a.expect(`The arguments you typed: {"olderThanDays": 90}`)
	a.expect("[o/c/a/d/e]: ")
	a.send("e")
	a.send(`{"olderThanDays": 90, "folder": "Old"}`)
	a.expect("[o/c/a/d/e]: ")
	a.send("o")
	a.expect("showcase> Archived the drafts older than 90 days into Old (allowed once).")
	a.say("approve a tool call")
	a.expect("[o/c/a/d/e]: ")
	a.send("d")
	a.expect("Why not? ")
	a.send("not today")
	a.expect("showcase> Not archived: you said “not today”.")
	a.exit()
}

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The scenario at the terminal: the binary's chat command, typed to over
// its stdin; the crash is a kill -9 of the chat program itself, started
// again on the same database with --conversation.
func TestScenarioAtTheTerminal(t *testing.T) {
	t.Parallel()
	runScenario(t, &termDriver{t: t, db: filepath.Join(t.TempDir(), "data", "terminal.db")})
}

// termDriver types at `sweatpants chat` and reads what it prints.
type termDriver struct {
	t    *testing.T
	db   string
	conv string
	term *termApp
	// earlier is what the programs killed before this one printed.
	earlier string
	// waiting is set while a question's prompts are up, where a message is
	// typed as /m <words>.
	waiting bool
}

func (d *termDriver) start(agent string) {
	d.t.Helper()
	d.term = startTermDB(d.t, d.db, "--agent", agent)
	d.term.expect("Conversation ")
	d.conv = strings.TrimSpace(d.term.expect(" with "))
}

func (d *termDriver) send(text string) string {
	d.t.Helper()
	if !d.waiting {
		// Typed for the message prompt, which takes it once shown (the
		// end before it read up to that prompt).
		d.term.send(text)
		return ""
	}
	d.term.send("/m " + text)
	said := map[string]string{
		"(Asked on the side":        "side",
		"(Taken as your answer":     "answer",
		"(Taken as a change of":     "change",
		"  ! ":                      "refused",
		"(Queued — it will be sent": "queued",
	}
	keys := make([]string, 0, len(said))
	for k := range said {
		keys = append(keys, k)
	}
	return said[keys[d.term.expectFirst(keys...)]]
}

func (d *termDriver) question() asked {
	d.t.Helper()
	d.term.expect("── ")
	d.term.expect(" asks")
	msg := d.term.expect("\n  (")
	d.waiting = true
	return asked{Message: strings.TrimSpace(msg)}
}

func (d *termDriver) answer(_ asked, a tripAnswer) {
	d.t.Helper()
	d.term.expect("Destination (up to 80 characters): ")
	d.term.send(a.Destination)
	d.term.expect("Travellers (1–9, Enter: 2): ")
	d.term.send(strconv.Itoa(a.Travellers))
	d.term.expect("Cabin class (Enter: economy): ")
	d.term.send(a.Cabin)
	d.term.expect("Book a hotel too? (y/n, Enter: no): ")
	d.term.send(map[bool]string{true: "y", false: "n"}[a.Hotel])
	d.waiting = false
}

// stop is Ctrl-C while the question waits.
func (d *termDriver) stop() {
	d.t.Helper()
	if err := d.term.cmd.Process.Signal(os.Interrupt); err != nil {
		d.t.Fatal(err)
	}
	d.waiting = false
}

func (d *termDriver) edit(text string) {
	d.t.Helper()
	d.term.send("/edit " + text)
	d.term.expect("(Edited: ")
}

// end reads the next end the terminal shows: a side reply, the stopped
// turn's note, or a reply, which runs to the next message prompt.
func (d *termDriver) end() runEnd {
	d.t.Helper()
	switch d.term.expectFirst("  (aside) ", "  (Stopped.)", "concierge> ") {
	case 0:
		d.term.expect("> ")
		return runEnd{Status: "replied", Aside: true, Text: d.term.expect("\n")}
	case 1:
		return runEnd{Status: "stopped"}
	}
	return runEnd{Status: "replied", Text: strings.TrimSpace(d.term.expect("\nyou> "))}
}

// crash kills the chat program (kill -9) while its question waits.
func (d *termDriver) crash() {
	d.t.Helper()
	if err := d.term.cmd.Process.Kill(); err != nil {
		d.t.Fatal(err)
	}
	select {
	case <-d.term.done:
	case <-time.After(patience(10 * time.Second)):
		d.t.Fatal("chat did not end on kill -9")
	}
	d.earlier += d.term.output()
}

// restart continues the conversation in a new chat program on the same
// database: the question that waited is asked again.
func (d *termDriver) restart() {
	d.t.Helper()
	d.term = startTermDB(d.t, d.db, "--conversation", d.conv)
	d.question()
}

// replies counts the replies holding text that the programs printed; the
// one now running is at its message prompt, where it prints nothing more.
func (d *termDriver) replies(text string) int {
	return strings.Count(d.earlier+d.term.output(), text)
}

// expectFirst waits until the output after the last match shows one of
// ss, moves past the one that shows first, and returns its index.
func (a *termApp) expectFirst(ss ...string) int {
	a.t.Helper()
	deadline := time.After(patience(15 * time.Second))
	for {
		a.mu.Lock()
		rest := a.out.String()[a.cursor:]
		best, at := -1, len(rest)
		for i, s := range ss {
			if j := strings.Index(rest, s); j >= 0 && j < at {
				best, at = i, j
			}
		}
		if best >= 0 {
			a.cursor += at + len(ss[best])
		}
		changed := a.changed
		a.mu.Unlock()
		if best >= 0 {
			return best
		}
		select {
		case <-changed:
		case <-a.done:
			a.t.Fatalf("chat ended before showing any of %q:\n%s", ss, rest)
		case <-deadline:
			a.t.Fatalf("timed out waiting for any of %q; after the last match the terminal shows:\n%s", ss, rest)
		}
	}
}

package term

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// console runs Run against a real service on a temp database, with a pipe
// for input and the output collected for waiting on.
type console struct {
	t    *testing.T
	in   *io.PipeWriter
	db   *store.DB
	svc  *chat.Service
	done chan error
	// interrupt delivers a Ctrl-C.
	interrupt chan os.Signal

	mu      sync.Mutex
	out     strings.Builder
	changed chan struct{} // closed and replaced on every write
	cursor  int           // how far expect has read
}

func startConsole(t *testing.T, agent string) *console {
	t.Helper()
	db := storetest.Open(t)
	return startConsoleOn(t, db, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()}, Config{Agent: agent})
}

// startConsoleOn runs Run with run's agent or conversation against a
// service configured by cfg on db.
func startConsoleOn(t *testing.T, db *store.DB, cfg chat.Config, run Config) *console {
	t.Helper()
	cfg.Store = db
	svc := chat.New(cfg)
	r, w := io.Pipe()
	c := &console{t: t, in: w, db: db, svc: svc, done: make(chan error, 1), changed: make(chan struct{}), interrupt: make(chan os.Signal, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c.done <- Run(ctx, Config{Chat: svc, Session: "s", Agent: run.Agent, Conversation: run.Conversation, In: r, Out: c, Echo: true, Interrupts: c.interrupt, Files: run.Files, Now: run.Now})
	}()
	t.Cleanup(func() {
		cancel()
		w.Close()
		<-c.done
		svc.Close()
		if t.Failed() {
			t.Logf("terminal:\n%s", c.text())
		}
	})
	return c
}

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.changed)
	c.changed = make(chan struct{})
	return c.out.Write(p)
}

func (c *console) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// expect waits until the output, after what earlier calls matched, shows
// s, and moves past it.
func (c *console) expect(s string) {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		i := strings.Index(c.out.String()[c.cursor:], s)
		if i >= 0 {
			c.cursor += i + len(s)
		}
		changed := c.changed
		c.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			c.t.Fatalf("timed out waiting for %q; after the last match the terminal shows:\n%s", s, c.text()[c.cursor:])
		}
	}
}

func (c *console) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func TestRunRefusedAnswerIsAskedAgainAndNotRecorded(t *testing.T) {
	c := startConsole(t, "showcase")
	c.expect("you> ")
	c.send("where am i")
	c.expect("lat,lng (/r refuses): ")
	c.send("95,4.89")
	c.expect("! Latitude must be at most 90")
	c.expect("lat,lng (/r refuses): ")

	var conv tree.Conversation
	convs, err := c.db.Conversations(t.Context(), "s")
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations: %v %v", convs, err)
	}
	conv = convs[0]
	if got := countKind(t, c.db, conv.ID, tree.ElicitResponse); got != 0 {
		t.Fatalf("%d answers recorded after a refused one, want 0", got)
	}

	c.send("52.37,4.89")
	c.expect("showcase> You are at 52.3700, 4.8900")
	c.expect("requesting-permission → acquiring.")
	c.expect("you> ")
	if got := countKind(t, c.db, conv.ID, tree.ElicitResponse); got != 1 {
		t.Errorf("%d answers recorded, want 1", got)
	}
}

func countKind(t *testing.T, db *store.DB, conv string, kind tree.Kind) int {
	t.Helper()
	nodes, err := db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, nd := range nodes {
		if nd.Kind == kind {
			n++
		}
	}
	return n
}

func TestRunQueue(t *testing.T) {
	c := startConsole(t, "showcase")
	c.expect("you> ")
	c.send("together")
	// The two agents ask in either order; the terminal asks them in the
	// order asked, the second once the first is answered.
	c.expect("── ")
	first := c.agentAsking()
	answer := map[string]string{"packer": "/d", "diner": "/c"}
	c.send(answer[first])
	second := map[string]string{"packer": "diner", "diner": "packer"}[first]
	c.expect("── " + second + " asks")
	c.send(answer[second])
	c.expect("showcase> All set:")
	c.expect("you> ")
	got := c.text()
	for _, want := range []string{"You declined — no luggage noted", "You dismissed the question — no meal chosen"} {
		if !strings.Contains(got, want) {
			t.Errorf("the reply does not say %q", want)
		}
	}
}

// agentAsking returns the agent named just after the last match.
func (c *console) agentAsking() string {
	c.t.Helper()
	c.expect(" asks")
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.out.String()[:c.cursor-len(" asks")]
	return before[strings.LastIndex(before, "── ")+len("── "):]
}

func TestRunEndOfInput(t *testing.T) {
	c := startConsole(t, "showcase")
	c.expect("you> ")
	c.send("confirm")
	c.expect("[y/n]: ")
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Run: %v, want nil at the end of the input", err)
		}
		c.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return at the end of the input")
	}
	c.expect("The question stays open: continue with --conversation")
}

// Text from users and models reaches the terminal with its control
// characters shown, not obeyed: pasted text that would retitle the window
// comes back quoted as escapes.
func TestRunShowsControlCharactersInsteadOfObeyingThem(t *testing.T) {
	c := startConsole(t, "showcase")
	c.expect("you> ")
	c.send("paste")
	c.expect("Paste the text")
	c.send("hi\x1b]0;pwned\x07there\u009b2J")
	c.expect(`hi\x1b]0;pwned\x07there\u009b2J”`)
	if out := c.text(); strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Errorf("control characters reached the terminal:\n%q", out)
	}
}

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\tindented\n", "plain text\n\tindented\n"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"bell\x07 del\x7f cr\r", `bell\x07 del\x7f cr\x0d`},
		{"c1 \u009b csi, é kept", `c1 \u009b csi, é kept`},
		{"bad \xff byte", `bad \xff byte`},
	} {
		var sb strings.Builder
		n, err := printable{&sb}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Errorf("Write(%q) = %d, %v; want %d, nil", tc.in, n, err, len(tc.in))
		}
		if sb.String() != tc.want {
			t.Errorf("Write(%q) wrote %q, want %q", tc.in, sb.String(), tc.want)
		}
	}
}

// Ctrl-C at a question stops the turn, as the browser's Stop does; at the
// message prompt it ends the session.
func TestRunCtrlCStopsTheTurnThenEnds(t *testing.T) {
	c := startConsole(t, "showcase")
	c.expect("you> ")
	c.send("confirm")
	c.expect("Delete all your drafts?")
	c.expect("[y/n]: ")
	c.interrupt <- os.Interrupt
	c.expect("(stopping the agent")
	c.expect("(Stopped.)")
	c.expect("you> ")
	if !strings.Contains(c.text(), "Delete all your drafts?") || strings.Count(c.text(), "Delete all your drafts?") != 1 {
		t.Errorf("the withdrawn question was asked again:\n%s", c.text())
	}
	// The conversation goes on.
	c.send("confirm")
	c.expect("Delete all your drafts?")
	c.expect("[y/n]: ")
	c.send("y")
	c.expect("Done: your drafts are deleted.")
	c.expect("you> ")

	c.interrupt <- os.Interrupt
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Run after Ctrl-C at the prompt: %v", err)
		}
		c.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-C at the prompt did not end the session")
	}
}

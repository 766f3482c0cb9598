package deploycheck_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/deploycheck"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

// steady is an agent the deploy leaves as it was.
var steady = agents.Assistant{Name: "steady", Description: "Asks for a name.", Turn: func(ctx context.Context, message string) (string, error) {
	res, err := turn.Ask(ctx, elicit.Form[struct {
		Name string `json:"name"`
	}](), "Your name?", struct{}{})
	if err != nil {
		return "", err
	}
	return "Hello, " + res.Content.Name, nil
}}

// seats is a model-driven agent that asks through the ask_user tool: its
// turn waits inside a tool, which the check enters.
var seats = agents.Assistant{Name: "seats", Description: "Picks a seat.", Turn: agents.Loop{AskUser: true}.Turn}

// release is the registry of a build: check-in as given, the others as they
// were.
func release(checkIn agents.Assistant) *registry.Assistants {
	return registry.New(checkIn, steady, seats)
}

// noModel fails the test if anything calls it: a check calls no model.
type noModel struct{ t *testing.T }

func (noModel) Name() string { return "none" }

func (m noModel) Complete(context.Context, llm.Request, func(string)) (llm.Response, error) {
	m.t.Error("the check called the model")
	return llm.Response{}, errors.New("no model in a check")
}

// recorded is the database release 1 left behind: two conversations of
// check-in and one of steady waiting on their questions, one of seats
// waiting inside its ask_user tool, and one of check-in that finished.
type recorded struct {
	path               string
	waitingA, waitingB string // check-in's, waiting
	waitingSteady      string
	waitingSeats       string
	finished           string
	questions          map[string]string // conversation → the question it waits on
}

func recordRelease1(t *testing.T) recorded {
	t.Helper()
	r := recorded{path: filepath.Join(t.TempDir(), "sweatpants.db"), questions: map[string]string{}}
	fake := llmtest.NewServer(t, llmtest.Call(agents.AskUserTool, `{"question":"Window or aisle?","kind":"choice","options":["window","aisle"]}`))
	db := storetest.OpenAt(t, r.path)
	svc := chat.New(chat.Config{Store: db, Assistants: release(chattest.CheckIn(1, false)), Model: openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"})})
	start := func(agent, message string) string {
		c, err := svc.Create(t.Context(), "s-"+agent, agent)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Send(t.Context(), c.Session, c.ID, message); err != nil {
			t.Fatal(err)
		}
		v := chattest.WaitView(t, svc, c.Session, c.ID, "the question", func(v pageview.View) bool { return chattest.PendingElicit(v) != nil })
		r.questions[c.ID] = chattest.PendingElicit(v).Request.ID
		return c.ID
	}
	r.waitingA = start("check-in", "check me in")
	r.finished = start("check-in", "and me")
	if err := svc.Answer(t.Context(), "s-check-in", r.finished, r.questions[r.finished], chat.Answer{Action: elicit.Accept, Content: []byte(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	chattest.WaitView(t, svc, "s-check-in", r.finished, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	r.waitingSteady = start("steady", "hi")
	r.waitingSeats = start("seats", "a seat please")
	r.waitingB = start("check-in", "me too")
	svc.Close()
	db.Close()
	return r
}

// check runs the check of the database at path against build reg, and
// returns how many turns diverge and what it wrote.
func check(t *testing.T, path string, reg *registry.Assistants) (int, string) {
	t.Helper()
	db := storetest.OpenAt(t, path)
	defer db.Close()
	var out strings.Builder
	n, err := deploycheck.Check(t.Context(), chat.Config{Store: db, Assistants: reg, Model: noModel{t}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return n, out.String()
}

// A database with turns of release 1 waiting is checked against release 2,
// which reports progress before check-in's question: unversioned, exactly
// check-in's two waiting turns are listed, with the call and both sides of
// it; the finished one and the other agents' are not. The check writes
// nothing and calls no model.
func TestTheCheckListsExactlyTheTurnsThatWouldDiverge(t *testing.T) {
	r := recordRelease1(t)
	before := dump(t, r.path)
	n, out := check(t, r.path, release(chattest.CheckIn(2, false)))
	t.Logf("the check says:\n%s", out)
	if n != 2 {
		t.Errorf("%d turns diverge, want 2; the check says:\n%s", n, out)
	}
	for _, conv := range []string{r.waitingA, r.waitingB} {
		turn, _, _ := strings.Cut(r.questions[conv], "-")
		want := fmt.Sprintf("conversation %s %q (assistant check-in): the turn of message #%s diverges at call %s\n"+
			"  recorded: elicit form \"Go on?\"\n"+
			"  now:      notify \"Looking up your booking\"\n", conv, conversationTitle(conv, r), turn, r.questions[conv])
		if !strings.Contains(out, want) {
			t.Errorf("the check says:\n%s\nwant it to list:\n%s", out, want)
		}
	}
	for _, conv := range []string{r.finished, r.waitingSteady, r.waitingSeats} {
		if strings.Contains(out, conv) {
			t.Errorf("the check lists conversation %s, which resumes (or finished):\n%s", conv, out)
		}
	}
	if want := "2 of 4 suspended turns would diverge after this deploy; 2 resume.\n"; !strings.HasSuffix(out, want) {
		t.Errorf("the check ends %q, want %q", out, want)
	}
	if after := dump(t, r.path); after != before {
		t.Errorf("the check changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// conversationTitle is the title a conversation of r took from its first
// message.
func conversationTitle(conv string, r recorded) string {
	switch conv {
	case r.waitingA:
		return "check me in"
	case r.waitingB:
		return "me too"
	}
	return ""
}

// Guarded with turn.Version, release 2 resumes every waiting turn: the
// check lists none, and after the deploy — a new service on the same
// file — each turn waiting finishes when answered, check-in's recorded
// before the change on the old path.
func TestVersionedTurnsPassTheCheckAndResume(t *testing.T) {
	r := recordRelease1(t)
	n, out := check(t, r.path, release(chattest.CheckIn(2, true)))
	if n != 0 || out != "All 4 suspended turns resume with this build.\n" {
		t.Fatalf("the check found %d divergences:\n%s", n, out)
	}

	fake := llmtest.NewServer(t, llmtest.Text("Window it is."))
	svc, _ := newService(t, r.path, release(chattest.CheckIn(2, true)), openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	for conv, want := range map[string]string{r.waitingA: "done on path 0", r.waitingB: "done on path 0", r.waitingSteady: "Hello, Ada", r.waitingSeats: "Window it is."} {
		session, answer := "s-check-in", `{"ok":true}`
		switch conv {
		case r.waitingSteady:
			session, answer = "s-steady", `{"name":"Ada"}`
		case r.waitingSeats:
			session, answer = "s-seats", `{"option":"window"}`
		}
		if err := svc.Answer(t.Context(), session, conv, r.questions[conv], chat.Answer{Action: elicit.Accept, Content: []byte(answer)}); err != nil {
			t.Fatalf("answer conversation %s: %v", conv, err)
		}
		v := chattest.WaitView(t, svc, session, conv, "the reply", func(v pageview.View) bool { return !v.Status.Running })
		if it := v.Items[len(v.Items)-1]; it.Kind != tree.AssistantMessage || it.Text != want {
			t.Errorf("conversation %s ended with %+v, want the reply %q", conv, it, want)
		}
	}
}

// newService starts the service of a build on the database file at path,
// as a deploy does.
func newService(t *testing.T, path string, reg *registry.Assistants, model llm.Provider) (*chat.Service, func()) {
	t.Helper()
	db := storetest.OpenAt(t, path)
	svc := chat.New(chat.Config{Store: db, Assistants: reg, Model: model})
	stop := func() { svc.Close(); db.Close() }
	t.Cleanup(stop)
	return svc, stop
}

// dump is every row of every table of the database at path, as text: what
// the check must leave as it was (nodes, HEADs, the reflog, sessions).
func dump(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := db.QueryContext(t.Context(), `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var name string
		if err := tables.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	tables.Close()
	var b strings.Builder
	for _, name := range names {
		rows, err := db.QueryContext(t.Context(), `SELECT * FROM "`+name+`" ORDER BY rowid`)
		if err != nil {
			rows, err = db.QueryContext(t.Context(), `SELECT * FROM "`+name+`"`) // a table without rowid
		}
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		fmt.Fprintf(&b, "%s %v\n", name, cols)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if raw, ok := v.([]byte); ok {
					v = string(raw)
				}
				fmt.Fprintf(&b, " %v", v)
			}
			b.WriteString("\n")
		}
		rows.Close()
	}
	return b.String()
}

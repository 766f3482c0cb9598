package operator_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/operator"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// engines runs test against a SQLite file and, where PostgreSQL can be
// started, a PostgreSQL schema.
func engines(t *testing.T, test func(t *testing.T, db *store.DB)) {
	open := func(t *testing.T, target string) *store.DB {
		db, err := store.Open(context.Background(), target, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	t.Run("sqlite", func(t *testing.T) { test(t, open(t, filepath.Join(t.TempDir(), "test.db"))) })
	t.Run("postgres", func(t *testing.T) { test(t, open(t, pgtest.Schema(t))) })
}

// conv records conversation id of owner, with the nodes of steps appended
// one after the other on HEAD.
type step struct {
	kind    tree.Kind
	ref     string
	payload any
}

func conv(t *testing.T, db *store.DB, owner, id string, steps ...step) []tree.Node {
	t.Helper()
	ctx := context.Background()
	if err := db.EnsureSession(ctx, owner); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: id, Session: owner, Agent: "concierge", Title: "Title of " + id}); err != nil {
		t.Fatal(err)
	}
	var out []tree.Node
	var head int64
	for _, s := range steps {
		n, err := db.Append(ctx, tree.Node{Conversation: id, Parent: head, Kind: s.kind, Ref: s.ref, Payload: tree.MustEncode(s.payload)}, tree.AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		head = n.ID
		out = append(out, n)
	}
	return out
}

func approval(t *testing.T, id string) elicit.Request {
	t.Helper()
	req, err := elicit.Approve.Request("May it run?", elicit.ApprovalInput{Agent: "concierge", Tool: "book_flight", Args: "{}"})
	if err != nil {
		t.Fatal(err)
	}
	req.ID = id
	return req
}

func signIn(t *testing.T, db *store.DB, subject, email string) string {
	t.Helper()
	a, ok, err := db.SignIn(context.Background(), store.Identity{Issuer: "https://id.example", Subject: subject, Email: email, Name: subject}, "signin-"+subject, "acct-"+subject)
	if err != nil || !ok {
		t.Fatalf("sign in %s: %v %v", subject, ok, err)
	}
	return a.ID
}

// TestThePageShowsAccountsWaitingQuestionsAndFeedback: the page lists each
// account with its conversations, the approvals and questions waiting on
// HEAD's path (not those answered, nor those of a turn that ended), and
// the newest feedback with the first words of the reply it rates.
func TestThePageShowsAccountsWaitingQuestionsAndFeedback(t *testing.T) {
	engines(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ann := signIn(t, db, "ann", "ann@example.com")
		bob := signIn(t, db, "bob", "bob@example.com")
		hello := step{kind: tree.UserMessage, payload: tree.Message{Text: "Book me a flight"}}
		conv(t, db, bob, "waits", hello, step{kind: tree.ElicitRequest, ref: "e1", payload: approval(t, "e1")})
		conv(t, db, bob, "answered", hello, step{kind: tree.ElicitRequest, ref: "e2", payload: approval(t, "e2")},
			step{kind: tree.ElicitResponse, ref: "e2", payload: elicit.Response{Action: elicit.Accept}})
		conv(t, db, bob, "ended", hello, step{kind: tree.ElicitRequest, ref: "e3", payload: approval(t, "e3")},
			step{kind: tree.Stopped, payload: tree.Message{}})
		replied := conv(t, db, ann, "rated", hello, step{kind: tree.AssistantMessage, payload: tree.Message{Text: "one two three four five six seven eight nine ten eleven twelve thirteen"}})
		reply := replied[len(replied)-1]
		if _, err := db.Append(ctx, tree.Node{Conversation: "rated", Parent: reply.ID, Kind: tree.Feedback,
			Payload: tree.MustEncode(tree.FeedbackRecord{Rating: tree.ThumbsDown, Comment: "too long"})}, tree.AppendOptions{Fork: true, Aside: true}); err != nil {
			t.Fatal(err)
		}
		conv(t, db, "anonymous-browser", "anon", hello)

		p, err := operator.New(db).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, a := range p.Accounts {
			counts[a.Email] = a.Count
			if a.Email == "bob@example.com" && (len(a.Conversations) != 3 || a.Conversations[0].OwnerEmail != "bob@example.com") {
				t.Errorf("bob's conversations = %+v, want the three, his", a.Conversations)
			}
		}
		if got, want := counts, map[string]int{"ann@example.com": 1, "bob@example.com": 3}; len(got) != 2 || got["ann@example.com"] != want["ann@example.com"] || got["bob@example.com"] != want["bob@example.com"] {
			t.Errorf("accounts' counts = %v, want %v", got, want)
		}
		if got := p.Scanned; got != 5 {
			t.Errorf("scanned %d conversations, want all 5", got)
		}
		if len(p.Waiting) != 1 || p.Waiting[0].Conversation.ID != "waits" || p.Waiting[0].Conversation.OwnerEmail != "bob@example.com" {
			t.Fatalf("waiting = %+v, want conversation waits alone", p.Waiting)
		}
		q := p.Waiting[0].Questions
		if len(q) != 1 || !q[0].Approval || q[0].ID != "e1" || q[0].Message != "concierge wants to run book_flight" {
			t.Errorf("its questions = %+v, want the approval e1", q)
		}
		if len(p.Feedback) != 1 {
			t.Fatalf("feedback = %+v, want one", p.Feedback)
		}
		f := p.Feedback[0]
		if f.Rating != tree.ThumbsDown || f.Comment != "too long" || f.Reply != reply.ID || f.Conversation.OwnerEmail != "ann@example.com" ||
			f.ReplyStart != "one two three four five six seven eight nine ten eleven twelve …" {
			t.Errorf("feedback = %+v", f)
		}
	})
}

// TestDisableAndEnableAnAccount: a disabled account signs in to nothing
// until enabled; an account there is not is NotFound.
func TestDisableAndEnableAnAccount(t *testing.T) {
	engines(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		d := operator.New(db)
		bob := signIn(t, db, "bob", "bob@example.com")
		if err := d.Disable(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.SignedIn(ctx, "signin-bob"); ok {
			t.Error("the disabled account's sign-in still holds")
		}
		who := store.Identity{Issuer: "https://id.example", Subject: "bob", Email: "bob@example.com"}
		if _, ok, _ := db.SignIn(ctx, who, "again", "unused"); ok {
			t.Error("a disabled account signed in")
		}
		p, _ := d.Page(ctx)
		if len(p.Accounts) != 1 || !p.Accounts[0].Disabled {
			t.Errorf("accounts = %+v, want bob disabled", p.Accounts)
		}
		if err := d.Enable(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.SignIn(ctx, who, "again", "unused"); !ok {
			t.Error("an enabled account cannot sign in")
		}
		for name, err := range map[string]error{"disable": d.Disable(ctx, "nobody"), "enable": d.Enable(ctx, "nobody")} {
			if apperr.CodeOf(err) != apperr.NotFound {
				t.Errorf("%s of an account there is not = %v, want NotFound", name, err)
			}
		}
	})
}

// TestPendingIsTheOpenTurnsUnansweredQuestions: what waits is read from
// the tree alone: an answer on another branch does not answer the question
// on HEAD's.
func TestPendingIsTheOpenTurnsUnansweredQuestions(t *testing.T) {
	req := tree.MustEncode(elicit.Request{ID: "q", Kind: "confirm", Message: "Sure?"})
	nodes := []tree.Node{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "hi"})},
		{ID: 2, Parent: 1, Kind: tree.ElicitRequest, Ref: "q", Payload: req},
		{ID: 3, Parent: 2, Kind: tree.ElicitResponse, Ref: "q"},
	}
	x := tree.NewIndex(nodes)
	if got := operator.Pending(x, 3); len(got) != 0 {
		t.Errorf("answered on the path: pending = %+v, want none", got)
	}
	x.Add(tree.Node{ID: 4, Parent: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "edited"})})
	x.Add(tree.Node{ID: 5, Parent: 4, Kind: tree.ElicitRequest, Ref: "q", Payload: req})
	got := operator.Pending(x, 5)
	if len(got) != 1 || got[0].Node != 5 || got[0].Approval || got[0].Message != "Sure?" {
		t.Errorf("asked again on an edited branch: pending = %+v, want node 5", got)
	}
}

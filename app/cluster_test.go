package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// node is one server of a cluster in a test: its own store handle and
// cluster node on the shared database, and its chat service.
type node struct {
	db   *store.DB
	svc  *chat.Service
	node interface{ Drain(context.Context) error }
}

// startNode starts a chat service as serve does on PostgreSQL: a node of
// the cluster on the database at url, holding its conversations' leases.
func startNode(t *testing.T, url string) node {
	t.Helper()
	db, err := store.Open(t.Context(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cn, err := nodeOf(t.Context(), db, url, "http://127.0.0.1:9", "test build", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cn.Close() }) // after the service's: cleanups run last first
	l := &leases{node: cn}
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(chattest.CheckIn(1, false)), Model: offline.New(), Leases: l})
	l.svc = svc
	t.Cleanup(svc.Close)
	return node{db: db, svc: svc, node: cn}
}

// A conversation is live on one node: another that asks for it is told
// to try again. When the first lets it go to the second (it drains, and
// the second takes the waiting turn over at once), the first stops serving
// it: its page is told the conversation moved, so it reconnects. The turn
// goes on from the record on the second node, and the answer given there
// is recorded once.
func TestAConversationMovesToTheNodeThatTakesItOver(t *testing.T) {
	ctx := t.Context()
	url := pgtest.Schema(t)
	a, b := startNode(t, url), startNode(t, url)

	c, err := a.svc.Create(ctx, "me", "")
	if err != nil {
		t.Fatal(err)
	}
	page, _, err := a.svc.Subscribe(ctx, "me", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	if err := a.svc.Send(ctx, "me", c.ID, "check me in"); err != nil {
		t.Fatal(err)
	}
	v := chattest.WaitView(t, a.svc, "me", c.ID, "the question", func(v pageview.View) bool { return chattest.PendingElicit(v) != nil })
	eid := chattest.PendingElicit(v).Request.ID
	if _, err := b.svc.View(ctx, "me", c.ID); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("the other node's view of a conversation live here: %v, want Unavailable", err)
	}

	if err := a.node.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	v = chattest.WaitView(t, b.svc, "me", c.ID, "the question on the node that took it", func(v pageview.View) bool { return chattest.PendingElicit(v) != nil })
	if got := chattest.PendingElicit(v).Request.ID; got != eid {
		t.Fatalf("the node that took it over waits on %s, want the same question %s", got, eid)
	}
	waitMoved, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		_, err := page.Next(waitMoved)
		if chat.IsMoved(err) {
			break
		}
		if err != nil {
			t.Fatalf("the first node's page: %v, want to be told the conversation moved", err)
		}
	}

	if err := b.svc.Answer(ctx, "me", c.ID, eid, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	v = chattest.WaitView(t, b.svc, "me", c.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if last := v.Items[len(v.Items)-1]; last.Text != "done on path 0" {
		t.Errorf("the turn ended with %+v, want its reply", last)
	}
	nodes, err := b.db.Nodes(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	answers := 0
	for _, n := range nodes {
		if n.Kind == tree.ElicitResponse {
			answers++
		}
	}
	if answers != 1 {
		t.Errorf("%d answers recorded, want one", answers)
	}
}

// A server of a build older than the database's schema (a newer build
// migrated it since) does not join the other servers: it is refused with
// both migration numbers and what to do. One of the same schema joins.
func TestAnOlderBuildThanTheDatabaseIsRefused(t *testing.T) {
	ctx := t.Context()
	url := pgtest.Schema(t)
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	log := slog.New(slog.DiscardHandler)
	node, err := nodeOf(ctx, db, url, "http://127.0.0.1:9", "test build", log)
	if err != nil {
		t.Fatalf("a build of the database's schema: %v", err)
	}
	node.Close()

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	newer := db.Known() + 1
	if _, err := conn.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from_a_newer_build.sql', 0)", newer); err != nil {
		t.Fatal(err)
	}
	node, err = nodeOf(ctx, db, url, "http://127.0.0.1:9", "test build", log)
	if err == nil {
		node.Close()
		t.Fatal("a build older than the database's schema joined")
	}
	for _, want := range []string{fmt.Sprintf("schema migration %d", newer), fmt.Sprintf("this build knows (%d)", db.Known()), "run the newer build"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to say %q", err, want)
		}
	}
}

// A PostgreSQL URL is named in logs and errors without its password,
// wherever it is given.
func TestADatabaseIsNamedWithoutItsPassword(t *testing.T) {
	for _, url := range []string{"postgres://ann:s3cret@db.example/chat", "postgresql://db.example/chat?password=s3cret&sslmode=disable"} {
		if got := shownDB(url); strings.Contains(got, "s3cret") || !strings.Contains(got, "db.example") {
			t.Errorf("shownDB(%q) = %q, want the database named without its password", url, got)
		}
	}
	if got := shownDB("data/app.db"); got != "data/app.db" {
		t.Errorf("a SQLite file is shown as %q", got)
	}
}

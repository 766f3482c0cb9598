package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// MustOpen opens a database in a fresh temporary directory.
func TestMain(m *testing.M) { pgtest.Main(m) }

// contract runs test on each engine the store runs on, each time with a
// database of its own: a SQLite file in a temporary directory, and a
// schema of its own on the test binary's PostgreSQL (internal/store/pgtest). The
// tests that run through it are the store's contract: what holds on both.
func contract(t *testing.T, test func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) { test(t, filepath.Join(t.TempDir(), "data", "test.db")) })
	t.Run("postgres", func(t *testing.T) { test(t, pgtest.Schema(t)) })
}

// openTarget opens the database at target (a SQLite path or a PostgreSQL
// URL) with opts; it is closed when the test ends.
func openTarget(tb testing.TB, target string, opts Options) *DB {
	tb.Helper()
	db, err := Open(context.Background(), target, opts)
	if err != nil {
		tb.Fatalf("open %s database: %v", engineOf(target), err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func engineOf(target string) string {
	if IsPostgres(target) {
		return "postgres"
	}
	return "sqlite"
}

// MustOpen opens a SQLite database of the test's own: for what is SQLite's
// alone (group commit, the write-ahead log, pragmas).
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(context.Background(), filepath.Join(tb.TempDir(), "data", "test.db"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func newConversation(t *testing.T, db *DB, session, id string) tree.Conversation {
	t.Helper()
	ctx := context.Background()
	if err := db.EnsureSession(ctx, session); err != nil {
		t.Fatal(err)
	}
	c, err := db.CreateConversation(ctx, tree.Conversation{ID: id, Session: session, Agent: "concierge"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newConversationSaying creates conversation id with a first user message,
// which is its HEAD.
func newConversationSaying(t *testing.T, db *DB, session, id, text string) (tree.Conversation, tree.Node) {
	t.Helper()
	c := newConversation(t, db, session, id)
	payload, err := json.Marshal(tree.Message{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	first, err := db.Append(context.Background(), tree.Node{Conversation: c.ID, Kind: tree.UserMessage, Payload: payload}, tree.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, first
}

func TestAppendAndReadBack(t *testing.T) { contract(t, testAppendAndReadBack) }

func testAppendAndReadBack(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c := newConversation(t, db, "s1", "c1")
	var ids []int64
	var head int64
	for _, text := range []string{"hello", "world"} {
		n, err := db.Append(ctx, tree.Node{Conversation: c.ID, Parent: head, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"` + text + `"}`)}, tree.AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
		head = n.ID
	}
	nodes, err := db.Nodes(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("got %d nodes, want 2", len(nodes))
	}
	if got, want := nodes[1].Parent, ids[0]; got != want {
		t.Errorf("second node's parent = %d, want %d (each node hangs from HEAD)", got, want)
	}
	got, err := db.Conversation(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != ids[1] {
		t.Errorf("head = %d, want %d", got.Head, ids[1])
	}
	if path := tree.NewIndex(nodes).PathTo(got.Head); len(path) != 2 || string(path[0].Payload) != `{"text":"hello"}` {
		t.Errorf("path = %+v", path)
	}
}

func TestAppendChainHangsEachNodeUnderTheOneBeforeInOneCommit(t *testing.T) {
	contract(t, testAppendChainHangsEachNodeUnderTheOneBeforeInOneCommit)
}

func testAppendChainHangsEachNodeUnderTheOneBeforeInOneCommit(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c, first := newConversationSaying(t, db, "s1", "c1", "hi")
	chain, err := db.AppendChain(ctx, []tree.Node{
		{Conversation: c.ID, Parent: first.ID, Kind: tree.ElicitResponse, Ref: "1-1", Payload: json.RawMessage(`{"action":"accept"}`)},
		{Conversation: c.ID, Kind: tree.ElicitRequest, Ref: "1-2", Payload: json.RawMessage(`{"message":"next?"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if chain[0].Parent != first.ID || chain[1].Parent != chain[0].ID {
		t.Errorf("parents = %d, %d; want %d, %d", chain[0].Parent, chain[1].Parent, first.ID, chain[0].ID)
	}
	got, nodes, err := db.Load(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != chain[1].ID || len(nodes) != 3 {
		t.Errorf("HEAD %d with %d nodes; want HEAD %d with 3", got.Head, len(nodes), chain[1].ID)
	}

	// A chain that cannot be written writes nothing: one across two
	// conversations, or one whose conversation does not exist.
	other := newConversation(t, db, "s1", "c2")
	for _, bad := range [][]tree.Node{
		{{Conversation: c.ID, Kind: tree.Notify, Payload: json.RawMessage(`{}`)}, {Conversation: other.ID, Kind: tree.Notify, Payload: json.RawMessage(`{}`)}},
		{{Conversation: "nobody's", Kind: tree.Notify, Payload: json.RawMessage(`{}`)}, {Conversation: "nobody's", Kind: tree.Notify, Payload: json.RawMessage(`{}`)}},
	} {
		if _, err := db.AppendChain(ctx, bad); err == nil {
			t.Errorf("the chain %v was written", bad)
		}
	}
	if nodes, _ := db.Nodes(ctx, other.ID); len(nodes) != 0 {
		t.Errorf("the other conversation has %d nodes, want none", len(nodes))
	}
	if got, nodes, _ := db.Load(ctx, "s1", c.ID); got.Head != chain[1].ID || len(nodes) != 3 {
		t.Errorf("after a failed chain: HEAD %d with %d nodes; want HEAD %d with 3", got.Head, len(nodes), chain[1].ID)
	}
}

func TestAnAppendThatHasHEADWrongIsRefused(t *testing.T) {
	contract(t, testAnAppendThatHasHEADWrongIsRefused)
}

func testAnAppendThatHasHEADWrongIsRefused(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c, first := newConversationSaying(t, db, "s1", "c1", "hi")
	// A writer that still thinks HEAD is the root, alone or with a chain.
	stale := tree.Node{Conversation: c.ID, Parent: 0, Kind: tree.AssistantMessage, Payload: json.RawMessage(`{"text":"late"}`)}
	if _, err := db.Append(ctx, stale, tree.AppendOptions{}); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("append at a stale HEAD: %v, want Conflict", err)
	}
	if _, err := db.AppendChain(ctx, []tree.Node{stale, stale}); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("chain at a stale HEAD: %v, want Conflict", err)
	}
	got, nodes, err := db.Load(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != first.ID || len(nodes) != 1 {
		t.Errorf("HEAD %d with %d nodes, want %d with 1: a refused append writes nothing", got.Head, len(nodes), first.ID)
	}
}

func TestConversationOwnedBySession(t *testing.T) { contract(t, testConversationOwnedBySession) }

func testConversationOwnedBySession(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	newConversation(t, db, "owner", "c1")
	_, err := db.Conversation(context.Background(), "intruder", "c1")
	if apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session got %v, want not found", err)
	}
}

func TestForkMovesHeadAndTheReflogRecordsIt(t *testing.T) {
	contract(t, testForkMovesHeadAndTheReflogRecordsIt)
}

func testForkMovesHeadAndTheReflogRecordsIt(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c := newConversation(t, db, "s", "c")
	msg := func(text string) json.RawMessage { return json.RawMessage(`{"text":"` + text + `"}`) }
	first, err := db.Append(ctx, tree.Node{Conversation: c.ID, Kind: tree.UserMessage, Payload: msg("hi")}, tree.AppendOptions{Log: &tree.Move{Action: tree.ActMessage}})
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := db.Append(ctx, tree.Node{Conversation: c.ID, Parent: first.ID, Kind: tree.AssistantMessage, Payload: msg("hello")}, tree.AppendOptions{})
	edited, err := db.Append(ctx, tree.Node{Conversation: c.ID, Parent: first.Parent, Kind: tree.UserMessage, Payload: msg("hey")},
		tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActEdit, Detail: "hey"}})
	if err != nil {
		t.Fatal(err)
	}
	if edited.Parent != first.Parent {
		t.Errorf("the edit hangs from %d, want %d (beside the original)", edited.Parent, first.Parent)
	}
	back, err := db.MoveHead(ctx, c.ID, reply.ID, tree.Move{Action: tree.ActSwitch})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := db.Conversation(ctx, "s", c.ID)
	if got.Head != reply.ID {
		t.Errorf("HEAD = %d, want %d", got.Head, reply.ID)
	}
	log, err := db.Reflog(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []tree.RefEntry{
		{ID: back.ID, Head: reply.ID, Prev: edited.ID, Action: tree.ActSwitch},
		{Head: edited.ID, Prev: reply.ID, Action: tree.ActEdit, Detail: "hey"},
		{Head: first.ID, Prev: 0, Action: tree.ActMessage},
	}
	if len(log) != len(want) {
		t.Fatalf("reflog = %+v, want %d entries", log, len(want))
	}
	for i, w := range want {
		g := log[i]
		if (w.ID != 0 && g.ID != w.ID) || g.Head != w.Head || g.Prev != w.Prev || g.Action != w.Action || g.Detail != w.Detail {
			t.Errorf("reflog[%d] = %+v, want %+v", i, g, w)
		}
	}

	// Nodes of other conversations, or none at all, are not found; nothing moves.
	other := newConversation(t, db, "s", "other")
	stray, _ := db.Append(ctx, tree.Node{Conversation: other.ID, Kind: tree.UserMessage, Payload: msg("x")}, tree.AppendOptions{})
	for _, id := range []int64{stray.ID, 9999} {
		if _, err := db.MoveHead(ctx, c.ID, id, tree.Move{Action: tree.ActRecover}); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("MoveHead to node %d: err = %v, want not found", id, err)
		}
		if _, err := db.Append(ctx, tree.Node{Conversation: c.ID, Parent: id, Kind: tree.UserMessage, Payload: msg("y")}, tree.AppendOptions{Fork: true}); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("fork from node %d: err = %v, want not found", id, err)
		}
	}
	if got, _ := db.Conversation(ctx, "s", c.ID); got.Head != reply.ID {
		t.Errorf("refused moves changed HEAD to %d", got.Head)
	}
}

func TestSurvivesReopen(t *testing.T) { contract(t, testSurvivesReopen) }

func testSurvivesReopen(t *testing.T, target string) {
	path := target
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: "c", Session: "s", Agent: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Append(ctx, tree.Node{Conversation: "c", Kind: tree.UserMessage, Payload: json.RawMessage(`{}`)}, tree.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path, Options{Durability: PowerSafe})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes, err := db.Nodes(ctx, "c")
	if err != nil || len(nodes) != 1 {
		t.Errorf("after reopening: %d nodes, %v; want 1", len(nodes), err)
	}
	v, err := db.Version(ctx)
	if err != nil || v < 1 {
		t.Errorf("version = %d, %v; want >= 1 (migrations applied once, not again)", v, err)
	}
}

// walFileSize returns the size of the write-ahead log of the database at
// path, 0 when there is none.
func walFileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// walGeneration returns the checkpoint sequence number in the header of
// the write-ahead log of the database at path, which SQLite increments
// each time the log starts over from its beginning.
func walGeneration(t *testing.T, path string) uint32 {
	t.Helper()
	f, err := os.Open(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hdr [32]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(hdr[12:16])
}

// awaitLooks waits until the checkpointer of db has looked at the log n
// more times.
func awaitLooks(t *testing.T, db *DB, n int64) {
	t.Helper()
	want := db.ckpt.looks.Load() + n
	waitFor(t, 10*time.Second, "the checkpointer to look at the log", func() bool { return db.ckpt.looks.Load() >= want })
}

// The first commit after the log was copied in full starts it over, and
// syncs its new header: an fsync on a commit's path. Commits spread over
// time, as a person's answers are, leave a small log where it is.
func TestCommitsAtAPersonsPaceDoNotStartTheLogOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := newConversation(t, db, "s", "c")
	gen := walGeneration(t, path)
	var last tree.Node
	for i := range 5 {
		if last, err = db.Append(ctx, tree.Node{Conversation: c.ID, Parent: last.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"hi"}`)}, tree.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
		awaitLooks(t, db, 2)
		if got := walGeneration(t, path); got != gen {
			t.Fatalf("after commit %d the log started over (generation %d, was %d)", i+1, got, gen)
		}
	}
	// What they committed is synced to disk all the same, off their path.
	waitFor(t, 10*time.Second, "the log to be synced", func() bool { return db.ckpt.syncs.Load() > 0 })
}

func TestWriteAheadLogStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	ctx := context.Background()
	db, err := Open(ctx, path, Options{quietAfter: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := newConversation(t, db, "s", "c")

	// Under steady writes the log grows past checkpointFrames, is copied
	// into the database file and starts over, and its file stays within
	// journalSizeLimit. How far the log grows between two looks of the
	// checkpointer depends on how the scheduler shares two cores between
	// the writer and it; what the checkpointer guarantees is what it does
	// at each look. So the writer here waits, every batch, for a look that
	// began after the batch: the log then never holds more than
	// checkpointFrames plus a few batches of 16 KiB appends (five pages
	// each) before it starts over.
	const batch = 64
	payload := json.RawMessage(`{"text":"` + strings.Repeat("x", 16<<10) + `"}`)
	var last tree.Node
	appended := 0
	// The log may be empty now: with nothing written for quietAfter, the
	// checkpointer truncates it. Its generation is read after each batch,
	// while it holds that batch.
	var first uint32
	for started := false; !started; {
		if appended >= 20_000 {
			t.Fatalf("the log has not started over after %d appends of 16 KiB", appended)
		}
		for range batch {
			if last, err = db.Append(ctx, tree.Node{Conversation: c.ID, Parent: last.ID, Kind: tree.UserMessage, Payload: payload}, tree.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
			appended++
		}
		if gen := walGeneration(t, path); appended == batch {
			first = gen
		} else {
			started = gen != first
		}
		// A look under way may have begun before the batch; the one after
		// it began after.
		awaitLooks(t, db, 2)
		if size := walFileSize(t, path); size > journalSizeLimit {
			t.Fatalf("after %d appends the log is %d bytes, more than %d", appended, size, journalSizeLimit)
		}
	}

	// Once writes stop, the checkpointer truncates it, with the database
	// open.
	waitFor(t, 10*time.Second, "the log to be truncated", func() bool { return walFileSize(t, path) == 0 })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := walFileSize(t, path); got != 0 {
		t.Errorf("after Close the log is %d bytes, want none", got)
	}

	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes, err := db.Nodes(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(nodes), appended; got != want {
		t.Errorf("after reopening: %d nodes, want %d", got, want)
	}
	got, err := db.Conversation(ctx, "s", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != last.ID {
		t.Errorf("after reopening: HEAD = %d, want %d", got.Head, last.ID)
	}
}

func TestConnectionsKeepTheDurability(t *testing.T) {
	for _, tc := range []struct {
		durability Durability
		want       int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{CrashSafe, 1},
		{PowerSafe, 2},
	} {
		t.Run(string(tc.durability), func(t *testing.T) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(t.TempDir(), "app.db"), Options{Durability: tc.durability})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for name, conn := range map[string]*sql.DB{"writer": db.write.DB, "reader": db.read.DB, "checkpointer": db.ckpt.conn} {
				var got int
				if err := conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("%s: synchronous = %d, want %d", name, got, tc.want)
				}
			}
			// The writer leaves checkpoints to the checkpointer.
			var got int
			if err := db.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != 0 {
				t.Errorf("writer: wal_autocheckpoint = %d, want 0", got)
			}
		})
	}
}

// waitFor polls cond until it holds, or fails the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// A check of the whole database before a deploy lists every conversation,
// whichever session owns it, oldest first.
func TestEveryConversationListsAllSessions(t *testing.T) {
	contract(t, testEveryConversationListsAllSessions)
}

func testEveryConversationListsAllSessions(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	newConversation(t, db, "s1", "a")
	newConversation(t, db, "s2", "b")
	newConversation(t, db, "s1", "c")
	all, err := db.EveryConversation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range all {
		got = append(got, c.Session+"/"+c.ID)
	}
	if want := "s1/a s2/b s1/c"; strings.Join(got, " ") != want {
		t.Errorf("every conversation: %v, want %s", got, want)
	}
}

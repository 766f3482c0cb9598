package store

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// clock is a settable Now for the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openAt(t *testing.T, target string, c *clock) *DB {
	t.Helper()
	return openTarget(t, target, Options{Now: c.now})
}

func owned(t *testing.T, db *DB, session string) []string {
	t.Helper()
	cs, err := db.Conversations(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	slices.Sort(out)
	return out
}

// handoff is the window and client most rotations here are made with.
var handoff = struct {
	Within time.Duration
	Client string
}{30 * time.Second, "192.0.2.1"}

func TestRotateSessionMovesConversationsToTheNewId(t *testing.T) {
	contract(t, testRotateSessionMovesConversationsToTheNewId)
}

func testRotateSessionMovesConversationsToTheNewId(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	newConversation(t, db, "old", "c1")
	newConversation(t, db, "old", "c2")
	newConversation(t, db, "someone", "c3")
	got, err := db.RotateSession(ctx, "old", "new", handoff.Client, handoff.Within)
	if err != nil {
		t.Fatal(err)
	}
	if got != "new" {
		t.Fatalf("rotating a live session gave %q, want the new id", got)
	}
	if got := owned(t, db, "new"); !slices.Equal(got, []string{"c1", "c2"}) {
		t.Errorf("the new session owns %v, want c1 and c2", got)
	}
	if got := owned(t, db, "old"); len(got) != 0 {
		t.Errorf("the old session still owns %v", got)
	}
	if got := owned(t, db, "someone"); len(got) != 1 {
		t.Errorf("another session's conversations moved: it owns %v", got)
	}
	// A session that was never issued moves nothing and is not recorded;
	// the new one starts empty. An id cannot be issued twice.
	if got, err := db.RotateSession(ctx, "planted", "fresh", handoff.Client, handoff.Within); err != nil || got != "fresh" {
		t.Fatalf("rotating an unknown id = %q, %v; want fresh", got, err)
	}
	if got := owned(t, db, "fresh"); len(got) != 0 {
		t.Errorf("a fresh session owns %v", got)
	}
	if s, _ := db.Session(ctx, "planted", handoff.Client, handoff.Within); s != "" {
		t.Errorf("an id that was never issued leads to %q", s)
	}
	if _, err := db.RotateSession(ctx, "", "fresh", handoff.Client, handoff.Within); err == nil {
		t.Error("an id was issued twice")
	}
}

// TestARotatedSessionLeadsToItsSuccessorBriefly: a request sent with the
// previous id by the same client just after a rotation (a double-click, a
// second tab) reaches the successor; another client, or the same one after
// the handoff window, reaches nothing.
func TestARotatedSessionLeadsToItsSuccessorBriefly(t *testing.T) {
	contract(t, testARotatedSessionLeadsToItsSuccessorBriefly)
}

func testARotatedSessionLeadsToItsSuccessorBriefly(t *testing.T, target string) {
	c := &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	db := openAt(t, target, c)
	ctx := context.Background()
	newConversation(t, db, "a", "c1")
	if _, err := db.RotateSession(ctx, "a", "b", handoff.Client, handoff.Within); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RotateSession(ctx, "b", "c", handoff.Client, handoff.Within); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		id   string
		from string
		want string
	}{
		{"the live id", "c", handoff.Client, "c"},
		{"the previous id, same client", "b", handoff.Client, "c"},
		{"two rotations back, same client", "a", handoff.Client, "c"},
		{"the previous id, another client", "b", "198.51.100.7", ""},
		{"never issued", "zzz", handoff.Client, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Session(ctx, tc.id, tc.from, handoff.Within)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Session(%q) = %q, want %q", tc.id, got, tc.want)
			}
		})
	}

	c.advance(handoff.Within + time.Second)
	if got, _ := db.Session(ctx, "b", handoff.Client, handoff.Within); got != "" {
		t.Errorf("after the handoff window the previous id leads to %q, want nothing", got)
	}
	if got, _ := db.Session(ctx, "c", handoff.Client, handoff.Within); got != "c" {
		t.Errorf("the live id after the window = %q, want c", got)
	}
	// A rotation from a stale id owns nothing; the stale rows are gone.
	got, err := db.RotateSession(ctx, "b", "d", handoff.Client, handoff.Within)
	if err != nil || got != "d" {
		t.Fatalf("rotating a stale id = %q, %v; want d", got, err)
	}
	if got := owned(t, db, "d"); len(got) != 0 {
		t.Errorf("a stale id handed over %v", got)
	}
	if got := owned(t, db, "c"); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("the live session owns %v, want c1", got)
	}
	var n int
	db.read.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id IN ('a', 'b')`).Scan(&n)
	if n != 0 {
		t.Errorf("%d rotations older than the window are still recorded", n)
	}
}

// TestConcurrentRotationsOfOneSessionAgree: many rotations of the same id at
// once, as a double-click on Send makes, all end on one session, which owns
// every conversation the browser had.
func TestConcurrentRotationsOfOneSessionAgree(t *testing.T) {
	contract(t, testConcurrentRotationsOfOneSessionAgree)
}

func testConcurrentRotationsOfOneSessionAgree(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	newConversation(t, db, "old", "c1")
	newConversation(t, db, "old", "c2")
	const n = 8
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id, err := db.RotateSession(ctx, "old", "new"+string(rune('a'+i)), handoff.Client, handoff.Within)
			if err != nil {
				t.Error(err)
			}
			got[i] = id
		})
	}
	wg.Wait()
	for _, id := range got[1:] {
		if id != got[0] {
			t.Fatalf("concurrent rotations gave %v, want one id", got)
		}
	}
	if owns := owned(t, db, got[0]); !slices.Equal(owns, []string{"c1", "c2"}) {
		t.Errorf("the session all rotations agreed on owns %v, want c1 and c2", owns)
	}
}

// TestAPinnedSessionIsNeverRotated: a browser that holds a pinned session
// (one the program owns conversations in) keeps it when it starts a
// conversation: nothing moves, no successor is recorded.
func TestAPinnedSessionIsNeverRotated(t *testing.T) { contract(t, testAPinnedSessionIsNeverRotated) }

func testAPinnedSessionIsNeverRotated(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	if err := db.PinSession(ctx, "pinned"); err != nil {
		t.Fatal(err)
	}
	newConversation(t, db, "pinned", "c1")
	got, err := db.RotateSession(ctx, "pinned", "next", handoff.Client, handoff.Within)
	if err != nil || got != "pinned" {
		t.Fatalf("rotating a pinned session = %q, %v; want it kept", got, err)
	}
	if got := owned(t, db, "pinned"); len(got) != 1 {
		t.Errorf("the pinned session owns %v after the rotation; want its conversation", got)
	}
	if id, err := db.Session(ctx, "next", handoff.Client, handoff.Within); err != nil || id != "" {
		t.Errorf("the successor not issued resolves to %q, %v; want nothing", id, err)
	}
	// Pinning again is harmless.
	if err := db.PinSession(ctx, "pinned"); err != nil {
		t.Fatal(err)
	}
}

// TestASessionReadBeforeItsRotationFollowsIt: a session a browser's
// requests have resolved many times still moves on when it is rotated, even
// while requests resolve it during the rotation: afterwards it leads to
// its successor for the same client only, as one never read would.
func TestASessionReadBeforeItsRotationFollowsIt(t *testing.T) {
	contract(t, testASessionReadBeforeItsRotationFollowsIt)
}

func testASessionReadBeforeItsRotationFollowsIt(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	const other = "198.51.100.7"
	newConversation(t, db, "a", "c1")
	for range 3 {
		if got, err := db.Session(ctx, "a", other, handoff.Within); err != nil || got != "a" {
			t.Fatalf("Session(a) before the rotation = %q, %v; want a", got, err)
		}
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := db.Session(ctx, "a", other, handoff.Within); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	_, err := db.RotateSession(ctx, "a", "b", handoff.Client, handoff.Within)
	close(stop)
	readers.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Session(ctx, "a", other, handoff.Within); got != "" {
		t.Errorf("after the rotation the previous id leads another client to %q, want nothing", got)
	}
	if got, _ := db.Session(ctx, "a", handoff.Client, handoff.Within); got != "b" {
		t.Errorf("after the rotation the previous id leads its client to %q, want b", got)
	}
	if got, _ := db.Session(ctx, "b", other, handoff.Within); got != "b" {
		t.Errorf("the successor = %q, want b", got)
	}
}

// TestARotationOnOneNodeReachesTheOthers: on PostgreSQL, where several
// servers share the database, a session one node has resolved moves on when
// another node rotates it.
func TestARotationOnOneNodeReachesTheOthers(t *testing.T) {
	target := pgtest.Schema(t)
	one, two := openTarget(t, target, Options{}), openTarget(t, target, Options{})
	ctx := context.Background()
	const other = "198.51.100.7"
	newConversation(t, one, "a", "c1")
	if got, err := one.Session(ctx, "a", other, handoff.Within); err != nil || got != "a" {
		t.Fatalf("Session(a) on the first node = %q, %v; want a", got, err)
	}
	if _, err := two.RotateSession(ctx, "a", "b", handoff.Client, handoff.Within); err != nil {
		t.Fatal(err)
	}
	if got, _ := one.Session(ctx, "a", other, handoff.Within); got != "" {
		t.Errorf("after a rotation on the second node the first leads another client to %q, want nothing", got)
	}
}

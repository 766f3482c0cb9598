package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// events reads the stream's events after index as strings, failing the
// test on an error.
func events(t *testing.T, db *DB, session, stream string, index int) (int, []string) {
	t.Helper()
	first, data, err := db.EventsAfter(context.Background(), session, stream, index)
	if err != nil {
		t.Fatalf("events of %s/%s after %d: %v", session, stream, index, err)
	}
	var out []string
	for _, d := range data {
		out = append(out, string(d))
	}
	return first, out
}

func appendEvents(t *testing.T, db *DB, session, stream string, keep int, data ...string) {
	t.Helper()
	for _, d := range data {
		if err := db.AppendEvent(context.Background(), session, stream, []byte(d), keep, false); err != nil {
			t.Fatalf("append %q to %s/%s: %v", d, session, stream, err)
		}
	}
}

// openStream starts the stream with its first event.
func openStream(t *testing.T, db *DB, session, stream string, keep int, first string) {
	t.Helper()
	if err := db.AppendEvent(context.Background(), session, stream, []byte(first), keep, true); err != nil {
		t.Fatalf("open %s/%s with %q: %v", session, stream, first, err)
	}
}

// An MCP stream's events come back in the order appended, after the index
// a client names, and from another store on the same file: what a server
// restarted reads.
func TestMCPStreamEventsAreReadAfterAnIndexAndSurviveReopen(t *testing.T) {
	contract(t, testMCPStreamEventsAreReadAfterAnIndexAndSurviveReopen)
}

func testMCPStreamEventsAreReadAfterAnIndexAndSurviveReopen(t *testing.T, target string) {
	ctx := context.Background()
	path := target
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendEvent(ctx, "s1", "a", nil, 0, true); err != nil { // a priming event has no data
		t.Fatal(err)
	}
	appendEvents(t, db, "s1", "a", 0, "one", "two")
	openStream(t, db, "s1", "b", 0, "other")
	appendEvents(t, db, "s1", "a", 0, "three")

	for _, c := range []struct {
		index int
		want  string
	}{{-1, "|one|two|three"}, {0, "one|two|three"}, {2, "three"}, {3, ""}, {7, ""}} {
		if _, got := events(t, db, "s1", "a", c.index); strings.Join(got, "|") != c.want {
			t.Errorf("after %d: %q, want %q", c.index, got, c.want)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	again, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	if _, got := events(t, again, "s1", "a", 1); strings.Join(got, "|") != "two|three" {
		t.Errorf("after reopening, after 1: %q, want two|three", got)
	}
	appendEvents(t, again, "s1", "b", 0, "more")
	if _, got := events(t, again, "s1", "b", 0); strings.Join(got, "|") != "more" {
		t.Errorf("appended after reopening, after 0: %q, want the new event numbered 1", got)
	}
}

func TestAnMCPStreamNotOpenIsNotFound(t *testing.T) { contract(t, testAnMCPStreamNotOpenIsNotFound) }

func testAnMCPStreamNotOpenIsNotFound(t *testing.T, target string) {
	ctx := context.Background()
	db := openAt(t, target, &clock{t: time.UnixMilli(1_700_000_000_000)})
	if err := db.AppendEvent(ctx, "s1", "a", []byte("x"), 0, false); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("append to a stream never opened: %v, want NotFound", err)
	}
	if _, _, err := db.EventsAfter(ctx, "s1", "a", -1); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("read a stream never opened: %v, want NotFound", err)
	}
}

// A stream opened again starts over, as the SDK numbers it from 0 again.
func TestAnMCPStreamOpenedAgainStartsOver(t *testing.T) {
	contract(t, testAnMCPStreamOpenedAgainStartsOver)
}

func testAnMCPStreamOpenedAgainStartsOver(t *testing.T, target string) {
	db := openAt(t, target, &clock{t: time.UnixMilli(1_700_000_000_000)})
	openStream(t, db, "s1", "", 0, "old0")
	appendEvents(t, db, "s1", "", 0, "old1")
	openStream(t, db, "s1", "", 0, "new0")
	appendEvents(t, db, "s1", "", 0, "new1")
	if first, got := events(t, db, "s1", "", 0); first != 0 || strings.Join(got, "|") != "new1" {
		t.Errorf("after 0: first %d, %q; want 0, new1", first, got)
	}
}

// Over its bound a stream drops its oldest events, keeps the newest, and
// says from which index it keeps them.
func TestAnMCPStreamOverItsBoundDropsItsOldestEvents(t *testing.T) {
	contract(t, testAnMCPStreamOverItsBoundDropsItsOldestEvents)
}

func testAnMCPStreamOverItsBoundDropsItsOldestEvents(t *testing.T, target string) {
	db := openAt(t, target, &clock{t: time.UnixMilli(1_700_000_000_000)})
	openStream(t, db, "s1", "b", 10, "bbbb")
	openStream(t, db, "s1", "a", 10, "0000")
	appendEvents(t, db, "s1", "a", 10, "1111", "2222")
	if first, got := events(t, db, "s1", "a", -1); first != 1 || strings.Join(got, "|") != "1111|2222" {
		t.Errorf("12 bytes over a bound of 10: first %d, %q; want 1, 1111|2222", first, got)
	}
	appendEvents(t, db, "s1", "a", 10, "a larger event than the bound")
	if first, got := events(t, db, "s1", "a", -1); first != 3 || strings.Join(got, "|") != "a larger event than the bound" {
		t.Errorf("an event over the bound alone: first %d, %q; want it kept, from 3", first, got)
	}
	appendEvents(t, db, "s1", "a", 10, "4")
	if first, got := events(t, db, "s1", "a", -1); first != 4 || strings.Join(got, "|") != "4" {
		t.Errorf("then a small one: first %d, %q; want 4, 4", first, got)
	}
	if first, got := events(t, db, "s1", "b", -1); first != 0 || strings.Join(got, "|") != "bbbb" {
		t.Errorf("the other stream: first %d, %q; want it untouched", first, got)
	}
}

// A session closed, or idle past the point given, leaves nothing behind;
// the others keep theirs.
func TestMCPSessionsClosedOrIdleAreForgotten(t *testing.T) {
	contract(t, testMCPSessionsClosedOrIdleAreForgotten)
}

func testMCPSessionsClosedOrIdleAreForgotten(t *testing.T, target string) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	db := openAt(t, target, c)
	for _, s := range []string{"closed", "idle", "busy"} {
		openStream(t, db, s, "", 0, "")
		openStream(t, db, s, "x", 0, "e")
	}
	c.advance(time.Hour)
	appendEvents(t, db, "busy", "", 0, "later")
	if err := db.ForgetEventSession(ctx, "closed"); err != nil {
		t.Fatal(err)
	}
	n, err := db.ForgetIdleEventSessions(ctx, c.now().Add(-30*time.Minute))
	if err != nil || n != 1 {
		t.Errorf("forget idle: %d, %v; want the one idle session", n, err)
	}
	for _, s := range []string{"closed", "idle"} {
		if _, _, err := db.EventsAfter(ctx, s, "x", -1); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("%s's stream: %v, want NotFound", s, err)
		}
	}
	var left int
	if err := db.read.QueryRow(`SELECT COUNT(*) FROM mcp_events WHERE session_id IN ('closed', 'idle')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("events of forgotten sessions left: %d, %v", left, err)
	}
	if _, got := events(t, db, "busy", "x", -1); strings.Join(got, "|") != "e" {
		t.Errorf("busy's stream x: %q; want its event kept: the session is busy", got)
	}
	for s, want := range map[string]string{"busy": ",x", "closed": ""} {
		got, err := db.EventStreams(ctx, s)
		slices.Sort(got)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("%s's streams: %q, %v; want %q", s, got, err, want)
		}
	}
}

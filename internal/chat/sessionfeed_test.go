package chat_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
)

// takeRecorded waits until the follower was handed what each of want
// recorded, and returns the session it follows then.
func takeRecorded(t *testing.T, f *sessionfeed.Follower, want ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	seen := map[string]bool{}
	for {
		u := f.Take()
		for _, id := range u.Recorded {
			seen[id] = true
		}
		if !slices.ContainsFunc(want, func(id string) bool { return !seen[id] }) {
			return u.Session
		}
		if err := f.Wait(ctx); err != nil {
			t.Fatalf("the follower was handed %v, want %v: %v", seen, want, err)
		}
	}
}

// A session follower is told which of its session's conversations
// recorded, whichever they are, and follows the session when it is
// rotated; another session's follower is told nothing.
func TestASessionFollowerIsToldWhatItsConversationsRecord(t *testing.T) {
	svc, _ := newService(t, offline.New())
	const client = "192.0.2.7"
	session, err := svc.RotateSession(t.Context(), "", client)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := svc.Create(t.Context(), session, "assistant")
	b, _ := svc.Create(t.Context(), session, "assistant")
	f := svc.Sessions().Follow(session)
	defer f.Close()
	other := svc.Sessions().Follow("someone else")
	defer other.Close()

	for _, id := range []string{a.ID, b.ID} {
		if err := svc.Send(t.Context(), session, id, "hello"); err != nil {
			t.Fatal(err)
		}
	}
	if got := takeRecorded(t, f, a.ID, b.ID); got != session {
		t.Errorf("the follower follows %q, want %q", got, session)
	}

	next, err := svc.RotateSession(t.Context(), session, client)
	if err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, next, a.ID, "the end of the turn", func(v pageview.View) bool { return !v.Status.Running })
	f.Take()
	if err := svc.Send(t.Context(), next, a.ID, "again"); err != nil {
		t.Fatal(err)
	}
	if got := takeRecorded(t, f, a.ID); got != next {
		t.Errorf("after the rotation the follower follows %q, want %q", got, next)
	}
	if u := other.Take(); len(u.Recorded) != 0 {
		t.Errorf("another session's follower was handed %v, want nothing", u.Recorded)
	}
}

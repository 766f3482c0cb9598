// Package chattest starts chat services for tests on a fresh database and
// waits on what their pages show, for the tests of chat and of the read
// models beside it.
package chattest

import (
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// New starts a service configured by cfg on a fresh database, which it sets
// as cfg's Store; the service is closed when the test ends.
func New(t testing.TB, cfg chat.Config) (*chat.Service, *store.DB) {
	t.Helper()
	db := storetest.Open(t)
	cfg.Store = db
	svc := chat.New(cfg)
	t.Cleanup(svc.Close)
	return svc, db
}

// WaitView waits until the conversation's view satisfies cond, for at most
// ten seconds, and returns it; what names what is waited for.
func WaitView(t testing.TB, svc *chat.Service, session, id, what string, cond func(pageview.View) bool) pageview.View {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := svc.View(t.Context(), session, id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; view: %+v", what, v)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// PendingElicit returns the question the view shows waiting, if any.
func PendingElicit(v pageview.View) *pageview.ElicitView {
	for i := range v.Items {
		if e := v.Items[i].Elicit; e != nil && e.State == pageview.Pending {
			return e
		}
	}
	return nil
}

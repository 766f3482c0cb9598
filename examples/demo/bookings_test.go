package demo_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
)

var bookingRef = regexp.MustCompile(`SP-[0-9A-Z]{6}`)

// The bookings "List my bookings" shows are the conversation's own: two
// browsers booking from one catalogue each see their own booking alone,
// and a fresh browser sees none.
func TestListBookingsShowsTheConversationsOwnAlone(t *testing.T) {
	cat, err := flights.NewMemory(flights.Seed(time.Now()), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	svc := storyService(t, func(ctx context.Context) context.Context { return demo.Catalogue.With(ctx, cat) })
	ctx := t.Context()
	view := func(session, conv, what string, cond func(pageview.View) bool) pageview.View {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			v, err := svc.View(ctx, session, conv)
			if err != nil {
				t.Fatal(err)
			}
			if cond(v) {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: timed out waiting for %s: %+v", session, what, v.Items)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	last := func(v pageview.View) string { return v.Items[len(v.Items)-1].Text }
	start := func(session string) string {
		t.Helper()
		conv, err := svc.Create(ctx, session, "chat")
		if err != nil {
			t.Fatal(err)
		}
		return conv.ID
	}
	book := func(session string) (conv, ref string) {
		t.Helper()
		conv = start(session)
		if err := svc.Send(ctx, session, conv, "Book me a flight to Tokyo next Friday"); err != nil {
			t.Fatal(err)
		}
		v := view(session, conv, "the flight picker", func(v pageview.View) bool { return pending(v) != nil })
		var offer demo.FlightOffer
		if err := json.Unmarshal(pending(v).Request.Input, &offer); err != nil || len(offer.Flights) == 0 {
			t.Fatalf("the picker offers %s (%v)", pending(v).Request.Input, err)
		}
		f := offer.Flights[0]
		pick := `{"flight":"` + f.ID + `","seat":"` + f.Seats[0] + `"}`
		if err := svc.Answer(ctx, session, conv, pending(v).Request.ID, chat.Answer{Action: elicit.Accept, Content: []byte(pick)}); err != nil {
			t.Fatal(err)
		}
		v = view(session, conv, "the booking's approval", func(v pageview.View) bool {
			return pending(v) != nil && pending(v).Request.Kind == elicit.Approve.Name
		})
		if err := svc.Answer(ctx, session, conv, pending(v).Request.ID, chat.Answer{Action: elicit.Accept, Content: []byte(`{"choice":"once"}`)}); err != nil {
			t.Fatal(err)
		}
		v = view(session, conv, "the booking", func(v pageview.View) bool { return !v.Status.Running && bookingRef.MatchString(last(v)) })
		return conv, bookingRef.FindString(last(v))
	}
	list := func(session, conv string) string {
		t.Helper()
		n := 0
		if v, err := svc.View(ctx, session, conv); err == nil {
			n = len(v.Items)
		}
		if err := svc.Send(ctx, session, conv, "List my bookings"); err != nil {
			t.Fatal(err)
		}
		return last(view(session, conv, "the list", func(v pageview.View) bool { return !v.Status.Running && len(v.Items) >= n+2 }))
	}

	alice, aliceRef := book("alice")
	bob, bobRef := book("bob")
	for _, c := range []struct{ session, conv, own, theirs string }{
		{"alice", alice, aliceRef, bobRef},
		{"bob", bob, bobRef, aliceRef},
	} {
		got := list(c.session, c.conv)
		if !strings.Contains(got, c.own) || strings.Contains(got, c.theirs) {
			t.Errorf("%s's list = %q, want %s and not %s", c.session, got, c.own, c.theirs)
		}
		if strings.Contains(got, "not booked on this version") {
			t.Errorf("%s's list = %q, which shows a booking of no version of this conversation", c.session, got)
		}
	}
	if got := list("carol", start("carol")); got != "You have no bookings yet." {
		t.Errorf("a fresh browser's list = %q, want none", got)
	}
}

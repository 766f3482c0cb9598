package demo_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// storyService runs the demo assistants on a fresh database, each turn in
// the scope scope makes.
func storyService(t *testing.T, scope func(context.Context) context.Context) *chat.Service {
	t.Helper()
	svc := chat.New(chat.Config{Store: storetest.Open(t), Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...),
		Model: offline.New(), DecideByRule: true, Scope: scope})
	t.Cleanup(svc.Close)
	return svc
}

// waitFor waits until the conversation's view satisfies cond.
func waitFor(t *testing.T, svc *chat.Service, conv, what string, cond func(pageview.View) bool) pageview.View {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		v, err := svc.View(t.Context(), "s", conv)
		if err != nil {
			t.Fatal(err)
		}
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %+v", what, v.Items)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pending returns the question that waits, if one does.
func pending(v pageview.View) *pageview.ElicitView {
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.State == pageview.Pending {
			return it.Elicit
		}
	}
	return nil
}

// The story runs against a double of the flight agent, put in place by a
// parent scope as an application's test would: the chat asks the double,
// never the catalogue.
func TestTheStoryRunsAgainstAFlightAgentDouble(t *testing.T) {
	var mu sync.Mutex
	var searched []demo.FlightSearch
	var booked []demo.SeatBooking
	departs := time.Date(2030, 1, 4, 9, 30, 0, 0, time.UTC)
	double := demo.FlightAgent.Instantiate(
		agents.Implement(demo.SearchFlights, func(_ context.Context, q demo.FlightSearch) ([]flights.Flight, error) {
			mu.Lock()
			defer mu.Unlock()
			searched = append(searched, q)
			return []flights.Flight{{ID: "TEST1", Airline: "Test Air", Number: "TA1", From: "Testville", To: q.To,
				Departs: departs, Arrives: departs.Add(2 * time.Hour), Price: 10000, Currency: "EUR", SeatsLeft: 180}}, nil
		}),
		agents.Implement(demo.BookSeat, func(_ context.Context, b demo.SeatBooking) (flights.Booking, error) {
			mu.Lock()
			defer mu.Unlock()
			booked = append(booked, b)
			return flights.Booking{Reference: "SP-TEST42", FlightID: b.Flight, Seat: b.Seat, Key: b.Key}, nil
		}),
	)
	svc := storyService(t, func(ctx context.Context) context.Context { return agents.Use(ctx, double) })
	conv, _ := svc.Create(t.Context(), "s", "chat")
	if err := svc.Send(t.Context(), "s", conv.ID, "Book me a flight to Tokyo next Friday"); err != nil {
		t.Fatal(err)
	}
	v := waitFor(t, svc, conv.ID, "the flight picker", func(v pageview.View) bool { return pending(v) != nil })
	picker := pending(v).Request
	if picker.Kind != demo.PickFlight.Name || !strings.Contains(string(picker.Input), `"TEST1"`) {
		t.Fatalf("asked %s with %s, want the double's flight in the picker", picker.Kind, picker.Input)
	}
	seat := flights.SeatsFor(flights.Flight{ID: "TEST1", SeatsLeft: 180})[0]
	if err := svc.Answer(t.Context(), "s", conv.ID, picker.ID, chat.Answer{Action: elicit.Accept, Content: []byte(`{"flight":"TEST1","seat":"` + seat + `"}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitFor(t, svc, conv.ID, "the booking's approval", func(v pageview.View) bool {
		return pending(v) != nil && pending(v).Request.Kind == elicit.Approve.Name
	})
	if err := svc.Answer(t.Context(), "s", conv.ID, pending(v).Request.ID, chat.Answer{Action: elicit.Accept, Content: []byte(`{"choice":"once"}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitFor(t, svc, conv.ID, "the booking", func(v pageview.View) bool { return !v.Status.Running })
	if got := v.Items[len(v.Items)-1].Text; !strings.Contains(got, "Your reference is SP-TEST42") || !strings.Contains(got, "TA1 Testville → Tokyo") {
		t.Errorf("the reply = %q, want the double's booking", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(searched) != 1 || searched[0].To != "Tokyo" || searched[0].From != "" || searched[0].Date == "" {
		t.Errorf("the double was searched %+v, want Tokyo on a day, from anywhere", searched)
	}
	if len(booked) != 1 || booked[0].Flight != "TEST1" || booked[0].Seat != seat || booked[0].Key == "" {
		t.Errorf("the double booked %+v", booked)
	}
}

// A trip from a city said in the words searches from there only.
func TestTheStorySearchesFromTheCitySaid(t *testing.T) {
	searched := make(chan demo.FlightSearch, 1)
	double := demo.FlightAgent.Instantiate(
		agents.Implement(demo.SearchFlights, func(_ context.Context, q demo.FlightSearch) ([]flights.Flight, error) {
			searched <- q
			return nil, nil
		}),
	)
	svc := storyService(t, func(ctx context.Context) context.Context { return agents.Use(ctx, double) })
	conv, _ := svc.Create(t.Context(), "s", "chat")
	if err := svc.Send(t.Context(), "s", conv.ID, "Book me a flight from London to Tokyo next Friday"); err != nil {
		t.Fatal(err)
	}
	select {
	case q := <-searched:
		if q.From != "London" || q.To != "Tokyo" {
			t.Errorf("searched %+v, want from London to Tokyo", q)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no search")
	}
	v := waitFor(t, svc, conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if got := v.Items[len(v.Items)-1].Text; !strings.Contains(got, "no flights from London to Tokyo") {
		t.Errorf("the reply = %q, want it to say none were found from London", got)
	}
}

// Against a model on the OpenAI wire, scripted: it calls bookFlight, reads
// the trip as typed output, and the booking lands in the catalogue once.
func TestTheStoryOnTheOpenAIWire(t *testing.T) {
	day := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
	model := llmtest.NewServer(t,
		llmtest.Call("bookFlight", `{"request":"Book me a flight to Tokyo on `+day+`"}`),
		llmtest.Text(`{"destination":"Tokyo","date":"`+day+`"}`),
	)
	cat, err := flights.NewMemory(flights.Seed(time.Now()), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	svc := chat.New(chat.Config{Store: storetest.Open(t), Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...),
		Model: openai.New(openai.Config{APIKey: "k", BaseURL: model.URL, Model: "m"}),
		Scope: func(ctx context.Context) context.Context { return demo.Catalogue.With(ctx, cat) }})
	t.Cleanup(svc.Close)
	conv, _ := svc.Create(t.Context(), "s", "chat")
	if err := svc.Send(t.Context(), "s", conv.ID, "Book me a flight to Tokyo on "+day); err != nil {
		t.Fatal(err)
	}
	v := waitFor(t, svc, conv.ID, "the flight picker", func(v pageview.View) bool { return pending(v) != nil })
	var offer demo.FlightOffer
	if err := json.Unmarshal(pending(v).Request.Input, &offer); err != nil || len(offer.Flights) == 0 {
		t.Fatalf("the picker offers %s (%v)", pending(v).Request.Input, err)
	}
	f := offer.Flights[0]
	if err := svc.Answer(t.Context(), "s", conv.ID, pending(v).Request.ID, chat.Answer{Action: elicit.Accept,
		Content: []byte(`{"flight":"` + f.ID + `","seat":"` + f.Seats[0] + `"}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitFor(t, svc, conv.ID, "the booking's approval", func(v pageview.View) bool {
		return pending(v) != nil && pending(v).Request.Kind == elicit.Approve.Name
	})
	if err := svc.Answer(t.Context(), "s", conv.ID, pending(v).Request.ID, chat.Answer{Action: elicit.Accept, Content: []byte(`{"choice":"once"}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitFor(t, svc, conv.ID, "the booking", func(v pageview.View) bool { return !v.Status.Running })
	bs, _ := cat.Bookings(t.Context(), conv.ID)
	if len(bs) != 1 || bs[0].FlightID != f.ID || bs[0].Seat != f.Seats[0] {
		t.Fatalf("bookings %+v, want one on %s seat %s", bs, f.ID, f.Seats[0])
	}
	if got := v.Items[len(v.Items)-1].Text; !strings.Contains(got, "Your reference is "+bs[0].Reference) {
		t.Errorf("the reply = %q", got)
	}
	reqs := model.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) == 0 || reqs[1].ResponseFormat == nil {
		t.Errorf("the model was asked %d times (tools offered first: %d; typed output second: %v)", len(reqs), len(reqs[0].Tools), reqs[1].ResponseFormat)
	}
}

// The README's tour, as a reader follows it: the first message of step 1,
// then step 3's edit of it to Osaka, searches Osaka on the same day as
// Tokyo; an edit that drops the day would search any day.
func TestTheToursEditToOsakaKeepsTheDay(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile(`1\. \*"(Book me a flight to Tokyo[^"]*)"\*`).FindSubmatch(readme)
	edit := regexp.MustCompile(`\*\*Edit\*\* the first message to \*"…([^"]*)"\*`).FindSubmatch(readme)
	if first == nil || edit == nil {
		t.Fatal("the README's tour has no first message to Tokyo, or no edit of it to Osaka: this test no longer reads it")
	}
	message, _, _ := strings.Cut(string(first[1]), "to Tokyo")
	edited := message + string(edit[1])
	searched := make(chan demo.FlightSearch, 2)
	double := demo.FlightAgent.Instantiate(
		agents.Implement(demo.SearchFlights, func(_ context.Context, q demo.FlightSearch) ([]flights.Flight, error) {
			searched <- q
			return nil, nil
		}),
	)
	svc := storyService(t, func(ctx context.Context) context.Context { return agents.Use(ctx, double) })
	var got []demo.FlightSearch
	for _, text := range []string{string(first[1]), edited} {
		conv, _ := svc.Create(t.Context(), "s", "chat")
		if err := svc.Send(t.Context(), "s", conv.ID, text); err != nil {
			t.Fatal(err)
		}
		select {
		case q := <-searched:
			got = append(got, q)
		case <-time.After(10 * time.Second):
			t.Fatalf("%q searched nothing", text)
		}
		waitFor(t, svc, conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	}
	if got[0].To != "Tokyo" || got[1].To != "Osaka" || got[0].Date == "" || got[1].Date != got[0].Date {
		t.Errorf("searched %+v for %q, then %+v for the edit %q; want Osaka on Tokyo's day", got[0], first[1], got[1], edited)
	}
}

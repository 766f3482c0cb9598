package eventstream_test

import (
	"reflect"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/llm"
)

// A program that takes over a run (OpenRun) reads the run's events from
// its run.started on exactly as a client that followed the conversation
// from its start read them: the same runs, asides and ids, a side
// question asked beside the run's question included.
func TestAProgramJoiningARunReadsItsEventsAsTheyWere(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, run, chunks := sideAsked(t, svc, model, "what time is it?")
	chunks <- "Noon."
	close(chunks)
	f.until("the side reply", func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.RunCompleted)
		return ok && d.Run == run
	})
	var want []eventstream.Event
	for i, e := range f.seen {
		if d, ok := e.Data.(eventstream.RunStarted); ok && !d.Aside {
			want = f.seen[i:] // from the newest run of the flow on
		}
	}
	es, err := eventstream.OpenRun(t.Context(), svc, "me", conv)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	var got []eventstream.Event
	for _, e := range es.Ready() {
		if e.Type != eventstream.EventTokenDelta { // deltas depend on what each holds
			got = append(got, e)
		}
	}
	var wantNodes []eventstream.Event
	for _, e := range want {
		if e.Type != eventstream.EventTokenDelta {
			wantNodes = append(wantNodes, e)
		}
	}
	if !reflect.DeepEqual(got, wantNodes) {
		t.Errorf("joining the run read\n%+v\nwant, as followed from the start,\n%+v", got, wantNodes)
	}
}

// A program that opens the stream at its end (OpenNew) reads only what is
// recorded after: the run of the message it sends then.
func TestAProgramOpeningAtTheEndReadsTheNextRun(t *testing.T) {
	svc, model := newEventsService(t)
	conv := startConv(t, svc, "me", "forecaster")
	f := follow(t, svc, "me", conv, "")
	send(t, svc, "me", conv, "weather please")
	f.until("the question", is(eventstream.EventElicitAsked))
	es, err := eventstream.OpenNew(t.Context(), svc, "me", conv)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	if evs := es.Ready(); len(evs) != 0 {
		t.Errorf("a stream opened at the end read %+v; want nothing yet", evs)
	}
	chunks := model.stream(llm.Response{})
	send(t, svc, "me", conv, "what time is it?")
	close(chunks)
	evs, err := es.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := evs[0].Data.(eventstream.RunStarted); !ok || d.Text != "what time is it?" {
		t.Errorf("first event = %+v; want the run of the message sent after", evs[0])
	}
}

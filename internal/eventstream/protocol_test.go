package eventstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/protocol"
)

type spotArgs struct {
	Accuracy string `json:"accuracy" enum:"high,low"`
}

type spotProgress struct {
	Status string `json:"status" enum:"requesting-permission,acquiring"`
}

type spot struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// getSpot is the seed's getLocation, declared as an application declares
// a method of its own.
var getSpot = protocol.Declare[spotArgs, spotProgress, spot]("get-spot", "Share where you are")

// locator calls getSpot and says how the call ended, in its own words
// (no model call), with the progress it heard.
func locator() agents.Assistant {
	return agents.Assistant{Name: "locator", Turn: func(ctx context.Context, msg string) (string, error) {
		var heard []string
		out, err := protocol.Invoke(ctx, getSpot, "Where are you?", spotArgs{Accuracy: "high"}, func(p spotProgress) { heard = append(heard, p.Status) })
		if err != nil {
			return "", err
		}
		if out.Status == protocol.Done {
			return fmt.Sprintf("At %.2f, %.2f (heard %v).", out.Result.Lat, out.Result.Lng, heard), nil
		}
		return fmt.Sprintf("No spot: %s (heard %v).", out.Status, heard), nil
	}}
}

// callProgress reports p on call eid.
func callProgress(t *testing.T, svc *chat.Service, conv, eid, status string) {
	t.Helper()
	if err := svc.Progress(t.Context(), "me", conv, eid, elicit.Progress{Stage: status, Data: json.RawMessage(`{"status":"` + status + `"}`)}); err != nil {
		t.Fatal(err)
	}
}

// A method's call is announced as the question it is (elicit.asked) and
// then as a call (protocol.invoked: the method and its arguments, under
// the question's elicit); its answer as elicit.answered, then one
// protocol.progress for each report the implementation made, recorded
// with the answer, then protocol.result (done with the result, or denied,
// unsupported); stopped while it waits, the run's end closes it. Read from the record it is the same stream, and a client
// that left between a node's events comes back to the next one.
// testdata/protocol.golden holds the stream; -update rewrites it.
func TestTheEventStreamAnnouncesMethodCalls(t *testing.T) {
	svc, _ := newEventsService(t)
	conv := startConv(t, svc, "me", "locator")
	f := follow(t, svc, "me", conv, "")

	// Done, after two progress reports.
	send(t, svc, "me", conv, "where am I?")
	evs := f.until("the call", is(eventstream.EventProtocolInvoked))
	if got, want := types(evs), []string{eventstream.EventRunStarted, eventstream.EventElicitAsked, eventstream.EventProtocolInvoked}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v:%s", got, want, describe(evs))
	}
	asked, call := evs[1].Data.(eventstream.ElicitAsked), evs[2].Data.(eventstream.ProtocolInvoked)
	if call.Call != asked.Elicit || call.Method != "get-spot" || string(call.Args) != `{"accuracy":"high"}` || call.Node != asked.Node {
		t.Fatalf("protocol.invoked = %+v, want get-spot with its arguments, under the question's elicit and node", call)
	}
	callProgress(t, svc, conv, call.Call, "requesting-permission")
	callProgress(t, svc, conv, call.Call, "acquiring")
	if err := svc.Answer(t.Context(), "me", conv, call.Call, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"lat":38.72,"lng":-9.14}`)}); err != nil {
		t.Fatal(err)
	}
	evs = f.until("the run's end", is(eventstream.EventRunCompleted))
	if got, want := types(evs), []string{eventstream.EventElicitAnswered, eventstream.EventProtocolProgress, eventstream.EventProtocolProgress, eventstream.EventProtocolResult, eventstream.EventTokenDelta, eventstream.EventRunCompleted}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v:%s", got, want, describe(evs))
	}
	if p := evs[2].Data.(eventstream.ProtocolProgress); p.Call != call.Call || p.Stage != "acquiring" || string(p.Data) != `{"status":"acquiring"}` {
		t.Errorf("the second protocol.progress = %+v, want acquiring, with its data", p)
	}
	if r := evs[3].Data.(eventstream.ProtocolResult); r.Call != call.Call || r.Status != "done" || string(r.Result) != `{"lat":38.72,"lng":-9.14}` {
		t.Errorf("protocol.result = %+v, want done with the spot", r)
	}
	if got, want := last(evs).Data.(eventstream.RunCompleted).Text, "At 38.72, -9.14 (heard [requesting-permission acquiring])."; got != want {
		t.Errorf("the reply is %q, want %q: the turn hears each report once", got, want)
	}

	// Denied, after one report; unsupported at once.
	send(t, svc, "me", conv, "and now?")
	call = last(f.until("the call", is(eventstream.EventProtocolInvoked))).Data.(eventstream.ProtocolInvoked)
	callProgress(t, svc, conv, call.Call, "requesting-permission")
	if err := svc.Answer(t.Context(), "me", conv, call.Call, chat.Answer{Action: elicit.Denied}); err != nil {
		t.Fatal(err)
	}
	if r := last(f.until("the result", is(eventstream.EventProtocolResult))).Data.(eventstream.ProtocolResult); r.Status != "denied" || r.Result != nil {
		t.Errorf("protocol.result = %+v, want denied, with no result", r)
	}
	f.until("the run's end", is(eventstream.EventRunCompleted))
	send(t, svc, "me", conv, "and here?")
	call = last(f.until("the call", is(eventstream.EventProtocolInvoked))).Data.(eventstream.ProtocolInvoked)
	if err := svc.Answer(t.Context(), "me", conv, call.Call, chat.Answer{Action: elicit.Unsupported}); err != nil {
		t.Fatal(err)
	}
	evs = f.until("the run's end", is(eventstream.EventRunCompleted))
	if got, want := types(evs), []string{eventstream.EventElicitAnswered, eventstream.EventProtocolResult, eventstream.EventTokenDelta, eventstream.EventRunCompleted}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v:%s", got, want, describe(evs))
	}
	if r := evs[1].Data.(eventstream.ProtocolResult); r.Status != "unsupported" {
		t.Errorf("protocol.result = %+v, want unsupported", r)
	}

	// Stopped while it waits: the run's end closes it.
	send(t, svc, "me", conv, "and there?")
	f.until("the call", is(eventstream.EventProtocolInvoked))
	if err := svc.Stop(t.Context(), "me", conv); err != nil {
		t.Fatal(err)
	}
	if got := types(f.until("the stopped run's end", is(eventstream.EventRunCompleted))); slices.Contains(got, eventstream.EventProtocolResult) {
		t.Fatalf("after Stop: %v, want no protocol.result", got)
	}

	// Read from the record, the stream is the one the client got.
	whole := follow(t, svc, "me", conv, "")
	var record []eventstream.Event
	for range 4 {
		record = append(record, whole.until("a run's end", is(eventstream.EventRunCompleted))...)
	}
	if got, want := wire(t, record), wire(t, f.seen); got != want {
		t.Errorf("read from the record:\n%s\nwant as followed:\n%s", firstDifference(want, got), want)
	}

	// A client that left between a node's events comes back to the next.
	for i, e := range f.seen[:len(f.seen)-1] {
		again := follow(t, svc, "me", conv, e.ID)
		if got, want := again.take(1)[0], f.seen[i+1]; got.ID != want.ID || got.Type != want.Type {
			t.Errorf("after %s (%s): %s %s, want %s %s", e.ID, e.Type, got.ID, got.Type, want.ID, want.Type)
		}
	}

	file := filepath.Join("testdata", "protocol.golden")
	if *update {
		if err := os.WriteFile(file, []byte(wire(t, f.seen)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := wire(t, f.seen); got != string(want) {
		t.Errorf("%s: the events differ (go test ./internal/eventstream -run MethodCalls -update accepts them):\n%s", file, firstDifference(string(want), got))
	}
}

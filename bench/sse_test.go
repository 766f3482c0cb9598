package main

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// collect parses stream and returns its events and readEvents' error.
func collect(t *testing.T, stream string) ([]event, error) {
	t.Helper()
	var evs []event
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	err := readEvents(strings.NewReader(stream), now, func(ev event) bool {
		evs = append(evs, ev)
		return true
	})
	return evs, err
}

func TestReadEvents(t *testing.T) {
	stream := ": a comment\n" +
		"event: datastar-patch-elements\n" +
		"id: 3\n" +
		"data: elements <div id=\"a\">\n" +
		"data: elements </div>\n" +
		"retry: 1000\n" +
		"\n" +
		"\n" + // a second blank line ends nothing
		"event: datastar-patch-elements\r\n" +
		"id: 4\r\n" +
		"data:selector #messages\r\n" +
		"data: mode append\r\n" +
		"\r\n" +
		"event: datastar-patch-elements\n" +
		"data: cut off before its blank line\n"
	evs, err := collect(t, stream)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want io.EOF", err)
	}
	want := []event{
		{Name: "datastar-patch-elements", ID: "3", Data: "elements <div id=\"a\">\nelements </div>", At: time.Unix(0, 0).Add(time.Millisecond)},
		{Name: "datastar-patch-elements", ID: "4", Data: "selector #messages\nmode append", At: time.Unix(0, 0).Add(2 * time.Millisecond)},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("events:\n got %+v\nwant %+v", evs, want)
	}
}

func TestReadEventsDataOnly(t *testing.T) {
	evs, _ := collect(t, "data:\n\ndata: x\n\n")
	if len(evs) != 2 || evs[0].Data != "" || evs[1].Data != "x" || evs[0].Name != "" {
		t.Fatalf("events = %+v, want an empty data event then %q", evs, "x")
	}
}

func TestReadEventsStops(t *testing.T) {
	n := 0
	err := readEvents(strings.NewReader("data: 1\n\ndata: 2\n\n"), time.Now, func(event) bool {
		n++
		return false
	})
	if err != nil || n != 1 {
		t.Fatalf("n, err = %d, %v; want 1, nil", n, err)
	}
}

func TestReadEventsError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: 1\n\n"), iotestErr{boom})
	var n int
	err := readEvents(r, time.Now, func(event) bool { n++; return true })
	if !errors.Is(err, boom) || n != 1 {
		t.Fatalf("n, err = %d, %v; want 1, boom", n, err)
	}
}

type iotestErr struct{ err error }

func (r iotestErr) Read([]byte) (int, error) { return 0, r.err }

func TestSplitField(t *testing.T) {
	for _, tc := range []struct{ line, field, value string }{
		{"data: a: b", "data", "a: b"},
		{"data:  two spaces", "data", " two spaces"},
		{"id:7", "id", "7"},
		{": comment", "", "comment"},
		{"event", "event", ""},
	} {
		f, v := splitField(tc.line)
		if f != tc.field || v != tc.value {
			t.Errorf("splitField(%q) = %q, %q; want %q, %q", tc.line, f, v, tc.field, tc.value)
		}
	}
}

const cardsHTML = `elements <div id="messages"><div id="n-1" class="msg user">5</div>` +
	`<div id="n-2" class="msg elicit answered" data-testid="elicit" data-state="answered" data-elicit-id="1-1"><p>Q1</p></div>` +
	`<div id="n-4" class="msg elicit pending" data-testid="elicit" data-state="pending" data-elicit-id="1-2"><form data-testid="elicit-form"></form></div>` +
	`<div data-testid="elicit-answer"></div></div>`

func TestElicitCards(t *testing.T) {
	got := elicitCards(cardsHTML)
	want := []card{{ID: "1-1", State: "answered"}, {ID: "1-2", State: "pending"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("elicitCards = %+v, want %+v", got, want)
	}
	if got := elicitCards(`elements <div id="status" data-testid="status"></div>`); got != nil {
		t.Fatalf("status patch has cards %+v", got)
	}
}

func TestTracker(t *testing.T) {
	tr := newTracker()
	if _, ok := tr.pending(); ok {
		t.Fatal("an empty tracker has a pending elicit")
	}
	tr.observe(event{Data: cardsHTML})
	if id, ok := tr.pending(); !ok || id != "1-2" {
		t.Fatalf("pending = %q, %v; want 1-2", id, ok)
	}
	tr.markAnswered("1-2")
	if id, ok := tr.pending(); ok {
		t.Fatalf("pending = %q after answering it", id)
	}
	tr.observe(event{Data: `elements <div data-testid="elicit" data-state="pending" data-elicit-id="1-3"></div>`})
	if id, ok := tr.pending(); !ok || id != "1-3" {
		t.Fatalf("pending = %q, %v; want 1-3", id, ok)
	}
	tr.observe(event{Data: `elements <div data-testid="elicit" data-state="interrupted" data-elicit-id="1-3"></div>`})
	if id, ok := tr.pending(); ok {
		t.Fatalf("pending = %q after it was interrupted", id)
	}
}

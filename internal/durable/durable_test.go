package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

func TestCallsAreNumberedByPosition(t *testing.T) {
	ctx := durable.WithScope(context.Background(), "7")
	got := []string{durable.NextCall(ctx), durable.NextCall(ctx)}
	tool := durable.WithScope(ctx, durable.NextCall(ctx)) // a tool's calls number within its own
	got = append(got, durable.NextCall(tool), durable.NextCall(tool), durable.NextCall(ctx))
	lane := durable.Lanes(ctx)
	second, first := lane(1), lane(0) // however the branches are scheduled
	got = append(got, durable.NextCall(second), durable.NextCall(first), durable.NextCall(ctx))
	want := []string{"7-1", "7-2", "7-3.1", "7-3.2", "7-4", "7-5.2.1", "7-5.1.1", "7-6"}
	if len(got) != len(want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("calls %v, want %v", got, want)
		}
	}
}

func TestNextCallOutsideATurnPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NextCall outside a scope did not panic")
		}
	}()
	durable.NextCall(context.Background())
}

// journal is a turn's record: a notify at 1-1, a question at 1-2 answered,
// a question at 1-3 not answered, a value at 1-4.
func journal(t *testing.T) durable.Journal {
	t.Helper()
	return durable.NewJournal([]tree.Node{
		{ID: 2, Kind: tree.Notify, Ref: "1-1", Payload: json.RawMessage(`{"message":"Searching"}`)},
		{ID: 3, Kind: tree.ElicitRequest, Ref: "1-2", Payload: tree.MustEncode(elicit.Request{ID: "1-2", Kind: "form", Message: "Where to?"})},
		{ID: 4, Kind: tree.ElicitResponse, Ref: "1-2", Payload: tree.MustEncode(elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"city":"Oslo"}`)})},
		{ID: 5, Kind: tree.ElicitRequest, Ref: "1-3", Payload: tree.MustEncode(elicit.Request{ID: "1-3", Kind: "confirm", Message: "Book it?"})},
		{ID: 6, Kind: tree.Value, Ref: "1-4", Payload: tree.MustEncode(tree.ValueRecord{Name: "random", Value: json.RawMessage(`42`)})},
		{ID: 7, Kind: tree.AssistantMessage, Payload: json.RawMessage(`{"text":"no ref: not a call"}`)},
	})
}

type progress struct{ Message string }

func TestLookup(t *testing.T) {
	j := journal(t)
	if j.Len() != 4 {
		t.Fatalf("journal holds %d calls, want 4", j.Len())
	}
	same := func(p progress) bool { return p.Message == "Searching" }
	tests := []struct {
		name     string
		call     durable.Call[progress]
		replayed bool
		diverged bool
	}{
		{"the same call replays", durable.Call[progress]{ID: "1-1", Kind: tree.Notify, Made: "notify", Same: same}, true, false},
		{"a new call runs", durable.Call[progress]{ID: "1-9", Kind: tree.Notify, Same: same}, false, false},
		{"another kind diverges", durable.Call[progress]{ID: "1-2", Kind: tree.Notify, Made: `notify "x"`}, true, true},
		{"another request diverges", durable.Call[progress]{ID: "1-1", Kind: tree.Notify, Made: `notify "Booking"`, Same: func(p progress) bool { return p.Message == "Booking" }}, true, true},
		{"no Same accepts any record of the kind", durable.Call[progress]{ID: "1-1", Kind: tree.Notify}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, rec, replayed, err := durable.Lookup(j, tc.call)
			if replayed != tc.replayed {
				t.Fatalf("replayed = %v, want %v", replayed, tc.replayed)
			}
			nd, isND := errors.AsType[*durable.NonDeterminismError](err)
			if isND != tc.diverged {
				t.Fatalf("err = %v, want divergence %v", err, tc.diverged)
			}
			switch {
			case tc.diverged:
				if nd.Call != tc.call.ID || nd.Made != tc.call.Made || nd.Recorded == "" {
					t.Fatalf("divergence %+v does not say where and what", nd)
				}
			case tc.replayed:
				if n.Ref != tc.call.ID || rec.Message != "Searching" {
					t.Fatalf("replayed node %d %+v, want the recorded notify", n.ID, rec)
				}
			}
		})
	}
}

func TestDivergenceWordsTheRecordedCall(t *testing.T) {
	_, _, _, err := durable.Lookup(journal(t), durable.Call[progress]{ID: "1-2", Kind: tree.Notify, Made: `notify "x"`})
	want := `replay diverged at call 1-2: the record has elicit form "Where to?", but the code now makes notify "x"`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestAnswersAndUnansweredQuestions(t *testing.T) {
	j := journal(t)
	n, ok := j.Response("1-2")
	if !ok || n.ID != 4 {
		t.Fatalf("answer to 1-2: node %d, %v; want node 4", n.ID, ok)
	}
	if _, ok := j.Response("1-3"); ok {
		t.Fatal("1-3 has no recorded answer")
	}
	open := j.Unanswered()
	if len(open) != 1 || open["1-3"].ID != 5 {
		t.Fatalf("unanswered %v, want only 1-3 (node 5)", open)
	}
}

func TestStep(t *testing.T) {
	j := journal(t)
	call := durable.Call[progress]{ID: "1-1", Kind: tree.Notify, Same: func(p progress) bool { return p.Message == "Searching" }}
	var ran, recorded int
	run := func() (progress, error) { ran++; return progress{"Searching"}, nil }
	record := func(progress) error { recorded++; return nil }

	if rec, err := durable.Step(j, call, run, record); err != nil || rec.Message != "Searching" || ran+recorded != 0 {
		t.Fatalf("replayed step: %+v, %v, ran %d, recorded %d; want the record, nothing run", rec, err, ran, recorded)
	}
	call.ID = "1-5"
	if _, err := durable.Step(j, call, run, record); err != nil || ran != 1 || recorded != 1 {
		t.Fatalf("new step: %v, ran %d, recorded %d; want one run, one record", err, ran, recorded)
	}
	stopped := errors.New("stopped")
	if _, err := durable.Step(j, call, func() (progress, error) { return progress{}, stopped }, record); !errors.Is(err, stopped) || recorded != 1 {
		t.Fatalf("unfinished step: %v, recorded %d; want its error and no record", err, recorded)
	}
	full := errors.New("disk full")
	if _, err := durable.Step(j, call, run, func(progress) error { return full }); !errors.Is(err, full) {
		t.Fatalf("step whose record failed: %v, want the record's error", err)
	}
	call.ID = "1-2" // a question where a notify is made
	if _, err := durable.Step(j, call, run, record); !errors.As(err, new(*durable.NonDeterminismError)) || ran != 2 {
		t.Fatalf("diverged step: %v, ran %d; want a NonDeterminismError, nothing run", err, ran)
	}
}

func TestValue(t *testing.T) {
	j := journal(t)
	var records []tree.ValueRecord
	record := func(r tree.ValueRecord) error { records = append(records, r); return nil }
	fresh := func() int { return 7 }

	if v, err := durable.Value(j, "1-4", "random", fresh, record); err != nil || v != 42 || len(records) != 0 {
		t.Fatalf("replayed value %d, %v; want the recorded 42 and no record", v, err)
	}
	if v, err := durable.Value(j, "1-5", "random", fresh, record); err != nil || v != 7 || len(records) != 1 || string(records[0].Value) != "7" || records[0].Name != "random" {
		t.Fatalf("fresh value %d, %v, records %+v; want 7 recorded as random", v, err, records)
	}
	if _, err := durable.Value(j, "1-4", "now", fresh, record); !errors.As(err, new(*durable.NonDeterminismError)) {
		t.Fatalf("another value at a recorded position: %v, want a NonDeterminismError", err)
	}
}

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`not json`, `not json`, true},
		{`not json`, `{}`, false},
	}
	for _, tc := range tests {
		if got := durable.SameJSON(json.RawMessage(tc.a), json.RawMessage(tc.b)); got != tc.same {
			t.Errorf("SameJSON(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

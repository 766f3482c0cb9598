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

// marker is the node a Version call records for change at call id.
func marker(id int64, ref, change string, v int) tree.Node {
	raw, _ := json.Marshal(v)
	return tree.Node{ID: id, Kind: tree.Value, Ref: ref, Payload: tree.MustEncode(tree.ValueRecord{Name: durable.VersionName, Change: change, Value: raw})}
}

// asked is a question recorded at call ref.
func asked(id int64, ref, message string) tree.Node {
	return tree.Node{ID: id, Kind: tree.ElicitRequest, Ref: ref, Payload: tree.MustEncode(elicit.Request{ID: ref, Kind: "form", Message: message})}
}

// A turn's code changed by a deploy reads the version of the change it
// takes: turns recorded before the change take the old path and their
// calls keep their ids; turns recorded with the change take the path they
// took; a live run takes the newest and records it.
func TestVersion(t *testing.T) {
	type recorded struct {
		id  string
		rec tree.ValueRecord
	}
	tests := []struct {
		name    string
		record  []tree.Node
		want    int
		next    string // the id the call after Version gets
		records int    // how many markers Version records
	}{
		{"recorded before the change: the old path, no id taken", []tree.Node{asked(2, "1-1", "Go on?")}, durable.DefaultVersion, "1-1", 0},
		{"recorded with the change: the version recorded", []tree.Node{marker(2, "1-1", "notify-first", 1), asked(3, "1-3", "Go on?")}, 1, "1-2", 0},
		{"another change's marker here: the old path", []tree.Node{marker(2, "1-1", "other", 1), asked(3, "1-2", "Go on?")}, durable.DefaultVersion, "1-1", 0},
		{"nothing here but a call later (a gap): the old path", []tree.Node{asked(3, "1-2", "Go on?")}, durable.DefaultVersion, "1-1", 0},
		{"a call later, within a call: the old path", []tree.Node{asked(3, "1-2.1", "Go on?")}, durable.DefaultVersion, "1-1", 0},
		{"log lines only: live", []tree.Node{{ID: 2, Kind: tree.Log, Ref: "1-log1"}}, 2, "1-2", 1},
		{"a new turn: live, recorded", nil, 2, "1-2", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := durable.WithScope(context.Background(), "1")
			var got []recorded
			v, err := durable.Version(ctx, durable.NewJournal(tc.record), "notify-first", 2, func(id string, rec tree.ValueRecord) error {
				got = append(got, recorded{id, rec})
				return nil
			})
			if err != nil || v != tc.want {
				t.Fatalf("Version = %d, %v; want %d", v, err, tc.want)
			}
			if next := durable.NextCall(ctx); next != tc.next {
				t.Errorf("the call after it is %s, want %s", next, tc.next)
			}
			if len(got) != tc.records {
				t.Fatalf("recorded %+v, want %d markers", got, tc.records)
			}
			if len(got) == 1 && (got[0].id != "1-1" || got[0].rec.Name != "version" || got[0].rec.Change != "notify-first" || string(got[0].rec.Value) != "2") {
				t.Errorf("recorded %+v, want version 2 of notify-first at 1-1", got[0])
			}
		})
	}
}

// A turn recorded by newer code than runs now (a rollback) took a path the
// code does not know: a divergence that names both.
func TestVersionNewerThanTheCodeDiverges(t *testing.T) {
	ctx := durable.WithScope(context.Background(), "1")
	j := durable.NewJournal([]tree.Node{marker(2, "1-1", "notify-first", 3)})
	_, err := durable.Version(ctx, j, "notify-first", 2, func(string, tree.ValueRecord) error { return nil })
	nd, ok := errors.AsType[*durable.NonDeterminismError](err)
	if want := `replay diverged at call 1-1: the record has version 3 of "notify-first", but the code now makes version of "notify-first" (up to 2)`; !ok || nd.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

// From and Within say whether a call is replayed: the record goes on from
// its position (a call there, or later, or within a later one), or holds
// calls made within it (a tool suspended on its own question).
func TestFromAndWithin(t *testing.T) {
	j := durable.NewJournal([]tree.Node{
		asked(2, "1-2", "Go on?"),
		asked(3, "1-4.1", "Which seat?"),
		{ID: 4, Kind: tree.Log, Ref: "1-log7"},
	})
	for id, want := range map[string]bool{"1-1": true, "1-2": true, "1-4": true, "1-5": false, "1-4.1": true, "1-4.2": false, "2-1": false} {
		if got := j.From(id); got != want {
			t.Errorf("From(%s) = %v, want %v", id, got, want)
		}
	}
	for id, want := range map[string]bool{"1-4": true, "1-2": false, "1-3": false} {
		if got := j.Within(id); got != want {
			t.Errorf("Within(%s) = %v, want %v", id, got, want)
		}
	}
}

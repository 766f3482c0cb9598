package templates

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// A value node says in its line what the turn read; a version marker
// (turn.Version) says which change it is a version of, so a developer sees
// which path a turn took without opening its payload.
func TestAValueNodeSaysWhatWasRead(t *testing.T) {
	tests := []struct {
		rec  tree.ValueRecord
		want string
	}{
		{tree.ValueRecord{Name: "random", Value: json.RawMessage(`42`)}, "random = 42"},
		{tree.ValueRecord{Name: "version", Change: "notify-before-ask", Value: json.RawMessage(`1`)}, "version of notify-before-ask = 1"},
	}
	for _, tc := range tests {
		if got := gist(tree.Node{Kind: tree.Value, Payload: tree.MustEncode(tc.rec)}); got != tc.want {
			t.Errorf("gist of %+v = %q, want %q", tc.rec, got, tc.want)
		}
	}
}

package agui

import (
	"encoding/json"
	"testing"
)

// The patch between two state documents names each state changed at
// /agent/name, an agent new or gone whole, with keys escaped as JSON
// Pointer has them.
func TestStatePatch(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	for _, tc := range []struct {
		name      string
		was, next states
		want      string
	}{
		{"nothing changed", states{"a": {"x": raw(`1`)}}, states{"a": {"x": raw(`1`)}}, `null`},
		{"an agent's first state", states{}, states{"a": {"x": raw(`[1]`)}}, `[{"op":"add","path":"/a","value":{"x":[1]}}]`},
		{"a state replaced, one added", states{"a": {"x": raw(`1`)}}, states{"a": {"x": raw(`2`), "y": raw(`"z"`)}},
			`[{"op":"replace","path":"/a/x","value":2},{"op":"add","path":"/a/y","value":"z"}]`},
		{"another branch without them", states{"a": {"x": raw(`1`)}, "b": {"y": raw(`2`)}}, states{"b": {}},
			`[{"op":"remove","path":"/a"},{"op":"remove","path":"/b/y"}]`},
		{"keys escaped", states{"a/b": {"c~d": raw(`1`)}}, states{"a/b": {"c~d": raw(`2`)}}, `[{"op":"replace","path":"/a~1b/c~0d","value":2}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := json.Marshal(tc.was.patch(tc.next))
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

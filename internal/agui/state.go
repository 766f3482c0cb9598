package agui

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// states is the agents' state at the end of a branch as AG-UI's state
// document holds it: an object of agents, each an object of its states'
// values by name. A state no change on the branch set is not in it.
type states map[string]map[string]json.RawMessage

// statesOf reads the state at the end of path (package state), copied out
// of the record.
func statesOf(path tree.Path) states {
	s := states{}
	for k, v := range state.Of(path).All() {
		if s[k.Agent] == nil {
			s[k.Agent] = map[string]json.RawMessage{}
		}
		s[k.Agent][k.Name] = bytes.Clone(v.JSON)
	}
	return s
}

// snapshot is s as one JSON document.
func (s states) snapshot() json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// patch is the JSON Patch that turns s into next: a state added, replaced
// or removed at /agent/name, an agent added or removed whole.
func (s states) patch(next states) []PatchOp {
	var ops []PatchOp
	for _, agent := range slices.Sorted(maps.Keys(s)) {
		if _, ok := next[agent]; !ok {
			ops = append(ops, PatchOp{Op: "remove", Path: pointer(agent)})
		}
	}
	for _, agent := range slices.Sorted(maps.Keys(next)) {
		was, ok := s[agent]
		if !ok {
			v, _ := json.Marshal(next[agent])
			ops = append(ops, PatchOp{Op: "add", Path: pointer(agent), Value: v})
			continue
		}
		now := next[agent]
		for _, name := range slices.Sorted(maps.Keys(was)) {
			if _, ok := now[name]; !ok {
				ops = append(ops, PatchOp{Op: "remove", Path: pointer(agent, name)})
			}
		}
		for _, name := range slices.Sorted(maps.Keys(now)) {
			old, ok := was[name]
			switch {
			case !ok:
				ops = append(ops, PatchOp{Op: "add", Path: pointer(agent, name), Value: now[name]})
			case !bytes.Equal(old, now[name]):
				ops = append(ops, PatchOp{Op: "replace", Path: pointer(agent, name), Value: now[name]})
			}
		}
	}
	return ops
}

// pointer is the JSON Pointer (RFC 6901) to the keys given.
func pointer(keys ...string) string {
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, k := range keys {
		b.WriteByte('/')
		b.WriteString(esc.Replace(k))
	}
	return b.String()
}

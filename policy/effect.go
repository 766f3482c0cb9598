package policy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// effectNames are the effects' names, in the order Names lists them: the
// words of a rule file, of a tool's JSON description and of an approval
// card.
var effectNames = [...]struct {
	effect Effect
	name   string
}{{Writes, "writes"}, {Spends, "spends"}, {Device, "device"}, {Network, "network"}}

// Names lists the effects in e by name ("writes", "spends", "device",
// "network"), in that order; nil for a read-only tool. Bits beyond the
// four named ones have no name and are left out, though a call with them
// still counts as one with effects.
func (e Effect) Names() []string {
	var names []string
	for _, n := range effectNames {
		if e&n.effect != 0 {
			names = append(names, n.name)
		}
	}
	return names
}

// String gives e's names joined by commas, or "read-only" for none.
func (e Effect) String() string {
	if e == 0 {
		return "read-only"
	}
	return strings.Join(e.Names(), ",")
}

// ParseEffect returns the effects named by names, together; an unknown
// name is an error that says which names there are. No names is a
// read-only tool.
func ParseEffect(names ...string) (Effect, error) {
	var e Effect
next:
	for _, s := range names {
		for _, n := range effectNames {
			if s == n.name {
				e |= n.effect
				continue next
			}
		}
		return 0, fmt.Errorf("unknown effect %q (want writes, spends, device or network)", s)
	}
	return e, nil
}

// MarshalJSON writes e as the list of its names: ["writes","spends"].
func (e Effect) MarshalJSON() ([]byte, error) {
	names := e.Names()
	if names == nil {
		names = []string{}
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads a list of effect names, refusing an unknown one.
func (e *Effect) UnmarshalJSON(data []byte) error {
	var names []string
	if err := json.Unmarshal(data, &names); err != nil {
		return fmt.Errorf("effects: %w", err)
	}
	v, err := ParseEffect(names...)
	if err != nil {
		return err
	}
	*e = v
	return nil
}

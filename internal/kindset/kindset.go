// Package kindset is the registry of the elicit kinds an application asks
// with, by name, so that an answer is checked by the rules of its
// request's kind wherever it arrives: the server decodes requests from
// JSON and has only the kind's name. The engine builds one at start-up
// from app.Config.Kinds and hands it to what checks answers; an author
// declares kinds (elicit.NewKind) and lists them, and never holds the
// registry.
package kindset

import (
	"encoding/json"
	"sync"

	"github.com/sweatpants-go/sweatpants/elicit"
)

// Set holds kinds by name. Every set holds the built-in kinds
// (elicit.BuiltinKinds), a nil *Set too: a server configured with none
// still holds a choice or a file to its kind's rules, rather than hand the
// agent an answer its own check (turn.Ask) refuses. A request of a kind
// the set does not hold is checked by its schema alone.
type Set struct {
	kinds map[string]elicit.Registered // kind name → kind
}

// New returns a set of kinds. Two different kinds of one name panic, as
// sets are built once at start-up; one kind given twice is held once.
func New(kinds ...elicit.Registered) *Set {
	kinds = append(elicit.BuiltinKinds(), kinds...)
	ks := &Set{kinds: make(map[string]elicit.Registered, len(kinds))}
	for _, k := range kinds {
		name := k.KindName()
		if prev, dup := ks.kinds[name]; dup {
			if prev != k {
				panic("kindset: two kinds named " + name)
			}
			continue
		}
		ks.kinds[name] = k
	}
	return ks
}

// builtin is the set of the built-in kinds alone: what a nil *Set holds.
var builtin = sync.OnceValue(func() *Set { return New() })

// or is ks, or the built-in kinds' set when ks is nil.
func (ks *Set) or() *Set {
	if ks == nil {
		return builtin()
	}
	return ks
}

// Has reports whether ks holds a kind named name.
func (ks *Set) Has(name string) bool {
	_, ok := ks.or().kinds[name]
	return ok
}

// Check validates resp against req as Request.Check does, then, for
// accepted content, against the rule of req's kind, if ks holds it. It
// returns elicit.FieldErrors for content problems and a plain error for a
// disallowed action.
func (ks *Set) Check(req elicit.Request, resp elicit.Response) error {
	if k, ok := ks.or().kinds[req.Kind]; ok {
		return k.Verify(req, resp)
	}
	return req.Check(resp)
}

// Automatic answers req without a person, for batch runs and unattended
// agents: a request that can be accepted with its schema's defaults alone,
// and with the rules ks holds for its kind, is accepted with them; any
// other is declined, or cancelled when it does not allow declining. A
// yes/no field with no default is a decision nobody made, although a
// form may leave it out (as false): it is never answered for the person.
// It is an implementation like the browser's, which the engine chooses
// through context for a run nobody attends.
func (ks *Set) Automatic(req elicit.Request) elicit.Response {
	if req.Allows(elicit.Accept) && req.Schema != nil && req.Schema.Type == "object" {
		content := map[string]any{}
		undecided := false
		for name, p := range req.Schema.Properties {
			switch {
			case p.Default != nil:
				content[name] = p.Default
			case p.Type == "boolean":
				undecided = true
			}
		}
		raw, err := json.Marshal(content)
		if err == nil && !undecided && ks.Check(req, elicit.Response{Action: elicit.Accept, Content: raw}) == nil {
			return elicit.Response{Action: elicit.Accept, Content: raw}
		}
	}
	if req.Allows(elicit.Decline) {
		return elicit.Response{Action: elicit.Decline}
	}
	return elicit.Response{Action: elicit.Cancel}
}

package elicit

import (
	"encoding/json"
	"sync"
)

// Registered is a kind a registry of kinds can hold: any *Kind.
type Registered interface {
	registration() (name string, rule contentCheck)
}

// Kinds is a registry of the kinds an application asks with, by name, so
// that an answer is checked by the rules of its request's kind wherever it
// arrives: the server decodes requests from JSON and has only the kind's
// name. An application builds one at start-up and passes it to what checks
// answers. Every registry holds the built-in kinds (BuiltinKinds), a nil
// *Kinds too: a server configured with none still holds a choice or a
// file to its kind's rules, rather than hand the agent an answer its own
// check (turn.Ask) refuses. A request of a kind the registry does not hold
// is checked by its schema alone.
type Kinds struct {
	rules map[string]contentCheck // kind name → rule; nil for none
}

// NewKinds returns a registry of kinds. Two different kinds of one name
// panic, as registries are built once at start-up; one kind given twice is
// held once.
func NewKinds(kinds ...Registered) *Kinds {
	kinds = append(BuiltinKinds(), kinds...)
	ks := &Kinds{rules: make(map[string]contentCheck, len(kinds))}
	seen := make(map[string]Registered, len(kinds))
	for _, k := range kinds {
		name, rule := k.registration()
		if prev, dup := seen[name]; dup {
			if prev != k {
				panic("elicit: two kinds named " + name)
			}
			continue
		}
		seen[name] = k
		ks.rules[name] = rule
	}
	return ks
}

// BuiltinKinds lists the built-in kinds besides forms, which every
// registry holds.
func BuiltinKinds() []Registered {
	return []Registered{Confirm, Choose, LocateDevice, ReadClipboard, WriteClipboard, AskFile, Approve}
}

// builtin is the registry of the built-in kinds alone: what a nil *Kinds
// holds.
var builtin = sync.OnceValue(func() *Kinds { return NewKinds() })

// or is ks, or the built-in kinds' registry when ks is nil.
func (ks *Kinds) or() *Kinds {
	if ks == nil {
		return builtin()
	}
	return ks
}

// Has reports whether ks holds a kind named name.
func (ks *Kinds) Has(name string) bool {
	_, ok := ks.or().rules[name]
	return ok
}

// Check validates resp against req as Request.Check does, then, for
// accepted content, against the rule ks holds for req's kind, if any. It
// returns FieldErrors for content problems and a plain error for a
// disallowed action.
func (ks *Kinds) Check(req Request, resp Response) error {
	return verify(req, resp, ks.or().rules[req.Kind])
}

// Automatic answers req without a person, for batch runs and unattended
// agents: a request that can be accepted with its schema's defaults alone,
// and with the rules ks holds for its kind, is accepted with them; any
// other is declined, or cancelled when it does not allow declining. A
// yes/no field with no default is a decision nobody made, although a
// form may leave it out (as false): it is never answered for the person.
// It is an implementation like the browser's, which the engine chooses
// through context for a run nobody attends.
func (ks *Kinds) Automatic(req Request) Response {
	if req.Allows(Accept) && req.Schema != nil && req.Schema.Type == "object" {
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
		if err == nil && !undecided && ks.Check(req, Response{Action: Accept, Content: raw}) == nil {
			return Response{Action: Accept, Content: raw}
		}
	}
	if req.Allows(Decline) {
		return Response{Action: Decline}
	}
	return Response{Action: Cancel}
}

// verify checks resp against req, then accepted content against rule.
func verify(req Request, resp Response, rule contentCheck) error {
	if err := req.Check(resp); err != nil {
		return err
	}
	if resp.Action == Accept && rule != nil {
		if errs := rule(req.Input, resp.Content); len(errs) > 0 {
			return errs
		}
	}
	return nil
}

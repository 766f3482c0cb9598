package primitive

import (
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/middleware"
)

// StateKey names an agent's state (agents.State).
type StateKey struct {
	Agent string
	Name  string
}

// StateChange is a state's new value, whole.
type StateChange struct {
	StateKey
	Value json.RawMessage
}

// The state APIs: an agent's typed state, read and changed by its tools
// (agents.State). A change is recorded, and a replay answers it from the
// record; a read is not, and reads the same in a replay as in the first
// run (package state). A read of a state nothing changed yet answers nil:
// the caller's initial value stands.
var (
	StateGetAPI = middleware.NewAPI[StateKey, json.RawMessage]("state.get")
	StateSetAPI = middleware.NewAPI[StateChange, struct{}]("state.set")
)

package elicit

import "time"

// WaitInput is what a durable sleep waits for: until when, and, in words,
// what for ("the seat hold to lapse").
type WaitInput struct {
	Until time.Time `json:"until" desc:"When the wait ends"`
	For   string    `json:"for,omitempty" desc:"What the agent waits for"`
}

// Wait is a durable sleep (turn.Sleep, turn.Until) as the conversation
// records it: a request nobody answers but the clock, at Until, with
// Expired. A user can only stop the turn that waits. The page shows what
// it waits for and until when.
var Wait = func() *Kind[WaitInput, struct{}] {
	k := NewKind[WaitInput, struct{}]("wait", "Waiting until a time")
	k.Actions = []Action{}
	return k
}()

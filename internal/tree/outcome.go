package tree

// Outcome is how a turn ended. The event stream's run.completed, the
// chat service's observer and telemetry all say it in these words; the
// first three are what the record says (OutcomeOf), the others say why a
// turn that recorded no end stopped running.
type Outcome string

const (
	OutcomeReplied     Outcome = "replied"     // the agent replied (AssistantMessage, SideReply)
	OutcomeStopped     Outcome = "stopped"     // the user stopped it (Stopped)
	OutcomeFailed      Outcome = "failed"      // it ended with an error, recorded (TurnError)
	OutcomeTimedOut    Outcome = "timed_out"   // it ran past its deadline (Stopped, Message.TimedOut)
	OutcomeParked      Outcome = "parked"      // its branch stopped being HEAD's; it resumes when it is again
	OutcomeSuspended   Outcome = "suspended"   // it waited unwatched and left memory; it resumes when loaded
	OutcomeInterrupted Outcome = "interrupted" // a new message took its place
	OutcomeShutdown    Outcome = "shutdown"    // the service closed; it resumes after the restart
)

// OutcomeOf returns how a turn ended from the kind of the node that records
// its end, and "" for a kind that ends no turn.
func OutcomeOf(k Kind) Outcome {
	switch k {
	case AssistantMessage, SideReply:
		return OutcomeReplied
	case Stopped:
		return OutcomeStopped
	case TurnError:
		return OutcomeFailed
	}
	return ""
}

// Ended returns how the turn ended whose end is recorded by a node of kind
// k with message m: OutcomeOf, with a stop at the turn's deadline told
// apart from the user's.
func Ended(k Kind, m Message) Outcome {
	if k == Stopped && m.TimedOut {
		return OutcomeTimedOut
	}
	return OutcomeOf(k)
}

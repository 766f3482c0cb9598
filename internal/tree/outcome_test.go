package tree

import "testing"

// The outcomes are a wire format (the event stream's run.completed status,
// telemetry's labels): a turn's end, read from the kind of its last node,
// is said in these words.
func TestOutcomeOfATurnsEnd(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		want string
	}{
		{AssistantMessage, "replied"},
		{SideReply, "replied"},
		{Stopped, "stopped"},
		{TurnError, "failed"},
		{UserMessage, ""},
		{ElicitRequest, ""},
		{Sample, ""},
		{"", ""},
	} {
		if got := OutcomeOf(c.kind); string(got) != c.want {
			t.Errorf("OutcomeOf(%q) = %q, want %q", c.kind, got, c.want)
		}
	}
	for o, want := range map[Outcome]string{OutcomeParked: "parked", OutcomeSuspended: "suspended",
		OutcomeInterrupted: "interrupted", OutcomeShutdown: "shutdown"} {
		if string(o) != want {
			t.Errorf("outcome %q, want %q", o, want)
		}
	}
}

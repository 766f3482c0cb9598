package chat_test

import (
	"testing"
)

// A loop's records grow linearly with its steps: each step records what
// it added to the conversation, not the whole conversation again. The
// bytes are what loops of 20, 100 and 200 steps add to a real SQLite
// file, measured closed (see loopBytes): a 200-step loop stores at most
// 11 times a 20-step one, and a step costs about as much at the end of a
// long loop as in the middle.
func TestALoopsRecordsGrowLinearly(t *testing.T) {
	const loops = 3 // a loop's figure is their mean, so that pages' slack evens out
	bytes := map[int]float64{}
	for _, steps := range loopSizes {
		bytes[steps], _ = loopBytes(t, t.TempDir(), steps, loops)
		t.Logf("a loop of %d steps adds %.1f KB", steps, bytes[steps]/1e3)
	}
	if got, limit := bytes[200]/bytes[20], 11.0; got > limit {
		t.Errorf("a 200-step loop stores %.1f times a 20-step one, want at most %.0f", got, limit)
	}
	// The bytes a step adds, from 20 steps to 100 and from 100 to 200: a
	// record that held the whole request would make the second about 2.5
	// times the first.
	early, late := (bytes[100]-bytes[20])/80, (bytes[200]-bytes[100])/100
	if late > 1.5*early {
		t.Errorf("a step adds %.0f bytes between 100 and 200 steps, %.0f between 20 and 100: records grow with the loop", late, early)
	}
}

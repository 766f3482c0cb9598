package deploycheck_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/deploycheck"
)

// The report names each turn that would diverge so an operator finds it —
// a side question's turn as such, a turn whose assistant is gone as one
// that cannot run — and ends with the totals, whatever they are.
func TestTheReportSaysWhatToLookAt(t *testing.T) {
	tests := []struct {
		name    string
		checked deploycheck.Checked
		want    string
	}{
		{"nothing waits", deploycheck.Checked{}, "No turn waits in this database: nothing to check.\n"},
		{"all resume", deploycheck.Checked{Turns: 1}, "The one suspended turn resumes with this build.\n"},
		{"a side question diverges", deploycheck.Checked{Turns: 3, Diverged: []deploycheck.Divergence{{Conversation: "c1", Assistant: "a", Turn: 9, Side: true, Call: "9-2", Recorded: "x", Made: "y"}}},
			"conversation c1 \"untitled\" (assistant a): the side question #9 diverges at call 9-2\n  recorded: x\n  now:      y\n\n" +
				"1 of 3 suspended turns would diverge after this deploy; 2 resume.\n"},
		{"an assistant gone", deploycheck.Checked{Turns: 2, Diverged: []deploycheck.Divergence{{Conversation: "c2", Title: "Trip", Assistant: "old", Turn: 4, Recorded: "a turn of assistant old", Made: "no assistant of that name"}}},
			"conversation c2 \"Trip\" (assistant old): the turn of message #4 cannot run\n  recorded: a turn of assistant old\n  now:      no assistant of that name\n\n" +
				"1 of 2 suspended turns would diverge after this deploy; 1 resumes.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if err := deploycheck.Report(&out, tc.checked); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("report:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

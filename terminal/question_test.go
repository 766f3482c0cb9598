package terminal_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/terminal"
)

type seat struct {
	Seat string `json:"seat"`
}

// pickSeat is a prompter as an application writes one: it picks from a
// numbered list and accepts what was picked.
func pickSeat(q *terminal.Question) (elicit.Response, error) {
	seats := []string{"1A", "1B"}
	i, err := q.Pick("Seat", seats)
	if err != nil {
		return elicit.Response{}, err
	}
	return terminal.Accept(seat{Seat: seats[i]})
}

// A prompter reads the user's lines through its question: a number picks,
// a keystroke the request allows is its answer, and words off the list
// are the answer other where the request takes it, with no code of the
// prompter's own for any of them.
func TestAPrompterAnswersWhatTheUserTypes(t *testing.T) {
	req := elicit.Request{Kind: "seat", Message: "Which seat?",
		Actions: []elicit.Action{elicit.Accept, elicit.Decline, elicit.Cancel, elicit.Other}}
	tests := []struct {
		typed string
		want  elicit.Response
	}{
		{"2\n", elicit.Response{Action: elicit.Accept, Content: []byte(`{"seat":"1B"}`)}},
		{"9\n1\n", elicit.Response{Action: elicit.Accept, Content: []byte(`{"seat":"1A"}`)}},
		{"/d\n", elicit.Response{Action: elicit.Decline}},
		{"by the window\n", elicit.Response{Action: elicit.Other, Text: "by the window"}},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSpace(tc.typed), func(t *testing.T) {
			var out strings.Builder
			got, err := terminal.Answer(terminal.PromptFunc(pickSeat), terminal.NewQuestion(req, strings.NewReader(tc.typed), &out))
			if err != nil {
				t.Fatalf("Answer: %v\n%s", err, out.String())
			}
			if got.Action != tc.want.Action || string(got.Content) != string(tc.want.Content) || got.Text != tc.want.Text {
				t.Errorf("typing %q answers %+v, want %+v\n%s", tc.typed, got, tc.want, out.String())
			}
		})
	}
}

// reporter is a line reader as the chat command's terminal is one: it
// hears the progress a prompter reports and rings its own bell.
type reporter struct {
	lines []string
	heard []elicit.Progress
	rung  int
}

func (r *reporter) Read([]byte) (int, error) { return 0, nil }

func (r *reporter) ReadLine(string) (string, error) {
	line := r.lines[0]
	r.lines = r.lines[1:]
	return line, nil
}

func (r *reporter) ReportProgress(p elicit.Progress) { r.heard = append(r.heard, p) }
func (r *reporter) Bell()                            { r.rung++ }

// A prompter reports a method's typed progress: the data travels as it
// is, and its status names the stage, as the browser's reports do; a
// bell rings through the terminal's own, never as a raw character in
// what is printed.
func TestAPrompterReportsTypedProgressAndRingsTheBell(t *testing.T) {
	req := elicit.Request{Kind: "take-photo", Message: "Smile!", Actions: []elicit.Action{elicit.Accept}}
	r := &reporter{lines: []string{"ok"}}
	var out strings.Builder
	q := terminal.NewQuestion(req, r, &out)
	if err := q.Report(map[string]string{"status": "capturing"}); err != nil {
		t.Fatal(err)
	}
	if err := q.Report(func() {}); err == nil {
		t.Error("a report that cannot be encoded was taken")
	}
	q.Bell()
	want := []elicit.Progress{{Stage: "capturing", Data: []byte(`{"status":"capturing"}`)}}
	if len(r.heard) != 1 || r.heard[0].Stage != want[0].Stage || string(r.heard[0].Data) != string(want[0].Data) {
		t.Errorf("heard %+v, want %+v", r.heard, want)
	}
	if r.rung != 1 || strings.Contains(out.String(), "\a") {
		t.Errorf("the bell rang %d times, printed %q; want once, through the terminal", r.rung, out.String())
	}

	// A question read from a plain reader writes the bell to its out.
	out.Reset()
	terminal.NewQuestion(req, strings.NewReader(""), &out).Bell()
	if out.String() != "\a" {
		t.Errorf("printed %q, want the bell", out.String())
	}
}

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

package term

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// booking is an approval of a booking.
func booking(t *testing.T) elicit.Request {
	t.Helper()
	type input struct {
		Flight string `json:"flight"`
		Seat   string `json:"seat"`
	}
	return request(t, elicit.Approve, elicit.ApprovalInput{
		Agent: "flights", Tool: "book", Description: "Book a seat",
		Args:    "{\n  \"seat\": \"3A\",\n  \"flight\": \"SP 101\"\n}",
		Effects: []string{"writes", "spends"}, Reason: "the user said so",
		Schema: tree.MustEncode(elicit.MustSchemaFor[input]()),
	})
}

// The terminal shows an approval's call — the tool and its agent, what it
// does, its arguments by name, the model's reason — and takes o, c, a or
// d (with a reason), or e to edit the arguments as a line of JSON first.
func TestPromptApproval(t *testing.T) {
	tests := []struct {
		name   string
		script []string
		want   string // content
		shown  string // in the output
	}{
		{"once", []string{"o"}, `{"choice":"once"}`, "Does: changes data, spends money"},
		{"for the conversation", []string{"c"}, `{"choice":"conversation"}`, "    seat: 3A\n    flight: SP 101\n"},
		{"always, by word", []string{"always"}, `{"choice":"always"}`, "Why (the model says): “the user said so”"},
		{"deny with a reason", []string{"d", "too dear"}, `{"choice":"deny","reason":"too dear"}`, "Tool: book (of flights) — Book a seat"},
		{"deny with none", []string{"d", ""}, `{"choice":"deny"}`, ""},
		{"edited", []string{"e", `{"flight":"SP 101","seat":"4C"}`, "o"}, `{"args":"{\"flight\":\"SP 101\",\"seat\":\"4C\"}","choice":"once"}`, `Now: {"seat":"3A","flight":"SP 101"}`},
		{"edited, not JSON first", []string{"e", "{seat: 4C", `{"flight":"SP 101","seat":"4C"}`, "c"}, `{"args":"{\"flight\":\"SP 101\",\"seat\":\"4C\"}","choice":"conversation"}`, "That is not JSON"},
		{"edit kept as it was", []string{"e", "", "o"}, `{"choice":"once"}`, ""},
		{"a wrong key", []string{"x", "o"}, `{"choice":"once"}`, "Type o, c, a, d or e."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, out := scripted(t, booking(t), tt.script...)
			resp := prompt(t, Builtin().For(q.Request), q)
			if got := content(t, resp); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if !strings.Contains(out.String(), tt.shown) {
				t.Errorf("output does not show %q:\n%s", tt.shown, out)
			}
		})
	}
}

// After the server refused edited arguments, the arguments typed are shown
// to fix, not the whole call again, and the next allow sends them unless
// edited again.
func TestPromptApprovalAfterARefusal(t *testing.T) {
	q, out := scripted(t, booking(t), "e", `{"flight":"SP 101","seat":"4C"}`, "o")
	last, _ := terminal.Accept(elicit.Approval{Choice: elicit.AllowOnce, Args: `{"seat":"4C"}`})
	q.Errors = elicit.FieldErrors{{Field: "args", Message: "do not fit the tool's input"}}
	q.Last = &last
	resp := prompt(t, Builtin().For(q.Request), q)
	if got, want := content(t, resp), `{"args":"{\"flight\":\"SP 101\",\"seat\":\"4C\"}","choice":"once"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if s := out.String(); strings.Contains(s, "Tool: book") || !strings.Contains(s, `The arguments you typed: {"seat":"4C"}`) || !strings.Contains(s, `Now: {"seat":"4C"}`) {
		t.Errorf("after a refusal the output is:\n%s", s)
	}
}

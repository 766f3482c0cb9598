package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/policy"
)

// The notes agent keeps what the user asks the assistant to remember. The
// note is kept where every call is, in the conversation's record (the
// call's node), so it follows the branch. Its one tool writes: the
// permission policy asks the user before each call, unless they allowed it
// for the conversation or always — an approval a real model brings up.
var Notes = agents.New("notes", "Keeps notes the user asks to remember.")

// Note is what the user asks to remember.
type Note struct {
	Text string `json:"text" title:"Note" desc:"What to remember, in a sentence" min:"1" max:"500"`
}

// RememberNote keeps a note for the user.
var RememberNote = agents.NewTool(Notes, "remember_note", "Remember a note the user asks you to keep",
	func(_ context.Context, n Note) (string, error) {
		text := strings.TrimSpace(n.Text)
		if text == "" {
			return "", fmt.Errorf("say what to remember")
		}
		return "Noted: " + text, nil
	}).Does(policy.Writes).Titled("Remember a note").
	Describes(func(_ context.Context, n Note) (string, error) {
		return "Remember “" + strings.TrimSpace(n.Text) + "”", nil
	})

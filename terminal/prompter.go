package terminal

import "github.com/sweatpants-go/sweatpants/elicit"

// A Prompter asks one kind of question at the terminal and returns the
// answer. It returns any error Line or Pick gives it as it is: such an
// error may stand for the user's decline, cancel or off-script answer.
// The terminal checks the answer with the server; when it is refused, the
// prompter is called again with the problems in Question.Errors.
type Prompter interface {
	Prompt(q *Question) (elicit.Response, error)
}

// PromptFunc is a Prompter written as a function.
type PromptFunc func(q *Question) (elicit.Response, error)

// Prompt calls f.
func (f PromptFunc) Prompt(q *Question) (elicit.Response, error) { return f(q) }

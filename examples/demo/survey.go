package demo

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// SurveyAnswer is one answer of the survey agent's questions.
type SurveyAnswer struct {
	Answer string `json:"answer" title:"Your answer" max:"2000"`
}

var surveyForm = elicit.Form[SurveyAnswer]()

// SurveyQuestions is how many questions the survey agent asks when the
// message does not say.
const SurveyQuestions = 3

// Survey asks a run of questions one after another, each through a form;
// a message that is a number sets how many. It is the agent the benchmarks
// drive, since every round trip is one elicit.
func Survey() agents.Assistant {
	return agents.Assistant{
		Name:        "survey",
		Description: "Asks a series of short questions, one form at a time.",
		Starters:    []string{"Start the survey"},
		Turn: func(ctx context.Context, message string) (string, error) {
			n, err := strconv.Atoi(message)
			if err != nil || n < 1 {
				n = SurveyQuestions
			}
			answered := 0
			for i := 1; i <= n; i++ {
				res, err := turn.Ask(ctx, surveyForm, fmt.Sprintf("Question %d of %d: what comes to mind?", i, n), struct{}{})
				if err != nil {
					return "", err
				}
				if res.Action != elicit.Accept {
					return fmt.Sprintf("Survey stopped after %d of %d answers.", answered, n), nil
				}
				answered++
			}
			if answered == 1 {
				return "Thanks — your answer is recorded.", nil
			}
			return fmt.Sprintf("Thanks — all %d answers recorded.", answered), nil
		},
	}
}

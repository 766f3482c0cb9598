package chat

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/primitive"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Deciding what typed text is while a question waits. Unstructured text
// goes to the model: it says, as typed output, whether the text answers the
// waiting question in words, changes an earlier answer (the conversation
// then goes on from that question, on a new branch), or asks something on
// the side. The offline model cannot weigh words, so with it (and whenever
// the model fails or answers out of shape) a plain rule decides. Either
// way the decision is recorded beside HEAD, for the inspector.

// The choices.
const (
	choiceAnswer = "answer"
	choiceChange = "change"
	choiceSide   = "side"
)

// asked is what text typed while a question waits may be about: the
// question that waits and the questions answered before it on HEAD's
// branch, newest first.
type asked struct {
	waits   elicit.Request
	earlier []elicit.Request
	head    int64 // HEAD when it was looked at
}

// askedLocked gathers what text may be about while req waits. c.mu is held.
func (c *conversation) askedLocked(req elicit.Request) asked {
	a := asked{waits: req, head: c.path.Head()}
	for i := len(c.path) - 1; i >= 0; i-- {
		n := c.path[i]
		if n.Kind != tree.ElicitResponse || n.Ref == req.ID {
			continue
		}
		if r := c.requestLocked(n.Ref); r.Allows(elicit.Other) {
			a.earlier = append(a.earlier, r)
		}
	}
	return a
}

// decision is what text was taken for.
type decision = tree.DecisionRecord

// decide decides what text is, by the model unless the rule is to.
func (s *Service) decide(ctx context.Context, q asked, text string) decision {
	if !s.decideByRule {
		if d, err := s.decideByModel(ctx, q, text); err == nil {
			return d
		} else if ctx.Err() == nil {
			s.log.Warn("the model could not decide what a message is; the rule decides", "err", err)
			d := decideByRule(q, text)
			d.Reason = "the model could not decide (" + err.Error() + "); " + d.Reason
			return d
		}
	}
	return decideByRule(q, text)
}

// inputDecision is the typed output the model is asked for.
type inputDecision struct {
	Choice   string `json:"choice" enum:"answer,change,side" desc:"what the message is"`
	Question string `json:"question,omitempty" desc:"for change: the id of the earlier question whose answer the user changes"`
	Reason   string `json:"reason,omitempty" desc:"why, in one short sentence"`
}

// decideByModel asks the model what text is, through the program's root
// scope and the sample pipeline (redaction, repair, the typed output's one
// retry with the format shown), as any turn's call.
func (s *Service) decideByModel(ctx context.Context, q asked, text string) (decision, error) {
	var b strings.Builder
	b.WriteString("A user is answering questions in a chat app and typed a message instead of using the form. Decide what the message is:\n")
	b.WriteString("- answer: it answers the question that waits, in words\n")
	b.WriteString("- change: it changes their answer to one of the earlier questions (give its id)\n")
	b.WriteString("- side: it asks or says something else, to be answered on the side while the question waits\n\n")
	fmt.Fprintf(&b, "The question that waits: %s\n", describeRequest(q.waits))
	if len(q.earlier) > 0 {
		b.WriteString("Earlier questions, already answered:\n")
		for _, r := range q.earlier {
			fmt.Fprintf(&b, "- id %s: %s\n", r.ID, describeRequest(r))
		}
	}
	if s.scope != nil {
		ctx = s.scope(ctx)
	}
	var rec *tree.SampleRecord // the last call made
	ctx = primitive.SampleAPI.Provide(ctx, func(ctx context.Context, req llm.Request) (llm.Response, error) {
		model := primitive.Model.Get(ctx)
		if model == nil {
			model = s.model
		}
		start := s.now()
		resp, err := primitive.Complete(ctx, model, req, nil)
		rec = &tree.SampleRecord{Request: req, LatencyMS: float64(s.since(start).Microseconds()) / 1000}
		if err != nil {
			rec.Error = err.Error()
		} else {
			rec.Response = &resp
		}
		return resp, err
	})
	out, err := primitive.SampleAs[inputDecision](ctx, llm.Request{
		Messages: []llm.Message{{Role: llm.System, Content: b.String()}, {Role: llm.User, Content: text}},
	})
	if err != nil {
		return decision{}, err
	}
	d := decision{Text: text, Waited: q.waits.ID, Choice: out.Value.Choice, By: "model", Reason: out.Value.Reason, Sample: rec}
	switch d.Choice {
	case choiceAnswer:
		if !q.waits.Allows(elicit.Other) {
			d.Choice, d.Reason = choiceSide, "the question that waits takes no answer in words; "+d.Reason
		}
	case choiceChange:
		if !q.has(out.Value.Question) {
			return decision{}, fmt.Errorf("it named no earlier question the user answered (%q)", out.Value.Question)
		}
		d.Change = out.Value.Question
	case choiceSide:
	default:
		return decision{}, fmt.Errorf("it chose %q", d.Choice)
	}
	return d, nil
}

func (q asked) has(id string) bool {
	for _, r := range q.earlier {
		if r.ID == id {
			return true
		}
	}
	return false
}

// describeRequest words a request for the model: its message and the
// fields or options it asks for.
func describeRequest(r elicit.Request) string {
	var fields []string
	if s := r.Schema; s != nil {
		for name, p := range s.Properties {
			f := name
			if p.Title != "" {
				f += " (" + p.Title + ")"
			}
			if len(p.Enum) > 0 {
				f += ": one of " + strings.Join(p.Enum, ", ")
			}
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return r.Message
	}
	return r.Message + " [fields: " + strings.Join(fields, "; ") + "]"
}

// decideByRule is the plain rule: text that names a field or option of the
// question that waits answers it; text that says it changes something
// ("instead", "actually", "change", …) and names a field or option of an
// earlier question changes that one, the newest first; anything else is a
// side question. It is deliberately plain, so that a person can predict
// it: "make it 3 travellers" answers a trip form, "what's the weather in
// Oslo?" does not.
func decideByRule(q asked, text string) decision {
	d := decision{Text: text, Waited: q.waits.ID, By: "rule"}
	switch {
	case q.waits.Allows(elicit.Other) && answersInWords(q.waits, text):
		d.Choice, d.Reason = choiceAnswer, "it names what the question asks for"
	case changesMind(text):
		for _, r := range q.earlier {
			if answersInWords(r, text) {
				d.Choice, d.Change, d.Reason = choiceChange, r.ID, "it says it changes something an earlier question asked for"
				return d
			}
		}
		d.Choice, d.Reason = choiceSide, "it names nothing a question asked for"
	default:
		d.Choice, d.Reason = choiceSide, "it names nothing the question asks for"
	}
	return d
}

// changesMind reports whether text says it changes something.
func changesMind(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case "instead", "actually", "change", "changed", "rather", "switch", "wrong", "oops", "mistake":
			return true
		}
	}
	return false
}

// answersInWords reports whether text speaks to req: it names one of the
// request's fields or options.
func answersInWords(req elicit.Request, text string) bool {
	vocab := map[string]bool{}
	add := func(s string) {
		for _, w := range keyWords(s) {
			vocab[w] = true
		}
	}
	if s := req.Schema; s != nil {
		for name, p := range s.Properties {
			add(strings.ReplaceAll(name, "_", " "))
			add(p.Title)
			for _, e := range p.Enum {
				add(e)
			}
			if p.Items != nil {
				for _, e := range p.Items.Enum {
					add(e)
				}
			}
		}
	}
	for _, w := range keyWords(text) {
		if vocab[w] {
			return true
		}
	}
	return false
}

// keyWords splits s into lower-case words of three letters or more, leaving
// out the commonest English ones.
func keyWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 && !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are the commonest English words, which speak to no request. It
// is a fixed table, built once from the list, not configuration.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for you your are was were this that with what when where which who how
		too not but can could would should will just like make made have has had from into about them they their there
		then than its it's our out all any some more most much many very also yes one two get got let want please
		instead actually change changed rather switch`) {
		m[w] = true
	}
	return m
}()

// recordDecisionLocked records d beside HEAD. c.mu is held.
func (c *conversation) recordDecisionLocked(ctx context.Context, d decision) error {
	_, err := c.appendLocked(ctx, tree.Node{Parent: c.conv.Head, Kind: tree.Decision, Payload: tree.MustEncode(d)},
		tree.AppendOptions{Fork: true, Aside: true})
	return err
}

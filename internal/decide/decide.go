// Package decide decides what text the user typed while a question waits
// is: an answer in words to the question that waits, a change of an
// earlier answer (the conversation then goes on from that question, on a
// new branch), or something asked on the side. The model decides, as typed
// output; the offline model cannot weigh words, so with it (and whenever
// the model fails or answers out of shape) a plain rule decides. The
// caller records the decision beside HEAD, for the inspector.
package decide

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The choices: what typed text is taken for.
const (
	Answer = "answer" // an answer in words to the question that waits
	Change = "change" // a change of an earlier answer
	Side   = "side"   // a side question, answered beside the flow
)

// Asked is what text typed while a question waits may be about: the
// question that waits and the questions answered before it on HEAD's
// branch, newest first.
type Asked struct {
	Waits   elicit.Request
	Earlier []elicit.Request
}

// Model is how ByModel reaches the model: the provider, unless the scope
// names one (middleware.Model), the program's root scope (nil for none),
// and the clock that times the call for its record.
type Model struct {
	Provider llm.Provider
	Scope    func(context.Context) context.Context
	Now      func() time.Time
}

// inputDecision is the typed output the model is asked for.
type inputDecision struct {
	Choice   string `json:"choice" enum:"answer,change,side" desc:"what the message is"`
	Question string `json:"question,omitempty" desc:"for change: the id of the earlier question whose answer the user changes"`
	Reason   string `json:"reason,omitempty" desc:"why, in one short sentence"`
}

// ByModel asks the model what text is, through the program's root scope
// and the sample pipeline (redaction, repair, the typed output's one retry
// with the format shown), as any turn's call. The decision keeps the
// model call it made.
func ByModel(ctx context.Context, m Model, q Asked, text string) (tree.DecisionRecord, error) {
	var b strings.Builder
	b.WriteString("A user is answering questions in a chat app and typed a message instead of using the form. Decide what the message is:\n")
	b.WriteString("- answer: it answers the question that waits, in words\n")
	b.WriteString("- change: it changes their answer to one of the earlier questions (give its id)\n")
	b.WriteString("- side: it asks or says something else, to be answered on the side while the question waits\n\n")
	fmt.Fprintf(&b, "The question that waits: %s\n", describeRequest(q.Waits))
	if len(q.Earlier) > 0 {
		b.WriteString("Earlier questions, already answered:\n")
		for _, r := range q.Earlier {
			fmt.Fprintf(&b, "- id %s: %s\n", r.ID, describeRequest(r))
		}
	}
	if m.Scope != nil {
		ctx = m.Scope(ctx)
	}
	var rec *tree.SampleRecord // the last call made
	ctx = primitive.Provide(ctx, middleware.Sample, func(ctx context.Context, req llm.Request) (llm.Response, error) {
		model := middleware.Model.Get(ctx)
		if model == nil {
			model = m.Provider
		}
		start := m.Now()
		resp, err := primitive.Complete(ctx, model, req, nil)
		rec = &tree.SampleRecord{Request: req, LatencyMS: float64(m.Now().Sub(start).Microseconds()) / 1000}
		if err != nil {
			rec.Error = err.Error()
		} else {
			rec.Response = &resp
		}
		return resp, err
	})
	out, err := turn.SampleAs[inputDecision](ctx, llm.Request{
		Messages: []llm.Message{{Role: llm.System, Content: b.String()}, {Role: llm.User, Content: text}},
	})
	if err != nil {
		return tree.DecisionRecord{}, err
	}
	d := tree.DecisionRecord{Text: text, Waited: q.Waits.ID, Choice: out.Value.Choice, By: "model", Reason: out.Value.Reason, Sample: rec}
	switch d.Choice {
	case Answer:
		if !q.Waits.Allows(elicit.Other) {
			d.Choice, d.Reason = Side, "the question that waits takes no answer in words; "+d.Reason
		}
	case Change:
		if !q.has(out.Value.Question) {
			return tree.DecisionRecord{}, fmt.Errorf("it named no earlier question the user answered (%q)", out.Value.Question)
		}
		d.Change = out.Value.Question
	case Side:
	default:
		return tree.DecisionRecord{}, fmt.Errorf("it chose %q", d.Choice)
	}
	return d, nil
}

func (q Asked) has(id string) bool {
	for _, r := range q.Earlier {
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

// ByRule is the plain rule: text that names a field or option of the
// question that waits answers it; text that says it changes something
// ("instead", "actually", "change", …) and names a field or option of an
// earlier question changes that one, the newest first; anything else is a
// side question. It is deliberately plain, so that a person can predict
// it: "make it 3 travellers" answers a trip form, "what's the weather in
// Oslo?" does not.
func ByRule(q Asked, text string) tree.DecisionRecord {
	d := tree.DecisionRecord{Text: text, Waited: q.Waits.ID, By: "rule"}
	switch {
	case q.Waits.Allows(elicit.Other) && answersInWords(q.Waits, text):
		d.Choice, d.Reason = Answer, "it names what the question asks for"
	case changesMind(text):
		for _, r := range q.Earlier {
			if answersInWords(r, text) {
				d.Choice, d.Change, d.Reason = Change, r.ID, "it says it changes something an earlier question asked for"
				return d
			}
		}
		d.Choice, d.Reason = Side, "it names nothing a question asked for"
	default:
		d.Choice, d.Reason = Side, "it names nothing the question asks for"
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

package agenttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
)

// UserScript is a scripted user: one step per question the turn is
// expected to ask, each answering the question it matches. Made by User,
// it is an Option of Run, Play and Serve. A script serves one run.
type UserScript struct {
	steps []UserStep

	mu       sync.Mutex
	used     []bool
	asked    []Question
	problems []string
	files    shelf // the files the steps gave (GiveFile)
}

// User returns a user that answers the turn's questions with steps: each
// question takes the first step not used yet that matches it (its words,
// and its kind when the step names one), so questions asked at once
// (turn.Together) may come in any order.
func User(steps ...UserStep) *UserScript {
	return &UserScript{steps: steps, used: make([]bool, len(steps))}
}

func (u *UserScript) apply(c *config) { c.user = u }

// UserStep is the answer to one question the turn is expected to ask.
type UserStep struct {
	question string // what the question's message contains
	kind     string // the question's kind; "" for any
	tool     string // for an approval (Approve), the tool whose call it asks about
	resp     elicit.Response
	file     *givenFile // the file the step gives (GiveFile), if any
	broken   string     // why the step could not be written
}

// Answer accepts the question whose message contains question, with
// content marshalled to JSON: the form's type (Greeting{Name: "Ana"}), a
// map of field names to values, elicit.Confirmation{Yes: true} for a
// yes/no, elicit.Choice{Option: "aisle"} for a choice. The content must
// fit the question: a field the question does not have, or a value its
// schema refuses, fails the test.
func Answer(question string, content any) UserStep {
	s := UserStep{question: question, resp: elicit.Response{Action: elicit.Accept}}
	raw, ok := content.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(content); err != nil {
			s.broken = fmt.Sprintf("the answer does not marshal: %v", err)
		}
	}
	s.resp.Content = raw
	return s
}

// Decline declines the question whose message contains question: the
// user says no.
func Decline(question string) UserStep {
	return UserStep{question: question, resp: elicit.Response{Action: elicit.Decline}}
}

// Cancel dismisses the question whose message contains question without
// answering it.
func Cancel(question string) UserStep {
	return UserStep{question: question, resp: elicit.Response{Action: elicit.Cancel}}
}

// Deny refuses the device permission the question whose message contains
// question asks for (a location, the clipboard).
func Deny(question string) UserStep {
	return UserStep{question: question, resp: elicit.Response{Action: elicit.Denied}}
}

// Unsupported answers the question whose message contains question as a
// frontend that cannot do what it asks does (a browser without a camera, a
// terminal without a position): the method is unsupported where the user
// is.
func Unsupported(question string) UserStep {
	return UserStep{question: question, resp: elicit.Response{Action: elicit.Unsupported}}
}

// Reporting has the step report progress before it answers, each value as
// the typed progress of a method (package protocol) the question's method
// declares — PhotoProgress{Status: "capturing"} — in order, as a browser
// reports while it works. A value the method's progress schema refuses
// fails the test.
func (s UserStep) Reporting(progress ...any) UserStep {
	s.resp.Progress = nil
	for _, v := range progress {
		p, err := elicit.ProgressOf(v)
		if err != nil {
			s.broken = err.Error()
			return s
		}
		s.resp.Progress = append(s.resp.Progress, p)
	}
	return s
}

// Say answers the question whose message contains question in the user's
// own words instead of its form (the action other).
func Say(question, text string) UserStep {
	return UserStep{question: question, resp: elicit.Response{Action: elicit.Other, Text: text}}
}

// Approve answers the approval of a call of tool (its name, or
// "agent/tool") with a: elicit.Approval{Choice: elicit.AllowOnce} lets the
// call run, AllowConversation lets every later call of the tool in the
// conversation run too, DenyCall refuses it (with a Reason for the model),
// and Args, with an allow, edits the call's arguments. The service and
// Run ask before a tool with effects runs, unless a rule allows it
// (package policy).
func Approve(tool string, a elicit.Approval) UserStep {
	s := Answer("", a)
	s.kind, s.tool = elicit.Approve.Name, tool
	return s
}

// Of has the step match only a question of kind ("form", "confirm",
// "choice", "location", or an application's own).
func (s UserStep) Of(kind string) UserStep {
	s.kind = kind
	return s
}

// matches reports whether the step answers req.
func (s UserStep) matches(req elicit.Request) bool {
	if s.tool != "" {
		var in elicit.ApprovalInput
		if req.Kind != elicit.Approve.Name || json.Unmarshal(req.Input, &in) != nil ||
			s.tool != in.Tool && s.tool != in.Agent+"/"+in.Tool {
			return false
		}
	}
	return (s.kind == "" || s.kind == req.Kind) && strings.Contains(req.Message, s.question)
}

// String names the step as the problems do: Answer "What should I call you?".
func (s UserStep) String() string {
	verb := map[elicit.Action]string{elicit.Accept: "Answer", elicit.Decline: "Decline", elicit.Cancel: "Cancel",
		elicit.Denied: "Deny", elicit.Other: "Say", elicit.Unsupported: "Unsupported"}[s.resp.Action]
	out := fmt.Sprintf("%s %q", verb, s.question)
	if s.tool != "" {
		var a elicit.Approval
		json.Unmarshal(s.resp.Content, &a)
		return fmt.Sprintf("Approve %q (%s)", s.tool, a.Choice)
	}
	if s.file != nil {
		out = fmt.Sprintf("GiveFile %q (%s)", s.question, s.file.name)
	}
	if s.kind != "" {
		out += ".Of(" + fmt.Sprintf("%q", s.kind) + ")"
	}
	return out
}

// answer answers req from the script, checking the answer against req
// with kinds. A question no step expects, or an answer that does not fit
// it, is a problem of the script: the error ends the turn.
func (u *UserScript) answer(req elicit.Request, kinds *kindset.Set) (elicit.Response, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	i := -1
	for j, s := range u.steps {
		if !u.used[j] && s.matches(req) {
			i = j
			break
		}
	}
	if i < 0 {
		return elicit.Response{}, u.failLocked(fmt.Sprintf("the turn asked %s, which no step of the user's script expects%s",
			describeQuestion(req), u.unusedLocked()))
	}
	u.used[i] = true
	step := u.steps[i]
	if step.broken != "" {
		return elicit.Response{}, u.failLocked(fmt.Sprintf("user step %d (%s): %s", i+1, step, step.broken))
	}
	resp := step.response(&u.files)
	if err := checkAnswer(req, resp, kinds); err != nil {
		return elicit.Response{}, u.failLocked(fmt.Sprintf("user step %d (%s) does not fit %s: %v", i+1, step, describeQuestion(req), err))
	}
	u.asked = append(u.asked, Question{Request: req, Answer: resp})
	return resp, nil
}

// unusedLocked lists the steps not used yet, for a question none matched.
func (u *UserScript) unusedLocked() string {
	var left []string
	for i, s := range u.steps {
		if !u.used[i] {
			left = append(left, s.String())
		}
	}
	if len(left) == 0 {
		return " (it has no step left)"
	}
	return " (its steps left: " + strings.Join(left, ", ") + ")"
}

func (u *UserScript) failLocked(problem string) error {
	u.problems = append(u.problems, problem)
	return &stop{problem: problem}
}

// found lists the problems found so far.
func (u *UserScript) found() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.problems)
}

// check lists the problems found and the steps not used, once the script
// should be over.
func (u *UserScript) check() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	ps := slices.Clone(u.problems)
	if len(ps) > 0 {
		return ps // the turn ended at the problem, and asked nothing more
	}
	var asked []string
	for _, q := range u.asked {
		asked = append(asked, describeQuestion(q.Request))
	}
	for i, s := range u.steps {
		if u.used[i] {
			continue
		}
		p := fmt.Sprintf("user step %d (%s) was never used: no question matched it", i+1, s)
		if len(asked) == 0 {
			p += "; the turn asked nothing"
		} else {
			p += "; the turn asked " + strings.Join(asked, ", ")
		}
		ps = append(ps, p)
	}
	return ps
}

// checkAnswer checks resp against req as the server does (the action is
// allowed, accepted content fits the schema and the kind's rules, in
// kinds), its progress reports fit the request's progress schema, and
// besides that accepted content names no field req lacks, which a form the
// model wrote (ask_user) does not refuse by itself.
func checkAnswer(req elicit.Request, resp elicit.Response, kinds *kindset.Set) error {
	for i, p := range resp.Progress {
		if err := req.CheckProgress(p); err != nil {
			return fmt.Errorf("progress report %d: %w", i+1, err)
		}
	}
	if resp.Action == elicit.Accept && req.Schema != nil && req.Schema.Type == "object" {
		var fields map[string]json.RawMessage
		if json.Unmarshal(resp.Content, &fields) == nil {
			for _, name := range slices.Sorted(maps.Keys(fields)) {
				if _, ok := req.Schema.Properties[name]; !ok {
					return fmt.Errorf("%s: is not a field of this question (its fields: %s)", name, strings.Join(req.Schema.FieldOrder(), ", "))
				}
			}
		}
	}
	return kinds.Check(req, resp)
}

// describeQuestion names a question as the problems do: its kind, its
// words and its fields.
func describeQuestion(req elicit.Request) string {
	out := fmt.Sprintf("%s %q", req.Kind, req.Message)
	if req.Schema == nil || req.Schema.Type != "object" || len(req.Schema.Properties) == 0 {
		return out
	}
	var fields []string
	for _, name := range req.Schema.FieldOrder() {
		f := name
		if p := req.Schema.Properties[name]; p != nil && len(p.Enum) > 0 {
			f += " (" + strings.Join(p.Enum, "|") + ")"
		}
		fields = append(fields, f)
	}
	return out + " with fields " + strings.Join(fields, ", ")
}

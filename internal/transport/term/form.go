package term

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// promptForm asks a form's fields one by one, in the order the schema
// declares them, checking each as it is typed: a value the field refuses is
// asked again with the reason. Enter takes the default, or leaves an
// optional field out. After the server refused the whole answer, only the
// fields it named are asked again.
func promptForm(q *terminal.Question) (elicit.Response, error) {
	s := q.Request.Schema
	if !flatForm(s) {
		return promptJSON(q)
	}
	content := map[string]any{}
	ask := s.FieldOrder()
	if q.Last != nil && q.Last.Action == elicit.Accept && len(q.Errors) > 0 {
		json.Unmarshal(q.Last.Content, &content)
		if named := fieldsNamed(s, q.Errors); len(named) > 0 {
			ask = named
		}
	}
	for _, name := range ask {
		v, set, err := askField(q, s, name)
		if err != nil {
			return elicit.Response{}, err
		}
		if set {
			content[name] = v
		} else {
			delete(content, name)
		}
	}
	return terminal.Accept(content)
}

// fieldsNamed returns the fields errs are about, in form order, or none
// when any error is about the answer as a whole.
func fieldsNamed(s *elicit.Schema, errs elicit.FieldErrors) []string {
	var out []string
	for _, name := range s.FieldOrder() {
		if errs.For(name) != "" {
			out = append(out, name)
		}
	}
	for _, e := range errs {
		if _, ok := s.Properties[e.Field]; !ok {
			return nil
		}
	}
	return out
}

// askField asks one field until its value is one the field takes; set is
// false when it is left out.
func askField(q *terminal.Question, s *elicit.Schema, name string) (v any, set bool, err error) {
	p := s.Properties[name]
	required := slices.Contains(s.Required, name)
	choices := p // the schema of the options: the field's, or a list's items'
	multi := p.Type == "array" && p.Items != nil
	if multi {
		choices = p.Items
	}
	options := choices.Enum
	if p.Description != "" {
		q.Printf("  %s — %s\n", title(p, name), p.Description)
	}
	if len(options) > 0 {
		q.Printf("  %s\n", numbered(choices))
	}
	label := fieldLabel(p, name, required, multi && len(options) > 0)
	for {
		line, err := q.Line(label)
		if err != nil {
			return nil, false, err
		}
		if p.Format != "multiline" {
			line = strings.TrimSpace(line)
		}
		if line == "" && p.Default != nil {
			return p.Default, true, nil
		}
		if multi && line == "-" {
			line = "" // nothing picked, over a default
			if !required {
				return []any{}, true, nil
			}
		}
		v, set, msg := parseFieldInput(p, name, required, line, choices, multi)
		if msg == "" {
			return v, set, nil
		}
		q.Problem("%s %s", title(p, name), msg)
	}
}

// parseFieldInput reads what was typed for one field and checks it against
// the field's schema alone, with the schema's own rules (elicit.FromForm):
// a number or a label stands for that option, y/n for a boolean.
// choices is the schema of the field's options, if it has some.
func parseFieldInput(p *elicit.Schema, name string, required bool, line string, choices *elicit.Schema, multi bool) (v any, set bool, msg string) {
	form := url.Values{}
	var options []string
	if choices != nil {
		options = choices.Enum
	}
	switch {
	case line == "":
	case multi:
		for tok := range strings.SplitSeq(line, ",") {
			if tok = strings.TrimSpace(tok); tok != "" {
				form.Add(name, optionFor(tok, choices))
			}
		}
	case len(options) > 0:
		form.Set(name, optionFor(line, choices))
	case p.Type == "boolean":
		form.Set(name, yesNo(line))
	default:
		form.Set(name, line)
	}
	one := &elicit.Schema{Type: "object", Properties: map[string]*elicit.Schema{name: p}, Order: []string{name}}
	if required {
		one.Required = []string{name}
	}
	raw, errs := one.FromForm(form)
	if len(errs) > 0 {
		return nil, false, errs[0].Message
	}
	var got map[string]any
	json.Unmarshal(raw, &got)
	v, set = got[name]
	return v, set, ""
}

// optionFor reads tok as an option's number, or its label as shown, else
// leaves it as typed for the schema to judge.
func optionFor(tok string, choices *elicit.Schema) string {
	if n, err := strconv.Atoi(tok); err == nil && n >= 1 && n <= len(choices.Enum) {
		return choices.Enum[n-1]
	}
	for _, o := range choices.Enum {
		if tok != "" && (strings.EqualFold(tok, o) || strings.EqualFold(tok, choices.Label(o))) {
			return o
		}
	}
	return tok
}

func yesNo(line string) string {
	switch strings.ToLower(line) {
	case "y":
		return "yes"
	case "n":
		return "no"
	}
	return line
}

// fieldLabel is the prompt of one field: its title and how to answer.
func fieldLabel(p *elicit.Schema, name string, required, multi bool) string {
	var how []string
	switch {
	case multi:
		how = append(how, "numbers separated by commas")
	case p.Type == "boolean":
		how = append(how, "y/n")
	}
	if b := bounds(p); b != "" {
		how = append(how, b)
	}
	switch {
	case p.Default != nil:
		how = append(how, "Enter: "+defaultText(p.Default))
	case !required && p.Type == "boolean":
		how = append(how, "Enter: no") // left out, a yes/no reads as no
	case !required:
		how = append(how, "Enter skips")
	}
	label := title(p, name)
	if len(how) > 0 {
		label += " (" + strings.Join(how, ", ") + ")"
	}
	return label + ": "
}

// bounds words a field's limits.
func bounds(p *elicit.Schema) string {
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'f', -1, 64) }
	switch p.Type {
	case "integer", "number":
		switch {
		case p.Minimum != nil && p.Maximum != nil:
			return num(p.Minimum) + "–" + num(p.Maximum)
		case p.Minimum != nil:
			return "at least " + num(p.Minimum)
		case p.Maximum != nil:
			return "at most " + num(p.Maximum)
		}
	case "string":
		if p.MaxLength != nil && len(p.Enum) == 0 {
			return fmt.Sprintf("up to %d characters", *p.MaxLength)
		}
	}
	return ""
}

func defaultText(d any) string {
	switch d := d.(type) {
	case string:
		return d
	case []any:
		parts := make([]string, len(d))
		for i, v := range d {
			parts[i] = fmt.Sprint(v)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(d)
}

// numbered lists options on one line, numbered from 1.
// numbered lists the options of choices by number, each by its label.
func numbered(choices *elicit.Schema) string {
	parts := make([]string, len(choices.Enum))
	for i, o := range choices.Enum {
		parts[i] = fmt.Sprintf("%d) %s", i+1, choices.Label(o))
	}
	return strings.Join(parts, "  ")
}

func title(p *elicit.Schema, name string) string {
	if p.Title != "" {
		return p.Title
	}
	return name
}

// flatForm reports whether s is an object whose fields a line each can
// fill: text, numbers, booleans and lists of text.
func flatForm(s *elicit.Schema) bool {
	if s == nil || s.Type != "object" || len(s.Properties) == 0 {
		return false
	}
	for _, p := range s.Properties {
		switch p.Type {
		case "string", "integer", "number", "boolean":
		case "array":
			if p.Items == nil || p.Items.Type != "string" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

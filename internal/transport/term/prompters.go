package term

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// Prompters maps elicit kinds to the prompters that ask them. A kind with
// none is asked as a form when its schema is a flat object, else as JSON.
type Prompters struct {
	byKind map[string]terminal.Prompter
}

// Builtin returns the prompters of the built-in kinds: forms, yes/no,
// choices, location, the clipboard, approvals of tool calls and files (a
// path, when Config.Files keeps them). An application registers its own
// kinds' prompters on it.
func Builtin() *Prompters {
	p := &Prompters{byKind: map[string]terminal.Prompter{}}
	p.Register(elicit.FormKind, terminal.PromptFunc(promptForm))
	p.Register(elicit.Confirm.Name, terminal.PromptFunc(promptConfirm))
	p.Register(elicit.Choose.Name, terminal.PromptFunc(promptChoice))
	p.Register(elicit.LocateDevice.Name, terminal.PromptFunc(promptLocation))
	p.Register(elicit.ReadClipboard.Name, terminal.PromptFunc(promptClipboardRead))
	p.Register(elicit.WriteClipboard.Name, terminal.PromptFunc(promptClipboardWrite))
	p.Register(elicit.Approve.Name, terminal.PromptFunc(promptApproval))
	p.Register(elicit.AskFile.Name, filePrompter{})
	return p
}

// Register sets the prompter of kind, replacing any there was.
func (p *Prompters) Register(kind string, pr terminal.Prompter) { p.byKind[kind] = pr }

// For returns the prompter that asks req.
func (p *Prompters) For(req elicit.Request) terminal.Prompter {
	if pr, ok := p.byKind[req.Kind]; ok {
		return pr
	}
	if flatForm(req.Schema) {
		return terminal.PromptFunc(promptForm)
	}
	return terminal.PromptFunc(promptJSON)
}

// promptJSON asks for the answer as JSON, for kinds no prompter knows whose
// schema is not a flat form.
func promptJSON(q *terminal.Question) (elicit.Response, error) {
	if q.Request.Schema != nil {
		if b, err := json.Marshal(q.Request.Schema); err == nil {
			q.Printf("  The answer follows this JSON Schema: %s\n", b)
		}
	}
	for {
		line, err := q.Line("Answer as JSON: ")
		if err != nil {
			return elicit.Response{}, err
		}
		if json.Valid([]byte(line)) {
			return elicit.Response{Action: elicit.Accept, Content: json.RawMessage(line)}, nil
		}
		q.Problem("That is not JSON.")
	}
}

// promptConfirm asks a yes/no question: y or n, or the answers' labels.
func promptConfirm(q *terminal.Question) (elicit.Response, error) {
	var in elicit.ConfirmInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	yes, no := orDefault(in.Yes, "Yes"), orDefault(in.No, "No")
	q.Printf("  y) %s\n  n) %s\n", yes, no)
	for {
		line, err := q.Line("[y/n]: ")
		if err != nil {
			return elicit.Response{}, err
		}
		switch l := strings.ToLower(line); {
		case l == "y" || l == "yes" || strings.EqualFold(line, yes):
			return terminal.Accept(elicit.Confirmation{Yes: true})
		case l == "n" || l == "no" || strings.EqualFold(line, no):
			return terminal.Accept(elicit.Confirmation{Yes: false})
		case line != "" && q.Request.Allows(elicit.Other):
			return elicit.Response{Action: elicit.Other, Text: line}, nil
		}
		q.Problem("Type y or n.")
	}
}

// promptChoice asks to pick an option by number or name, with one more
// numbered entry for writing one's own answer when the input offers it.
func promptChoice(q *terminal.Question) (elicit.Response, error) {
	var in elicit.ChoiceInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	options := in.Options
	if in.Else != "" {
		options = append(options[:len(options):len(options)], in.Else+" (type your own)")
	}
	i, err := q.Pick("Pick one", options)
	if err != nil {
		return elicit.Response{}, err
	}
	if i < len(in.Options) {
		return terminal.Accept(elicit.Choice{Option: in.Options[i]})
	}
	for {
		text, err := q.Line(in.Else + ": ")
		if err != nil {
			return elicit.Response{}, err
		}
		if text != "" {
			return terminal.Accept(elicit.Choice{Else: text})
		}
		q.Problem("Write your own answer, or /c to leave the question.")
	}
}

// promptLocation asks for the location typed as "lat,lng": the terminal
// has no device to ask. Asking counts as requesting the permission; a
// location typed is one acquired.
func promptLocation(q *terminal.Question) (elicit.Response, error) {
	var in elicit.LocationInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	if q.Errors == nil {
		q.Report(elicit.LocationProgress{Status: elicit.StageRequestingPermission})
	}
	if in.Accuracy == "high" {
		q.Printf("  As precise as you can, please.\n")
	}
	for {
		line, err := q.Line("Your location as lat,lng (/r refuses): ")
		if err != nil {
			return elicit.Response{}, err
		}
		lat, lng, ok := parseLatLng(line)
		if !ok {
			q.Problem("Type two numbers separated by a comma, latitude first, like 52.37,4.89.")
			continue
		}
		q.Report(elicit.LocationProgress{Status: elicit.StageAcquiring})
		return terminal.Accept(elicit.Location{Lat: lat, Lng: lng})
	}
}

// parseLatLng reads "lat,lng" (spaces allowed). ParseFloat reads "NaN"
// and "Inf" too, which are no place and cannot be sent as JSON.
func parseLatLng(s string) (lat, lng float64, ok bool) {
	a, b, found := strings.Cut(s, ",")
	if !found {
		return 0, 0, false
	}
	lat, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	lng, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	finite := !math.IsNaN(lat) && !math.IsInf(lat, 0) && !math.IsNaN(lng) && !math.IsInf(lng, 0)
	return lat, lng, err1 == nil && err2 == nil && finite
}

// promptClipboardRead asks the user to paste the text, one line: the
// terminal cannot read a clipboard itself.
func promptClipboardRead(q *terminal.Question) (elicit.Response, error) {
	var in elicit.ClipboardReadInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	if in.Purpose != "" {
		q.Printf("  (%s)\n", in.Purpose)
	}
	for {
		text, err := q.Line("Paste the text (/r refuses): ")
		if err != nil {
			return elicit.Response{}, err
		}
		if text != "" {
			return terminal.Accept(elicit.ClipboardText{Text: text})
		}
		q.Problem("Paste something, or /r to refuse.")
	}
}

// promptClipboardWrite shows the text to copy and asks whether the user
// copied it.
func promptClipboardWrite(q *terminal.Question) (elicit.Response, error) {
	var in elicit.ClipboardWriteInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	q.Printf("  ┃ %s\n", strings.ReplaceAll(in.Text, "\n", "\n  ┃ "))
	for {
		line, err := q.Line("Copy it, then press Enter (/r refuses): ")
		if err != nil {
			return elicit.Response{}, err
		}
		switch strings.ToLower(line) {
		case "", "y", "yes":
			return terminal.Accept(elicit.ClipboardWritten{Copied: true})
		case "n", "no":
			return elicit.Response{Action: elicit.Denied}, nil
		}
		q.Problem("Press Enter once you have copied it, or /r to refuse.")
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

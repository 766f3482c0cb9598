package words

import (
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
)

// Method calls. A method a frontend implements (package protocol) is called
// as a question whose request declares a progress schema; its question and
// its answer read as the call they are: "get-spot(accuracy high)", then
// "get-spot → done (lat 38.72, lng -9.14)", with the progress the
// implementation reported listed beside the answer.

// IsCall reports whether question r calls a method: its request declares
// a progress schema.
func IsCall(r elicit.Request) bool { return r.Progress != nil }

// Invoked says the call question r makes: the method and its arguments,
// "get-spot(accuracy high)".
func Invoked(r elicit.Request) string {
	if len(r.Input) == 0 {
		return r.Kind + "()"
	}
	return r.Kind + "(" + fields(r.Input) + ")"
}

// Called says how call req ended, answered resp: "get-spot → done (lat
// 38.72, lng -9.14)", "get-spot → denied". The progress reported is not
// in it: ProgressOf says it.
func Called(req elicit.Request, resp elicit.Response) string {
	said := req.Kind + " → " + Status(resp.Action)
	if resp.Action == elicit.Accept && len(resp.Content) > 0 {
		said += " (" + fields(resp.Content) + ")"
	}
	return said
}

// Status is how a method's call ended, answered with action a, as package
// protocol says it (protocol.Status): done, declined, cancelled, denied,
// unsupported, or expired when nobody answered in time. An answer a method does not take (in words) is cancelled.
func Status(a elicit.Action) string {
	switch a {
	case elicit.Accept:
		return "done"
	case elicit.Decline:
		return "declined"
	case elicit.Denied:
		return "denied"
	case elicit.Unsupported:
		return "unsupported"
	case elicit.Expired:
		return "expired"
	}
	return "cancelled"
}

// ProgressOf says each progress report recorded with an answer, in order:
// its stage, and its words when it has them ("acquiring: Finding you"); a
// report with neither, by its data.
func ProgressOf(ps []elicit.Progress) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		switch said := Line(p.Message); {
		case p.Stage != "" && said != "":
			out[i] = Title(p.Stage + ": " + said)
		case p.Stage != "" || said != "":
			out[i] = Title(p.Stage + said)
		default:
			out[i] = fields(p.Data)
		}
	}
	return out
}

// after says the stages of the progress recorded with an answer, after
// it, each once in the order first reported: " after
// requesting-permission, acquiring" (a file's many "uploading" reports
// are one); "" for none.
func after(ps []elicit.Progress) string {
	var stages []string
	for i, p := range ps {
		stage := p.Stage
		if stage == "" {
			stage = ProgressOf(ps[i : i+1])[0]
		}
		if !slices.Contains(stages, stage) {
			stages = append(stages, stage)
		}
	}
	if len(stages) == 0 {
		return ""
	}
	return " after " + strings.Join(stages, ", ")
}

package term

import (
	"encoding/json"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// promptApproval asks whether a tool call may run: it shows the call (the
// tool and its agent, what it does, its arguments, the model's reason)
// and reads o (once), c (for this conversation), a (always) or d (deny,
// then a reason); e edits the arguments as one line of JSON first, which
// the allow that follows sends. After the server refused edited
// arguments, the call is not shown again: the arguments typed are, to fix.
func promptApproval(q *terminal.Question) (elicit.Response, error) {
	var in elicit.ApprovalInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	var edited string
	if q.Errors == nil {
		showCall(q, in)
	} else if q.Last != nil {
		var last elicit.Approval
		if json.Unmarshal(q.Last.Content, &last) == nil && last.Args != "" {
			edited = last.Args
			q.Printf("  The arguments you typed: %s\n", edited)
		}
	}
	q.Printf("  o) Allow once\n  c) Allow for this conversation\n  a) Always allow\n  d) Deny\n  e) Edit the arguments\n")
	for {
		line, err := q.Line("[o/c/a/d/e]: ")
		if err != nil {
			return elicit.Response{}, err
		}
		switch strings.ToLower(line) {
		case "o", "once":
			return terminal.Accept(elicit.Approval{Choice: elicit.AllowOnce, Args: edited})
		case "c", "conversation":
			return terminal.Accept(elicit.Approval{Choice: elicit.AllowConversation, Args: edited})
		case "a", "always":
			return terminal.Accept(elicit.Approval{Choice: elicit.AllowAlways, Args: edited})
		case "d", "deny":
			reason, err := q.Line("Why not? (the model is told; Enter to say nothing): ")
			if err != nil {
				return elicit.Response{}, err
			}
			return terminal.Accept(elicit.Approval{Choice: elicit.DenyCall, Reason: reason})
		case "e", "edit":
			if edited, err = editArgs(q, in, edited); err != nil {
				return elicit.Response{}, err
			}
			q.Printf("  Now allow the call with them (o, c or a), or d to deny it.\n")
		default:
			q.Problem("Type o, c, a, d or e.")
		}
	}
}

// showCall prints the call an approval asks about.
func showCall(q *terminal.Question, in elicit.ApprovalInput) {
	tool := in.Tool
	if in.Agent != "" {
		tool += " (of " + in.Agent + ")"
	}
	if in.Description != "" {
		tool += " — " + in.Description
	}
	q.Printf("  Tool: %s\n", tool)
	if in.Summary != "" {
		q.Printf("  The call: %s\n", in.Summary)
	}
	if len(in.Effects) == 0 {
		q.Printf("  Does: only reads; it changes nothing\n")
	} else {
		does := make([]string, len(in.Effects))
		for i, e := range in.Effects {
			does[i] = words.Effect(e)
		}
		q.Printf("  Does: %s\n", strings.Join(does, ", "))
	}
	args := words.Args(in.Shown()) // not the arguments fixed, such as an idempotency key
	switch {
	case len(args) == 0:
		q.Printf("  Arguments: none\n")
	case len(args) == 1 && args[0].Name == "":
		q.Printf("  Arguments: %s\n", indentLines(args[0].Value))
	default:
		q.Printf("  Arguments:\n")
		for _, a := range args {
			q.Printf("    %s: %s\n", a.Name, indentLines(a.Value))
		}
	}
	if in.Reason != "" {
		q.Printf("  Why (the model says): “%s”\n", in.Reason)
	}
}

// indentLines indents the lines of a value after its first, to keep them
// under the argument they belong to.
func indentLines(v string) string {
	return strings.ReplaceAll(v, "\n", "\n      ")
}

// editArgs reads the arguments as one line of JSON, showing them as they
// stand (the call's own, or those typed before); Enter keeps them as they
// stand. The server checks that they fit the tool.
func editArgs(q *terminal.Question, in elicit.ApprovalInput, edited string) (string, error) {
	now := edited
	if now == "" {
		now = compactJSON(in.Shown())
	}
	q.Printf("  Now: %s\n", now)
	for {
		line, err := q.Line("Arguments as one line of JSON (Enter keeps them): ")
		if err != nil {
			return "", err
		}
		switch {
		case line == "":
			return edited, nil
		case !json.Valid([]byte(line)):
			q.Problem("That is not JSON; type the arguments as one line, such as %s.", now)
		default:
			return line, nil
		}
	}
}

// compactJSON is raw on one line, or raw as it is when it is not JSON.
func compactJSON(raw string) string {
	var v json.RawMessage
	if json.Unmarshal([]byte(raw), &v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return string(b)
}

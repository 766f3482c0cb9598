// Package replay says how each primitive call a turn makes is compared
// with its record (package durable looks it up): one description of each
// call, shared by the cores that run a turn (package chat) and the dry run
// that checks one without running anything (package deploycheck), so that
// both find the same divergences. It also keeps a turn's latest model call
// of each scope (Samples), against which the next one is recorded as what
// is new and compared on replay.
package replay

import (
	"bytes"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Elicit is question req (its ID set), asked again the same when its
// kind, message and input are.
func Elicit(req elicit.Request) durable.Call[elicit.Request] {
	return durable.Call[elicit.Request]{
		ID: req.ID, Kind: tree.ElicitRequest, Made: durable.DescribeElicit(req),
		Same: func(was elicit.Request) bool {
			return was.Kind == req.Kind && was.Message == req.Message && durable.SameJSON(was.Input, req.Input)
		},
	}
}

// Notify is progress report p as call id; its message must match.
func Notify(id string, p middleware.Progress) durable.Call[middleware.Progress] {
	return durable.Call[middleware.Progress]{
		ID: id, Kind: tree.Notify, Made: durable.DescribeNotify(p.Message),
		Same: func(was middleware.Progress) bool { return was.Message == p.Message },
	}
}

// Sample is the model call of req as call id, made after the calls
// ss holds; its request, rebuilt whole from the record j holds (see
// Samples), must match req byte for byte.
func Sample(ss *Samples, j durable.Journal, id string, req llm.Request) durable.Call[tree.SampleRecord] {
	p := ss.prior(id)
	return durable.Call[tree.SampleRecord]{
		ID: id, Kind: tree.Sample, Made: "a model call",
		Same: func(was tree.SampleRecord) bool { return sameRequest(j, p, was, req) },
	}
}

// Tool is tool call c as call id; the tool and its input must match.
// The input matches the record's, or its digest where the record keeps
// one instead (a rule said not to keep the arguments), or, where the user
// edited the arguments on the approval j holds, the arguments the call
// was asked with.
func Tool(j durable.Journal, id string, c agents.ToolCall) durable.Call[tree.ToolRecord] {
	return durable.Call[tree.ToolRecord]{
		ID: id, Kind: tree.ToolCall, Made: durable.DescribeTool(c.Agent, c.Tool),
		Same: func(was tree.ToolRecord) bool {
			if was.Agent != c.Agent || was.Tool != c.Tool {
				return false
			}
			if was.Digest != "" {
				return was.Digest == consent.Digest(c.Input) || consent.AskedWith(j, was.Approval, c.Input)
			}
			return durable.SameJSON(was.Input, c.Input) || consent.AskedWith(j, was.Approval, c.Input)
		},
	}
}

// State is the change rec of an agent's state as call id: the same state
// set to the same value.
func State(id string, rec tree.StateRecord) durable.Call[tree.StateRecord] {
	return durable.Call[tree.StateRecord]{
		ID: id, Kind: tree.StateChange, Made: fmt.Sprintf("a change of state %s of agent %s", rec.Name, rec.Agent),
		Same: func(was tree.StateRecord) bool {
			return was.Agent == rec.Agent && was.Name == rec.Name && durable.SameJSON(was.Value, rec.Value)
		},
	}
}

// Retry is a middleware's refusal n of a model answer as call id.
func Retry(id string, n primitive.RetryNote) durable.Call[primitive.RetryNote] {
	return durable.Call[primitive.RetryNote]{
		ID: id, Kind: tree.SampleRetry, Made: "a refused model answer",
		Same: func(was primitive.RetryNote) bool { return was == n },
	}
}

// Show is figure f shown as call id; the figure must match.
func Show(id string, f figure.Figure) durable.Call[figure.Figure] {
	return durable.Call[figure.Figure]{
		ID: id, Kind: tree.Figure, Made: describeFigure(f),
		Same: func(was figure.Figure) bool {
			now, then := tree.MustEncode(f), tree.MustEncode(was)
			return bytes.Equal(now, then) || durable.SameJSON(now, then)
		},
	}
}

// describeFigure words a figure for a NonDeterminismError.
func describeFigure(f figure.Figure) string {
	switch {
	case f.Table != nil:
		return fmt.Sprintf("show a table %q", f.Table.Title)
	case f.Chart != nil:
		return fmt.Sprintf("show a %s chart %q", f.Chart.Kind, f.Chart.Title)
	}
	return "show a figure"
}

// Compact is the call of the compaction middleware as call id: a summary,
// when the history was summarized there.
func Compact(id string) durable.Call[tree.SummaryRecord] {
	return durable.Call[tree.SummaryRecord]{ID: id, Kind: tree.Summary, Made: "a compaction"}
}

// Fork is the start of a block tried on a child branch as call id.
func Fork(id string, rec tree.ForkRecord) durable.Call[tree.ForkRecord] {
	return durable.Call[tree.ForkRecord]{
		ID: id, Kind: tree.Fork, Made: fmt.Sprintf("trying %q", rec.Label),
		Same: func(was tree.ForkRecord) bool { return was.Label == rec.Label },
	}
}

// ForkEnd is the decision on a tried block as call id: kept, or gone back
// from.
func ForkEnd(id string, rec tree.ForkEndRecord) durable.Call[tree.ForkEndRecord] {
	made := fmt.Sprintf("going back from trying %q", rec.Label)
	if rec.Forward {
		made = fmt.Sprintf("keeping what trying %q did", rec.Label)
	}
	return durable.Call[tree.ForkEndRecord]{
		ID: id, Kind: tree.ForkEnd, Made: made,
		Same: func(was tree.ForkEndRecord) bool { return was.Forward == rec.Forward && was.Label == rec.Label },
	}
}

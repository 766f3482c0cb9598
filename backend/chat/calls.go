package chat

import (
	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/consent"
	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/primitive"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// The calls a turn makes, as package durable compares them with the
// record: one description of each, for the cores that run a turn
// (primitives.go) and the replay that checks one without running anything
// (dryrun.go), so that both find the same divergences.

// elicitCall is question req (its ID set), asked again the same when its
// kind, message and input are.
func elicitCall(req elicit.Request) durable.Call[elicit.Request] {
	return durable.Call[elicit.Request]{
		ID: req.ID, Kind: tree.ElicitRequest, Made: durable.DescribeElicit(req),
		Same: func(was elicit.Request) bool {
			return was.Kind == req.Kind && was.Message == req.Message && durable.SameJSON(was.Input, req.Input)
		},
	}
}

// notifyCall is progress report p as call id; its message must match.
func notifyCall(id string, p primitive.Progress) durable.Call[primitive.Progress] {
	return durable.Call[primitive.Progress]{
		ID: id, Kind: tree.Notify, Made: durable.DescribeNotify(p.Message),
		Same: func(was primitive.Progress) bool { return was.Message == p.Message },
	}
}

// sampleCall is the model call of req as call id, made after the calls
// ss holds; its request, rebuilt whole from the record j holds (see
// samples.go), must match req byte for byte.
func sampleCall(ss *samples, j durable.Journal, id string, req llm.Request) durable.Call[tree.SampleRecord] {
	p := ss.prior(id)
	return durable.Call[tree.SampleRecord]{
		ID: id, Kind: tree.Sample, Made: "a model call",
		Same: func(was tree.SampleRecord) bool { return sameRequest(j, p, was, req) },
	}
}

// toolCall is tool call c as call id; the tool and its input must match.
// The input matches the record's, or its digest where the record keeps
// one instead (a rule said not to keep the arguments), or, where the user
// edited the arguments on the approval j holds, the arguments the call
// was asked with.
func toolCall(j durable.Journal, id string, c agents.ToolCall) durable.Call[tree.ToolRecord] {
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

// retryCall is a middleware's refusal n of a model answer as call id.
func retryCall(id string, n primitive.RetryNote) durable.Call[primitive.RetryNote] {
	return durable.Call[primitive.RetryNote]{
		ID: id, Kind: tree.SampleRetry, Made: "a refused model answer",
		Same: func(was primitive.RetryNote) bool { return was == n },
	}
}

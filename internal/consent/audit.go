package consent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/policy"
)

// Audit is the record of a call decided as cons, whose result was out and
// err, ending in outcome.
func Audit(cons Consent, out json.RawMessage, err error, outcome string) tree.ToolRecord {
	c, d := cons.Call, cons.Decision
	rec := tree.ToolRecord{Agent: c.Agent, Tool: c.Tool, Input: c.Input, Output: out, CallID: c.ModelCall,
		Decision: string(d.Action), DecidedBy: cons.By, Rule: d.Rule, Approval: cons.Approval, Outcome: outcome}
	if d.Redact {
		rec.Input, rec.Digest = nil, Digest(c.Input)
	}
	switch e, denied := errors.AsType[*agents.DeniedError](err); {
	case denied:
		rec.Error = e.Why
	case outcome == OutcomeCancelled && errors.Is(err, context.Canceled):
		rec.Error = "stopped by the user" // not the context's "context canceled"
	case err != nil:
		rec.Error = err.Error()
	}
	return rec
}

// Recorded is what a recorded call returns when it is replayed.
func Recorded(rec tree.ToolRecord) (json.RawMessage, error) {
	switch {
	case rec.Outcome == OutcomeDenied:
		return nil, &agents.DeniedError{Tool: rec.Tool, Why: rec.Error, Final: rec.Decision == string(policy.FinalDeny), Expired: rec.DecidedBy == ByExpired}
	case rec.Outcome == OutcomeCancelled:
		return nil, fmt.Errorf("the call of %s was cancelled", rec.Tool)
	case rec.Error != "":
		return nil, errors.New(rec.Error)
	}
	return rec.Output, nil
}

// Digest is what the record keeps of a call's arguments when a rule says
// not to keep them: "sha256:" and the hex digest of their JSON, written
// compactly with its keys sorted, so that the same arguments, however
// spaced, have the same digest.
func Digest(input json.RawMessage) string {
	canonical := []byte(input)
	var v any
	if json.Unmarshal(input, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// AskedWith reports whether j holds approval, an approval asked about a
// call with input: the call as the model made it, which the user edited.
func AskedWith(j durable.Journal, approval string, input json.RawMessage) bool {
	if approval == "" {
		return false
	}
	n, ok := j.Node(approval)
	if !ok {
		return false
	}
	req, err := tree.Decode[elicit.Request](n)
	if err != nil || req.Kind != elicit.Approve.Name {
		return false
	}
	var in elicit.ApprovalInput
	return json.Unmarshal(req.Input, &in) == nil && durable.SameJSON(json.RawMessage(in.Args), input)
}

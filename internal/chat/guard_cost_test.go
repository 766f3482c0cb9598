package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/always"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/policy"
)

// BenchmarkGuard measures what the permission policy adds to one tool call,
// the commit aside (it rides in the tool's own): the decision under 100
// rules of the program, the user's remembered choices looked up on a
// branch of 300 nodes holding 10 approvals and in the session's always
// rules, and the audit record built and encoded. The bound is
// 5 µs. A turn reads its branch's choices once, at its first call
// (first-call); its later calls read what was recorded since (call).
func BenchmarkGuard(b *testing.B) {
	b.Run("call", func(b *testing.B) { benchGuard(b, false) })
	b.Run("first-call", func(b *testing.B) { benchGuard(b, true) })
}

func benchGuard(b *testing.B, first bool) {
	rules := make([]policy.Rule, 100)
	for i := range rules {
		rules[i] = policy.Rule{Action: policy.Ask, Tool: fmt.Sprintf("flights/book-%d*", i)}
	}
	ctx := policy.Narrow(context.Background(), rules...)
	path := benchBranch(300, 10)
	var mu sync.Mutex // as the conversation's, which the branch is read under
	var ch consent.Choices
	var cache always.Cache
	kept := []always.Rule{{ID: 1, Agent: "notes", Tool: "forget_note"}}
	cache.Of(ctx, "me", func(context.Context, string) ([]always.Rule, error) { return kept, nil }) // kept from now on
	g := consent.Guard{Remembered: func(pc policy.Call) (policy.Decision, string, bool) {
		mu.Lock()
		if first {
			ch = consent.Choices{}
		}
		approval, ok := ch.Allowed(path, pc.Agent, pc.Tool)
		mu.Unlock()
		if ok {
			return policy.Decision{Action: policy.Allow, By: "remembered"}, approval, true
		}
		rs, _ := cache.Of(ctx, "me", nil)
		for _, r := range rs {
			if r.Agent == pc.Agent && r.Tool == pc.Tool {
				return policy.Decision{Action: policy.Allow, By: "remembered"}, "", true
			}
		}
		return policy.Decision{}, "", false
	}}
	call := agents.ToolCall{Agent: "stepper", Tool: "step", Input: json.RawMessage(`{"n":7}`),
		Info: agents.ToolInfo{Agent: "stepper", Name: "step", Description: "Take a step", Input: elicit.MustSchemaFor[struct {
			N int `json:"n"`
		}]()}}
	out := json.RawMessage(`8`)
	for b.Loop() {
		cons, err := g.Decide(ctx, "7-3", call)
		if err != nil || cons.Denied != nil || cons.Decision.Action != policy.Allow {
			b.Fatalf("decided %+v, %v; want an allow", cons, err)
		}
		rec := consent.Audit(cons, out, nil, consent.OutcomeOK)
		rec.Started, rec.Duration = 1, 1
		tree.MustEncode(rec)
	}
}

// benchBranch is a branch of n nodes: turns of a message, a model call
// and a tool call, approvals of other tools among them, each answered
// "Allow for this conversation".
func benchBranch(n, approvals int) tree.Path {
	var path tree.Path
	for i := 0; len(path) < n; i++ {
		ref := fmt.Sprintf("%d-1", i)
		path = append(path, tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "go"})},
			tree.Node{Kind: tree.Sample, Ref: ref, Payload: json.RawMessage(`{"request":{},"response":{"content":"ok"}}`)})
		if i < approvals {
			req, _ := elicit.Approve.Request("Allow?", elicit.ApprovalInput{Agent: "notes", Tool: fmt.Sprintf("tool-%d", i), Args: "{}"})
			req.ID = fmt.Sprintf("%d-2.1", i)
			path = append(path, tree.Node{Kind: tree.ElicitRequest, Ref: req.ID, Payload: tree.MustEncode(req)},
				tree.Node{Kind: tree.ElicitResponse, Ref: req.ID, Payload: tree.MustEncode(elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"choice":"conversation"}`)})})
		}
		path = append(path, tree.Node{Kind: tree.ToolCall, Ref: fmt.Sprintf("%d-2", i), Payload: tree.MustEncode(tree.ToolRecord{Agent: "stepper", Tool: "step", Input: json.RawMessage(`{}`)})})
	}
	return path
}

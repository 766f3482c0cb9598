package consent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

type seat struct {
	Flight string `json:"flight"`
	Seat   string `json:"seat"`
	Key    string `json:"key"`
}

// A tool that says how a person names it, words its calls and fixes an
// argument is asked about in those words: the approval asks by the
// tool's title, shows the call as the tool words it, and keeps the fixed
// argument out of what the user sees; an edit of the others runs with the
// fixed one as the call had it, and an edit that changes it is refused.
func TestAnApprovalAsksInTheToolsWords(t *testing.T) {
	flights := agents.New("flight", "Books flights")
	book := agents.NewTool(flights, "book", "Book a seat on a flight", func(context.Context, seat) (string, error) { return "", nil }).
		Does(policy.Spends).Titled("Book a seat").Fixes("key").
		Describes(func(_ context.Context, s seat) (string, error) {
			return "Seat " + s.Seat + " on SK4035, Oslo → Tokyo, €129", nil
		})
	call := agents.ToolCall{Agent: "flight", Tool: "book", Input: json.RawMessage(`{"flight":"SK4035-2026-12-04","seat":"3A","key":"k-1"}`), Info: book.Info()}

	var asked elicit.Request
	answer := `{"flight":"SK4035-2026-12-04","seat":"14C"}`
	ctx := durable.WithScope(policy.Program(t.Context()), "7-1")
	ctx = primitive.Provide(ctx, middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
		asked = req
		content, _ := json.Marshal(elicit.Approval{Choice: elicit.AllowOnce, Args: answer})
		return elicit.Response{Action: elicit.Accept, Content: content}, nil
	})
	cons, err := consent.Guard{}.Decide(ctx, "7-1", call)
	if err != nil {
		t.Fatal(err)
	}
	var in elicit.ApprovalInput
	if err := json.Unmarshal(asked.Input, &in); err != nil {
		t.Fatal(err)
	}
	if asked.Message != "Allow “Book a seat”?" || in.Summary != "Seat 3A on SK4035, Oslo → Tokyo, €129" || strings.Contains(in.Shown(), "key") {
		t.Errorf("the approval asked %q, the call %q, showing %s; want the tool's title, its words, no key", asked.Message, in.Summary, in.Shown())
	}
	if want := `{"flight":"SK4035-2026-12-04","key":"k-1","seat":"14C"}`; cons.Denied != nil || !durable.SameJSON(cons.Call.Input, json.RawMessage(want)) {
		t.Errorf("the edit runs with %s (denied %v), want %s: the key as the call had it", cons.Call.Input, cons.Denied, want)
	}

	// An edit of the key is refused as an answer, before anything runs.
	changed, _ := json.Marshal(elicit.Approval{Choice: elicit.AllowOnce, Args: `{"flight":"SK4035-2026-12-04","seat":"3A","key":"mine"}`})
	if err := elicit.Approve.Verify(asked, elicit.Response{Action: elicit.Accept, Content: changed}); err == nil || !strings.Contains(err.Error(), "cannot change key") {
		t.Errorf("an edit of the fixed key was answered %v; want it refused", err)
	}
}

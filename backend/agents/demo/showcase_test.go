package demo_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/agents/demo"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
)

// The showcase's model picks the demo the user's words ask for: with the
// offline model, the words people type in the demos reach the right
// question.
func TestTheOfflineModelPicksTheShowcaseDemoTheWordsAskFor(t *testing.T) {
	tests := []struct {
		say, kind, message string
		input              string // a part of the request's input, when it matters
	}{
		{"where am i", "location", "May I see where you are?", `"accuracy":"low"`},
		{"my precise location", "location", "May I see where you are?", `"accuracy":"high"`},
		{"paste", "clipboard-read", "May I read your clipboard?", ""},
		{"copy", "clipboard-write", "Here is your booking code. Copy it to your clipboard?", ""},
		{"confirm", "confirm", "Delete all your drafts?", ""},
		{"pick a colour", "choice", "Which colour should the theme be?", ""},
		{"book a flight", "flight", "", ""},
		{"profile", elicit.FormKind, "Tell me about yourself:", ""},
		{"together", elicit.FormKind, "How much luggage are you bringing?", ""},
		{"hello there", "choice", "What would you like to try?", ""},
	}
	model := offline.New()
	for _, tc := range tests {
		t.Run(tc.say, func(t *testing.T) {
			var mu sync.Mutex
			var asked []elicit.Request
			ctx := runtime.SampleAPI.Provide(t.Context(), func(ctx context.Context, req llm.Request) (llm.Response, error) {
				return model.Complete(ctx, req, nil)
			})
			ctx = runtime.ElicitAPI.Provide(ctx, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req)
				return elicit.Response{Action: elicit.Cancel}, nil
			})
			reply, err := demo.Showcase().Turn(ctx, tc.say)
			if err != nil {
				t.Fatal(err)
			}
			// Questions asked together come in either order.
			i := slices.IndexFunc(asked, func(r elicit.Request) bool {
				return r.Kind == tc.kind && (tc.message == "" || r.Message == tc.message)
			})
			if i < 0 {
				t.Fatalf("asked %+v, want a %s question %q", asked, tc.kind, tc.message)
			}
			if tc.input != "" && !strings.Contains(string(asked[i].Input), tc.input) {
				t.Fatalf("the request's input %s lacks %s", asked[i].Input, tc.input)
			}
			if reply == "" {
				t.Fatal("no reply")
			}
		})
	}
}

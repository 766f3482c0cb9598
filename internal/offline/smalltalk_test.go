package offline_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/llm"
)

// tripTool plans trips, as a travel agent's only tool would.
var tripTool = llm.ToolSpec{Name: "plan-trip", Description: "Ask the user for trip details and draft a plan",
	Parameters: json.RawMessage(`{"type":"object","properties":{"request":{"type":"string","description":"What the user said they want"}},"required":["request"]}`)}

// Small talk is answered as small talk, in words, by any agent: not as a
// request for a tool, even when the agent has its model act at once.
func TestSmallTalkIsAnsweredInWords(t *testing.T) {
	concierge := system("You are a travel concierge. Every message is a trip to plan: call plan-trip with what the user asked for.")
	tests := []struct {
		say  string
		want string // the reply, or a part of it
	}{
		{"Are we there yet?", "Not quite yet — but we're getting there! What can I do for you?"},
		{"are we there yet", "Not quite yet"},
		{"Hi", "Hello! I'm an offline travel concierge. What can I do for you?"},
		{"Hello there!", "Hello! I'm an offline travel concierge."},
		{"Good morning", "Hello!"},
		{"hey 👋", "Hello!"},
		{"Thanks!", "You're welcome! Anything else I can do for you?"},
		{"Thank you so much", "You're welcome!"},
		{"Thanks for planning my trip!", "You're welcome!"},
		{"Thank you so much for the lovely plan", "You're welcome!"},
		{"Thanks, concierge", "You're welcome!"},
		{"How are you?", "I'm well, thank you for asking! I'm an offline travel concierge, always ready. What can I do for you?"},
		{"Hi, how are you doing?", "I'm well, thank you for asking!"},
		{"what’s up", "I'm well"},
		{"Tell me a joke", ""}, // a joke: which one, TestSmallTalkWithoutTools
		{"ok", "Glad to hear it! Just say when you'd like something else."},
		{"Okay, cool.", "Glad to hear it!"},
		{"cool", "Glad to hear it!"},
		{"Nice one, thanks a lot!", "You're welcome!"},
		{"Hi! How are you? Thanks for the plan", "I'm well"},
		{"Bye!", "Goodbye! Come back any time."},
		{"Who are you?", "I'm an offline travel concierge. These are the tools I can use for you:\n" +
			"- plan-trip: Ask the user for trip details and draft a plan\n- get_weather: Current weather and forecast for a city"},
		{"What can you do?", "- plan-trip: Ask the user for trip details and draft a plan"},
		{"Hi! What can you do?", "These are the tools I can use for you:"},
	}
	for _, choice := range []string{llm.ToolRequired, llm.ToolAuto} {
		for _, tt := range tests {
			t.Run(choice+"/"+tt.say, func(t *testing.T) {
				resp := ask(t, llm.Request{Tools: []llm.ToolSpec{tripTool, weatherTool}, ToolChoice: choice,
					Messages: []llm.Message{concierge, user(tt.say)}})
				if len(resp.ToolCalls) > 0 || resp.FinishReason != "stop" {
					t.Fatalf("got calls %q (%s), want a reply in words", calls(resp), resp.FinishReason)
				}
				if resp.Content == "" || !strings.Contains(resp.Content, tt.want) {
					t.Errorf("got  %q\nwant it to contain %q", resp.Content, tt.want)
				}
			})
		}
	}
}

// Small talk without tools and without a role gets the offline model's
// own small talk; a conversation always gets the same joke, and another
// joke when it asks again.
func TestSmallTalkWithoutTools(t *testing.T) {
	for say, want := range map[string]string{
		"Hey there":         "Hello! I'm the offline demo model. What would you like to talk about?",
		"What can you do?":  "I'm the offline demo model: I reflect back what you write, and summarize the conversation when you ask.",
		"Are we there yet?": "Not quite yet — but we're getting there! What would you like to talk about?",
	} {
		if got := complete(t, offline.New(), user(say)).Content; got != want {
			t.Errorf("%q: got %q, want %q", say, got, want)
		}
	}
	joke := complete(t, offline.New(), user("Tell me a joke")).Content
	for range 5 {
		if again := complete(t, offline.New(), user("Tell me a joke")).Content; again != joke {
			t.Fatalf("the same conversation got %q, then %q", joke, again)
		}
	}
	next := complete(t, offline.New(), user("Tell me a joke"), llm.Message{Role: llm.Assistant, Content: joke}, user("Another joke!")).Content
	if next == joke || next == "" {
		t.Errorf("another joke got %q, want one not told yet", next)
	}
}

// A request is a request, whatever friendly words come with it: it calls
// the tool that fits it, and the first tool when one must be called.
func TestRequestsAreNotSmallTalk(t *testing.T) {
	tools := []llm.ToolSpec{tripTool, weatherTool, flightsTool}
	tests := []struct {
		say, choice, want string
	}{
		{"Plan a trip to Lisbon for two", llm.ToolAuto, "plan-trip"},
		{"Hi! Plan a trip to Kyoto", llm.ToolAuto, "plan-trip"},
		{"Plan a family trip to Rome", llm.ToolAuto, "plan-trip"},
		{"Thanks. Now plan a trip to Oslo", llm.ToolAuto, "plan-trip"},
		{"Thanks for the plan and now one to Oslo", llm.ToolRequired, "plan-trip"},
		{"Book a flight to Lisbon next Friday", llm.ToolAuto, "search_flights"},
		{"Hello, what's the weather in Lisbon?", llm.ToolAuto, "get_weather"},
		{"Tell me a joke about the weather", llm.ToolAuto, "get_weather"},
		{"A weekend away", llm.ToolRequired, "plan-trip"},
		{"Somewhere warm", llm.ToolRequired, "plan-trip"},
		{"Are we there yet in Lisbon?", llm.ToolRequired, "plan-trip"},
		{"ok, Lisbon then", llm.ToolRequired, "plan-trip"},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			resp := ask(t, llm.Request{Tools: tools, ToolChoice: tt.choice, Messages: []llm.Message{user(tt.say)}})
			if len(resp.ToolCalls) == 0 || resp.ToolCalls[0].Name != tt.want {
				t.Errorf("got calls %q and words %q, want a call of %s", calls(resp), resp.Content, tt.want)
			}
		})
	}
	t.Run("a tool the choice names is called for small talk too", func(t *testing.T) {
		resp := ask(t, llm.Request{Tools: tools, ToolChoice: "get_weather", Messages: []llm.Message{user("Thanks!")}})
		if got, want := calls(resp), `get_weather {"city":"unknown"}`; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

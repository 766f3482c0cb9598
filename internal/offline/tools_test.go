package offline_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/llm"
)

// The tools an agent might offer: weather, flights, the user's location and
// a search, in that order.
var (
	weatherTool = llm.ToolSpec{Name: "get_weather", Description: "Current weather and forecast for a city",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},` +
			`"units":{"type":"string","enum":["celsius","fahrenheit"]},"date":{"type":"string","format":"date"}},"required":["city"]}`)}
	flightsTool = llm.ToolSpec{Name: "search_flights", Description: "Find flights between two cities",
		Parameters: json.RawMessage(`{"type":"object","x-order":["origin","destination","date","travellers","cabin","direct"],"properties":{` +
			`"origin":{"type":"string"},"destination":{"type":"string"},"date":{"type":"string","format":"date"},` +
			`"travellers":{"type":"integer","minimum":1,"maximum":9},"cabin":{"type":"string","enum":["economy","premium_economy","business"]},` +
			`"direct":{"type":"boolean"}},"required":["origin","destination","travellers"]}`)}
	locationTool = llm.ToolSpec{Name: "get_location", Description: "The user's current location",
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
	searchTool = llm.ToolSpec{Name: "search_notes", Description: "Search the user's notes",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}
	allTools = []llm.ToolSpec{weatherTool, flightsTool, locationTool, searchTool}
)

const today = "Today is 2025-03-05 (a Wednesday)."

func ask(t *testing.T, req llm.Request) llm.Response {
	t.Helper()
	resp, err := offline.New().Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return resp
}

// calls writes the response's tool calls as "name args" lines.
func calls(resp llm.Response) string {
	var lines []string
	for _, c := range resp.ToolCalls {
		lines = append(lines, c.Name+" "+c.Arguments)
	}
	return strings.Join(lines, "\n")
}

func TestToolPicking(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"What is the weather in Oslo?", "get_weather"},
		{"Will it rain? Show me the forecast", "get_weather"},
		{"Find me flights to Rome", "search_flights"},
		{"I need a flight in business class", "search_flights"},
		{"What's my current location?", "get_location"},
		{"search my notes for the recipe", "search_notes"},
		{"tell me a joke", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			resp := ask(t, llm.Request{Tools: allTools, Messages: []llm.Message{user(tt.text)}})
			got := ""
			if len(resp.ToolCalls) > 0 {
				got = resp.ToolCalls[0].Name
			}
			if got != tt.want {
				t.Errorf("got tool %q, want %q", got, tt.want)
			}
			wantFinish := "tool_calls"
			if tt.want == "" {
				wantFinish = "stop"
			}
			if resp.FinishReason != wantFinish {
				t.Errorf("got finish reason %q, want %q", resp.FinishReason, wantFinish)
			}
		})
	}
	t.Run("ties go to the tool offered first", func(t *testing.T) {
		a := llm.ToolSpec{Name: "lookup_a", Description: "Look up a thing"}
		b := llm.ToolSpec{Name: "lookup_b", Description: "Look up a thing"}
		for _, tools := range [][]llm.ToolSpec{{a, b}, {b, a}} {
			resp := ask(t, llm.Request{Tools: tools, Messages: []llm.Message{user("lookup the thing")}})
			if got, want := calls(resp), tools[0].Name+" {}"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}
	})
}

// "Here" is where the user is: of two weather tools, the one for a named
// place and the one for where the user is, "here" picks the second.
func TestToolPickingHere(t *testing.T) {
	named := llm.ToolSpec{Name: "getWeather", Description: "Tell the weather today in a named city or place"}
	local := llm.ToolSpec{Name: "getLocalWeather", Description: "Tell the weather here, where the user is now"}
	for text, want := range map[string]string{"What's the weather here?": "getLocalWeather {}", "What's the weather in Oslo?": `getWeather {}`} {
		if got := calls(ask(t, llm.Request{Tools: []llm.ToolSpec{named, local}, Messages: []llm.Message{user(text)}})); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

// A follow-up ("And in Osaka?") names no tool: the tool that answered the
// message before answers it, with the follow-up's arguments.
func TestToolPickingForAFollowUp(t *testing.T) {
	before := []llm.Message{user("What is the weather in Tokyo?"), {Role: llm.Assistant, Content: "Light rain in Tokyo."}}
	tests := []struct {
		text, want string
	}{
		{"And in Osaka?", `get_weather {"city":"Osaka"}`},
		{"What about Oslo?", `get_weather {"city":"Oslo"}`},
		{"And in Osaka? What about Oslo?", `get_weather {"city":"Oslo"}`}, // follows up a follow-up
		{"Osaka?", ""},             // not worded as a follow-up
		{"and tell me a joke", ""}, // asked of nothing before
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			msgs := append([]llm.Message(nil), before...)
			for _, q := range strings.SplitAfter(tt.text, "? ") { // each a message of its own
				msgs = append(msgs, user(strings.TrimSpace(q)))
			}
			if tt.want == "" && strings.HasPrefix(tt.text, "and") {
				msgs = []llm.Message{user(tt.text)}
			}
			if got := calls(ask(t, llm.Request{Tools: allTools, Messages: msgs})); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolArguments(t *testing.T) {
	tests := []struct {
		name   string
		tool   llm.ToolSpec
		system string
		text   string
		want   string
	}{
		{"place after in", weatherTool, "", "What is the weather in Oslo?",
			`get_weather {"city":"Oslo"}`},
		{"enum, case-insensitive", weatherTool, "", "Weather in Bergen in Fahrenheit please",
			`get_weather {"city":"Bergen","units":"fahrenheit"}`},
		{"date relative to today", weatherTool, today, "What's the weather in Paris tomorrow?",
			`get_weather {"city":"Paris","date":"2025-03-06"}`},
		{"relative date left out without today", weatherTool, "", "What's the weather in Paris tomorrow?",
			`get_weather {"city":"Paris"}`},
		{"ISO date needs no today", weatherTool, "", "weather in Paris on 2025-04-01",
			`get_weather {"city":"Paris","date":"2025-04-01"}`},
		{"places after from and to, number by name, next weekday", flightsTool, today,
			"Find a flight from Oslo to New York next Friday for 3 travellers",
			`search_flights {"date":"2025-03-07","destination":"New York","origin":"Oslo","travellers":3}`},
		{"day and month, number word, enum phrase, boolean", flightsTool, today,
			"Book flights from Rio de Janeiro to Lisbon on 12 March, two travellers, premium economy, direct please",
			`search_flights {"cabin":"premium_economy","date":"2025-03-12","destination":"Lisbon","direct":true,"origin":"Rio de Janeiro","travellers":2}`},
		{"negated boolean, first number, bounds", flightsTool, "",
			"flights to Tokyo for 12 people in economy, no direct",
			`search_flights {"cabin":"economy","destination":"Tokyo","direct":false,"origin":"unknown","travellers":9}`},
		{"a day already past is next year's", flightsTool, today, "fly to Oslo on March 1st",
			`search_flights {"date":"2026-03-01","destination":"Oslo","origin":"unknown","travellers":1}`},
		{"quoted phrase", searchTool, "", `search my notes for "banana bread"`,
			`search_notes {"query":"banana bread"}`},
		{"whole message", searchTool, "", "search my notes for the recipe.",
			`search_notes {"query":"search my notes for the recipe"}`},
		{"no arguments", locationTool, "", "Where is my current location?",
			`get_location {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []llm.Message{user(tt.text)}
			if tt.system != "" {
				msgs = append([]llm.Message{system(tt.system)}, msgs...)
			}
			resp := ask(t, llm.Request{Tools: []llm.ToolSpec{locationTool, tt.tool}, ToolChoice: tt.tool.Name, Messages: msgs})
			if got := calls(resp); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			for _, c := range resp.ToolCalls {
				validate(t, tt.tool.Parameters, c.Arguments)
			}
		})
	}
}

func TestToolCallsForAList(t *testing.T) {
	resp := ask(t, llm.Request{Tools: allTools, Messages: []llm.Message{user("What's the weather in Oslo and in Bergen, in celsius?")}})
	got := calls(resp)
	want := `get_weather {"city":"Oslo","units":"celsius"}` + "\n" + `get_weather {"city":"Bergen","units":"celsius"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if ids := [2]string{resp.ToolCalls[0].ID, resp.ToolCalls[1].ID}; ids != [2]string{"call_1", "call_2"} {
		t.Errorf("got ids %q, want call_1 and call_2", ids)
	}
}

func TestToolChoice(t *testing.T) {
	joke := []llm.Message{user("tell me a joke about the weather")}
	tests := []struct {
		name, choice string
		msgs         []llm.Message
		want         string // the calls, or "text"
	}{
		{"auto", llm.ToolAuto, joke, `get_weather {"city":"unknown"}`},
		{"default is auto", "", []llm.Message{user("tell me a joke")}, "text"},
		{"none", llm.ToolNone, joke, "text"},
		{"required calls the best tool", llm.ToolRequired, []llm.Message{user("search for flights")}, `search_flights {"destination":"unknown","origin":"unknown","travellers":1}`},
		{"required calls the first tool when none matches", llm.ToolRequired, []llm.Message{user("tell me about the stars")}, `get_weather {"city":"unknown"}`},
		{"named", "get_location", joke, "get_location {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ask(t, llm.Request{Tools: allTools, ToolChoice: tt.choice, Messages: tt.msgs})
			got := calls(resp)
			if got == "" && resp.Content != "" && resp.FinishReason == "stop" {
				got = "text"
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("naming no offered tool", func(t *testing.T) {
		_, err := offline.New().Complete(context.Background(), llm.Request{Tools: allTools, ToolChoice: "book_hotel", Messages: joke}, nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Retryable || e.Provider != "offline" {
			t.Errorf("got error %v, want a non-retryable *llm.Error from offline", err)
		}
	})
}

func TestToolResults(t *testing.T) {
	msgs := []llm.Message{
		system("You are a weather assistant."),
		user("weather in Oslo and in Bergen"),
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`},
			{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Bergen"}`},
		}},
		{Role: llm.Tool, ToolCallID: "call_1", Content: `{"city":"Oslo","temp_c":12,"wind":{"speed":5,"from":"N"},"alerts":[]}`},
		{Role: llm.Tool, ToolCallID: "call_2", Content: "Rain all day"},
	}
	want := "Here is what the tools returned:\n" +
		"- get_weather: city: Oslo, temp_c: 12, wind: (speed: 5, from: N), alerts: none\n" +
		"- get_weather: Rain all day\n" +
		"I'm an offline weather assistant, so I only pass on what the tools said."
	for _, choice := range []string{llm.ToolAuto, llm.ToolRequired, "get_weather"} {
		t.Run(choice, func(t *testing.T) {
			resp := ask(t, llm.Request{Tools: allTools, ToolChoice: choice, Messages: msgs})
			if len(resp.ToolCalls) > 0 || resp.FinishReason != "stop" {
				t.Errorf("got calls %q (%s), want text", calls(resp), resp.FinishReason)
			}
			if resp.Content != want {
				t.Errorf("got  %q\nwant %q", resp.Content, want)
			}
		})
	}
	t.Run("a new user message calls again", func(t *testing.T) {
		more := append(append([]llm.Message{}, msgs...), llm.Message{Role: llm.Assistant, Content: "It is 12°C in Oslo."}, user("and in Tromsø?"))
		resp := ask(t, llm.Request{Tools: allTools, ToolChoice: "get_weather", Messages: more})
		if got, want := calls(resp), `get_weather {"city":"Tromsø"}`; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := resp.ToolCalls[0].ID, "call_3"; got != want {
			t.Errorf("got id %q, want %q: ids go on counting the conversation's calls", got, want)
		}
	})
}

// TestAgentLoop runs the loop an agent runs: call the model, run the tools
// it calls, send back their results, until it answers in text.
func TestAgentLoop(t *testing.T) {
	run := map[string]func(args map[string]any) string{
		"get_weather":    func(a map[string]any) string { return `{"city":"` + a["city"].(string) + `","sky":"sunny"}` },
		"search_flights": func(map[string]any) string { return `{"flights":0}` },
	}
	msgs := []llm.Message{system(today), user("What is the weather in Lisbon tomorrow?")}
	var steps []string
	for range 5 {
		var deltas []string
		resp, err := offline.New().Complete(context.Background(), llm.Request{Tools: allTools, Messages: msgs}, func(d string) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got := [2]string{resp.Provider, resp.Model}; got != [2]string{"offline", offline.Model} {
			t.Errorf("got provider and model %q, want the offline model", got)
		}
		if len(resp.ToolCalls) == 0 {
			if got := strings.Join(deltas, ""); got != resp.Content {
				t.Errorf("streamed %q, want %q", got, resp.Content)
			}
			steps = append(steps, "text: "+resp.Content)
			break
		}
		if len(deltas) > 0 {
			t.Errorf("got deltas %q for a tool call, want none", deltas)
		}
		msgs = append(msgs, llm.Message{Role: llm.Assistant, ToolCalls: resp.ToolCalls})
		for _, c := range resp.ToolCalls {
			var args map[string]any
			if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
				t.Fatalf("arguments %q: %v", c.Arguments, err)
			}
			steps = append(steps, "call: "+c.Name+" "+c.Arguments)
			msgs = append(msgs, llm.Message{Role: llm.Tool, ToolCallID: c.ID, Content: run[c.Name](args)})
		}
	}
	want := []string{
		`call: get_weather {"city":"Lisbon","date":"2025-03-06"}`,
		"text: Here is what the tools returned:\n- get_weather: city: Lisbon, sky: sunny\n" +
			"I'm the offline demo model, so I only pass on what the tools said.",
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("got  %q\nwant %q", steps, want)
	}
}

func TestToolsDeterministic(t *testing.T) {
	reqs := []llm.Request{
		{Tools: allTools, Messages: []llm.Message{system(today), user("Flights from Oslo to Rome and Paris next Friday for 2 travellers")}},
		{Tools: allTools, Messages: []llm.Message{user("weather in Oslo, Bergen and Trondheim")}},
	}
	for _, req := range reqs {
		first := ask(t, req)
		for i := range 20 {
			if got := ask(t, req); !reflect.DeepEqual(got, first) {
				t.Fatalf("run %d: got %+v, want %+v", i, got, first)
			}
		}
	}
}

func TestToolPickingRequests(t *testing.T) {
	summarizer := llm.ToolSpec{Name: "summarize_document", Description: "Summarize a document"}
	resp := ask(t, llm.Request{Tools: []llm.ToolSpec{weatherTool, summarizer}, Messages: []llm.Message{user("Please summarize the document")}})
	if got, want := calls(resp), "summarize_document {}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

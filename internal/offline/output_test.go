package offline_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
)

// validate fails t unless value is valid for schema by the validator that
// checks tool inputs and forms.
func validate(t *testing.T, schema json.RawMessage, value string) {
	t.Helper()
	var s elicit.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	if errs := s.Validate(json.RawMessage(value)); len(errs) > 0 {
		t.Errorf("%s is not valid for %s: %v", value, schema, errs)
	}
}

func TestOutputSchema(t *testing.T) {
	tests := []struct {
		name, schema string
		msgs         []llm.Message
		want         string
	}{
		{"object with required fields and defaults",
			`{"type":"object","properties":{"destination":{"type":"string"},"nights":{"type":"integer","minimum":1},` +
				`"hotel":{"type":"boolean"},"budget":{"type":"number"},"note":{"type":"string"}},"required":["destination","nights","hotel","budget"]}`,
			[]llm.Message{user(`A trip to Lisbon for 4 nights, note "window seat"`)},
			`{"budget":0,"destination":"Lisbon","hotel":false,"nights":4,"note":"window seat"}`},
		{"enums",
			`{"type":"object","properties":{"cabin":{"type":"string","enum":["economy","business"]},"mood":{"type":"string","enum":["happy","sad"]}},"required":["cabin","mood"]}`,
			[]llm.Message{user("Business class, I'm feeling SAD")},
			`{"cabin":"business","mood":"sad"}`},
		{"enum not mentioned takes the first",
			`{"type":"object","properties":{"cabin":{"type":"string","enum":["economy","business"]}},"required":["cabin"]}`,
			[]llm.Message{user("anything")},
			`{"cabin":"economy"}`},
		{"arrays",
			`{"type":"object","properties":{"cities":{"type":"array","items":{"type":"string"}},` +
				`"extras":{"type":"array","items":{"type":"string","enum":["wifi","meals","spa"]}},"tags":{"type":"array","items":{"type":"string"},"minItems":2}},"required":["cities","extras","tags"]}`,
			[]llm.Message{user("A tour in Oslo, Bergen and in Trondheim; I want meals and wifi")},
			`{"cities":["Oslo","Bergen","Trondheim"],"extras":["meals","wifi"],"tags":["Oslo","Bergen"]}`},
		{"nested objects and formats",
			`{"type":"object","x-order":["when","contact","hotel"],"properties":{"when":{"type":"string","format":"date"},"contact":{"type":"string","format":"email"},` +
				`"created":{"type":"string","format":"date-time"},"hotel":{"type":"object","properties":{"stars":{"type":"integer","minimum":1,"maximum":5},"breakfast":{"type":"boolean"},"city":{"type":"string"}},"required":["stars","breakfast","city"]}},"required":["when","contact","created","hotel"]}`,
			[]llm.Message{system(today), user("Next Monday, a 4 stars hotel in Porto without breakfast; write to ana@example.com")},
			`{"contact":"ana@example.com","created":"2000-01-01T00:00:00Z","hotel":{"breakfast":false,"city":"Porto","stars":4},"when":"2025-03-10"}`},
		{"later turns count too",
			`{"type":"object","properties":{"origin":{"type":"string"},"destination":{"type":"string"}},"required":["origin","destination"]}`,
			[]llm.Message{user("I leave from Madrid"), {Role: llm.Assistant, Content: "Where to?"}, user("to Athens")},
			`{"destination":"Athens","origin":"Madrid"}`},
		{"an optional field the words do not give is left out",
			`{"type":"object","properties":{"origin":{"type":"string"},"destination":{"type":"string"}},"required":["destination"]}`,
			[]llm.Message{user("A flight to Tokyo next Friday")},
			`{"destination":"Tokyo"}`},
		{"an optional field the words give is filled",
			`{"type":"object","properties":{"origin":{"type":"string"},"destination":{"type":"string"}},"required":["destination"]}`,
			[]llm.Message{user("A flight from Oslo to Tokyo next Friday")},
			`{"destination":"Tokyo","origin":"Oslo"}`},
		{"not an object",
			`{"type":"array","items":{"type":"integer"},"minItems":1}`,
			[]llm.Message{user("pick 7")},
			`[7]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ask(t, llm.Request{Messages: tt.msgs, Output: &llm.OutputSchema{Name: "out", Schema: json.RawMessage(tt.schema)}})
			if resp.Content != tt.want {
				t.Errorf("got  %s\nwant %s", resp.Content, tt.want)
			}
			validate(t, json.RawMessage(tt.schema), resp.Content)
		})
	}
}

func TestOutputTakesPrecedence(t *testing.T) {
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	t.Run("over a JSON system prompt", func(t *testing.T) {
		resp := ask(t, llm.Request{
			Messages: []llm.Message{system(`Reply in JSON like {"reply": "..."}`), user("Weather in Oslo")},
			Output:   &llm.OutputSchema{Name: "place", Schema: json.RawMessage(schema)},
		})
		if got, want := resp.Content, `{"city":"Oslo"}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("over tool results", func(t *testing.T) {
		resp := ask(t, llm.Request{
			Messages: []llm.Message{user("Weather in Oslo"), {Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: "{}"}}},
				{Role: llm.Tool, ToolCallID: "call_1", Content: "sunny"}},
			Tools:  allTools,
			Output: &llm.OutputSchema{Name: "place", Schema: json.RawMessage(schema)},
		})
		if got, want := resp.Content, `{"city":"Oslo"}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
}

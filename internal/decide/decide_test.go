package decide

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
)

func TestTheRuleDecidesWhatTypedTextIs(t *testing.T) {
	trip := elicit.Request{ID: "1-2", Message: "Your trip", Actions: []elicit.Action{elicit.Accept, elicit.Other},
		Schema: &elicit.Schema{Type: "object", Properties: map[string]*elicit.Schema{
			"destination": {Type: "string", Title: "Destination"},
			"travellers":  {Type: "integer", Title: "Travellers"},
		}}}
	seat := elicit.Request{ID: "1-5", Message: "Pick a seat", Actions: []elicit.Action{elicit.Accept, elicit.Other},
		Schema: &elicit.Schema{Type: "object", Properties: map[string]*elicit.Schema{
			"seat": {Type: "string", Title: "Seat", Enum: []string{"window", "aisle"}},
		}}}
	formOnly := seat
	formOnly.Actions = []elicit.Action{elicit.Accept}
	tests := []struct {
		name   string
		waits  elicit.Request
		text   string
		choice string
		change string
	}{
		{"names a field of the waiting question", trip, "make it 3 travellers", Answer, ""},
		{"names an option of the waiting question", seat, "the window please", Answer, ""},
		{"names nothing asked", seat, "what's the weather in Oslo?", Side, ""},
		{"changes an earlier answer", seat, "actually change the destination to Osaka", Change, "1-2"},
		{"a change of nothing asked is a side question", seat, "actually, what time is it?", Side, ""},
		{"an earlier field without a word of change is a side question", seat, "how far is the destination?", Side, ""},
		{"a question that takes no words", formOnly, "window", Side, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Asked{Waits: tt.waits}
			if tt.waits.ID != trip.ID {
				q.Earlier = []elicit.Request{trip}
			}
			d := ByRule(q, tt.text)
			if d.Choice != tt.choice || d.Change != tt.change || d.By != "rule" || d.Waited != tt.waits.ID || d.Text != tt.text || d.Reason == "" {
				t.Errorf("ByRule(%q) = %+v, want %s %s", tt.text, d, tt.choice, tt.change)
			}
		})
	}
}

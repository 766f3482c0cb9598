package sampling_test

import (
	"errors"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/turn"
)

func TestRepair(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changed        bool
	}{
		{"valid JSON is left alone", ` {"a": 1} `, ` {"a": 1} `, false},
		{"a valid scalar is left alone", `"just text"`, `"just text"`, false},
		{"a code fence", "```json\n{\"a\": 1}\n```", `{"a": 1}`, true},
		{"a fence without a language", "Here:\n```\n[1, 2]\n```\nDone.", `[1, 2]`, true},
		{"prose around the value", `Sure! Here's the trip: {"to": "Oslo", "n": 2} Have a nice day.`, `{"to": "Oslo", "n": 2}`, true},
		{"braces in the prose before", `I {think} this is it: {"to": "Oslo"}`, `{"to": "Oslo"}`, true},
		{"brackets inside strings", `Result: {"note": "a } and a ]", "x": [1]} ok`, `{"note": "a } and a ]", "x": [1]}`, true},
		{"trailing commas", "```json\n{\"a\": [1, 2,], \"b\": 3,}\n```", `{"a": [1, 2], "b": 3}`, true},
		{"a comma inside a string is not trailing", `{"a": "x,}", "b": 1,}`, `{"a": "x,}", "b": 1}`, true},
		{"simple single quotes", `{'to': 'Oslo', 'tags': ['a', 'b']}`, `{"to": "Oslo", "tags": ["a", "b"]}`, true},
		{"an apostrophe inside a double-quoted string", `Here: {"name": "O'Brien", 'n': 2,}`, `{"name": "O'Brien", "n": 2}`, true},
		{"a single-quoted string with an apostrophe is not requoted", `{'name': 'O'Brien'}`, `{'name': 'O'Brien'}`, false},
		{"a single-quoted string with a double quote is not requoted", `{'say': 'a "b"'}`, `{'say': 'a "b"'}`, false},
		{"an unclosed value is not completed", `{"a": 1, "b": [2, 3`, `{"a": 1, "b": [2, 3`, false},
		{"no JSON at all", `I could not find a flight.`, `I could not find a flight.`, false},
		{"a missing value is not invented", `{"a": 1, "b": }`, `{"a": 1, "b": }`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := sampling.Repair(tc.in)
			if got != tc.want || changed != tc.changed {
				t.Errorf("Repair(%q)\n got %q, %v\nwant %q, %v", tc.in, got, changed, tc.want, tc.changed)
			}
		})
	}
}

// Trip is a typed output for the tests.
type Trip struct {
	Destination string `json:"destination"`
	Travellers  int    `json:"travellers"`
}

// The repair runs before SampleAs reads the value, so a fenced reply with
// a trailing comma is read on the first attempt; a reply that asked for
// no JSON is not touched.
func TestRepairJSONThroughThePipeline(t *testing.T) {
	t.Run("a typed reply is read on the first attempt", func(t *testing.T) {
		m := replying("Here you go:\n```json\n{\"destination\": \"Oslo\", \"travellers\": 2,}\n```")
		ctx := sampling.RepairJSON(m.provide(t.Context()))
		got, err := turn.SampleAs[Trip](ctx, asked("Two of us to Oslo"))
		if err != nil || got.Value != (Trip{"Oslo", 2}) {
			t.Fatalf("SampleAs = %+v, %v", got.Value, err)
		}
		if m.calls() != 1 {
			t.Errorf("%d model calls, want 1", m.calls())
		}
		if want := `{"destination": "Oslo", "travellers": 2}`; got.Response.Content != want {
			t.Errorf("content %q, want %q", got.Response.Content, want)
		}
	})
	t.Run("without the repair the same reply is refused", func(t *testing.T) {
		m := replying("```json\n{\"destination\": \"Oslo\", \"travellers\": 2,}\n```")
		_, err := turn.SampleAs[Trip](m.provide(t.Context()), asked("Two of us to Oslo"))
		if _, ok := errors.AsType[*turn.OutputError](err); !ok {
			t.Fatalf("err = %v, want an OutputError", err)
		}
	})
	t.Run("a reply in prose is not touched", func(t *testing.T) {
		reply := "Use ```go\n{\"a\": 1,}\n``` like this."
		m := replying(reply)
		resp, err := turn.Sample(sampling.RepairJSON(m.provide(t.Context())), asked("how?"))
		if err != nil || resp.Content != reply {
			t.Fatalf("Sample = %q, %v; want the reply as it was", resp.Content, err)
		}
	})
	t.Run("a request for JSON by Output alone", func(t *testing.T) {
		m := replying(`Answer: {'ok': true}`)
		req := asked("ok?")
		req.Output = jsonOutput
		resp, err := turn.Sample(sampling.RepairJSON(m.provide(t.Context())), req)
		if err != nil || resp.Content != `{"ok": true}` {
			t.Fatalf("Sample = %q, %v", resp.Content, err)
		}
	})
}

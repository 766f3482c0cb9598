package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents/demo"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/transport/term"
)

func TestParseChat(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    chatConfig
		wantErr string
	}{
		{"defaults", nil, nil, chatConfig{db: "data/terminal.db", session: "terminal", pace: 350 * time.Millisecond, maxReply: chat.DefaultMaxReply}, ""},
		{"all flags", []string{"--db", "x.db", "--agent", "showcase", "--conversation", "abc", "--session", "me", "--demo-pace", "0",
			"--max-reply", "4096"}, nil,
			chatConfig{db: "x.db", agent: "showcase", conversation: "abc", session: "me", maxReply: 4096}, ""},
		{"all from the environment", nil, map[string]string{"SWEATPANTS_DB": "y.db", "SWEATPANTS_AGENT": "survey",
			"SWEATPANTS_CONVERSATION": "c1", "SWEATPANTS_SESSION": "s1", "SWEATPANTS_DEMO_PACE": "1s", "SWEATPANTS_MAX_REPLY": "2048"},
			chatConfig{db: "y.db", agent: "survey", conversation: "c1", session: "s1", pace: time.Second, maxReply: 2048}, ""},
		{"a flag over its variable", []string{"--agent", "showcase"}, map[string]string{"SWEATPANTS_AGENT": "survey"},
			chatConfig{db: "data/terminal.db", agent: "showcase", session: "terminal", pace: 350 * time.Millisecond, maxReply: chat.DefaultMaxReply}, ""},
		{"an argument", []string{"hello"}, nil, chatConfig{}, `chat takes no arguments, only flags: "hello" is not a flag`},
		{"an argument before a flag", []string{"hello", "--db", "x.db"}, nil, chatConfig{}, `"hello" is not a flag`},
		{"an empty session", []string{"--session", ""}, nil, chatConfig{}, `invalid value "" for flag -session: must not be empty`},
		{"a negative pace", []string{"--demo-pace", "-1s"}, nil, chatConfig{}, `invalid value "-1s" for flag -demo-pace: want a duration`},
		{"a pace in the environment that is no duration", nil, map[string]string{"SWEATPANTS_DEMO_PACE": "fast"}, chatConfig{},
			`invalid value "fast" for SWEATPANTS_DEMO_PACE: want a duration`},
		{"an unknown flag", []string{"--addr", ":80"}, nil, chatConfig{}, "flag provided but not defined: -addr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseChat(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPromptFlight(t *testing.T) {
	offer := demo.FlightOffer{Flights: []demo.Flight{
		{ID: "SP1", Airline: "A", From: "X", To: "Y", Departs: "07:00", Arrives: "09:00", Price: 10, Seats: []string{"1A", "2B"}},
		{ID: "SP2", Airline: "B", From: "X", To: "Y", Departs: "12:00", Arrives: "14:00", Price: 20, Seats: []string{"9C"}},
	}}
	req, err := demo.PickFlight.Request("Which flight?", offer)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		input string
		want  elicit.Response
	}{
		{"by numbers", "2\n1\n", elicit.Response{Action: elicit.Accept, Content: []byte(`{"flight":"SP2","seat":"9C"}`)}},
		{"seat by name", "1\n2b\n", elicit.Response{Action: elicit.Accept, Content: []byte(`{"flight":"SP1","seat":"2B"}`)}},
		{"off-script", "the cheapest one\n", elicit.Response{Action: elicit.Other, Text: "the cheapest one"}},
		{"decline", "/d\n", elicit.Response{Action: elicit.Decline}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			got, err := term.Answer(term.PromptFunc(promptFlight), term.NewQuestion(req, strings.NewReader(tt.input), &out))
			if err != nil {
				t.Fatalf("%v\n%s", err, &out)
			}
			if got.Action != tt.want.Action || string(got.Content) != string(tt.want.Content) || got.Text != tt.want.Text {
				t.Errorf("got %s %s %q, want %s %s %q", got.Action, got.Content, got.Text, tt.want.Action, tt.want.Content, tt.want.Text)
			}
			if got.Action == elicit.Accept {
				if err := demo.PickFlight.Verify(req, got); err != nil {
					t.Errorf("the answer fails the kind's check: %v", err)
				}
			}
		})
	}
}

// TestChatHelpNamesTheDefaultAgent checks that chat --help names the agent
// a conversation started without --agent talks to, offline and with a real
// model, and every agent --agent may name.
func TestChatHelpNamesTheDefaultAgent(t *testing.T) {
	var help strings.Builder
	if _, err := parseChat([]string{"--help"}, func(string) string { return "" }, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("got error %v, want flag.ErrHelp", err)
	}
	_, usage, _ := strings.Cut(help.String(), "--agent ")
	usage, _, _ = strings.Cut(usage, "\n  --")
	for _, env := range []map[string]string{nil, {"OPENAI_API_KEY": "sk-test"}} {
		app, err := appConfig(func(k string) string { return env[k] }, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, def, _ := strings.Cut(usage, "(default: ")
		want := app.Assistants.Default().Name
		said := strings.HasPrefix(def, want+")") || strings.HasPrefix(def, want+" offline") && env == nil ||
			strings.Contains(def, want+" with a real model)") && env != nil
		if !said {
			t.Errorf("with environment %v: got --agent help %q, want its default to be %s", env, usage, want)
		}
		for _, a := range app.Assistants.All() {
			if !strings.Contains(usage, a.Name) {
				t.Errorf("got --agent help %q, want it to name %s", usage, a.Name)
			}
		}
	}
}

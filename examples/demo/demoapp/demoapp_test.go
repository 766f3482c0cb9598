package demoapp

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/plugin"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// run runs the demo's program with args and the environment env.
func run(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out strings.Builder
	err := app.Run(t.Context(), Config(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, io.Discard)
	return out.String(), err
}

// TestChatHelpNamesTheDefaultAgent checks that chat --help names the agent
// a conversation started without --agent talks to, offline and with a real
// model, and every agent --agent may name.
func TestChatHelpNamesTheDefaultAgent(t *testing.T) {
	help, err := run(t, nil, "chat", "--help")
	if err != nil {
		t.Fatal(err)
	}
	_, usage, _ := strings.Cut(help, "--agent ")
	usage, _, _ = strings.Cut(usage, "\n  --")
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "x.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, isOffline := range []bool{true, false} {
		turns, err := Config().Setup(t.Context(), app.Env{Command: "chat", DB: db.App(), Model: offline.New(), Offline: isOffline,
			Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		if want := "(default: " + turns.Assistants[0].Name + ")"; !strings.Contains(usage, want) {
			t.Errorf("offline %v: got --agent help %q, want %q", isOffline, usage, want)
		}
		for _, a := range turns.Assistants {
			if !strings.Contains(usage, a.Name) {
				t.Errorf("got --agent help %q, want it to name %s", usage, a.Name)
			}
		}
	}
	if words := strings.Join(strings.Fields(help), " "); !strings.Contains(words, "Talks to the assistants chat, concierge, showcase, survey and assistant") {
		t.Errorf("chat's help does not name the demo agents:\n%s", help)
	}
}

// TestTheCataloguePluginStocksTheCatalogueForEveryTurn: the flight agent
// finds the catalogue the plugin stocked in the database in every turn's
// scope.
func TestTheCataloguePluginStocksTheCatalogueForEveryTurn(t *testing.T) {
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "x.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	parts := Config().Plugins[0].Parts()
	if err := parts.Start(t.Context(), plugin.Env{Command: "serve", DB: db.App(), Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	cat := demo.Catalogue.Get(parts.Scope(context.Background()))
	if cat == nil {
		t.Fatal("a turn's scope holds no catalogue")
	}
	if fs, err := cat.Search(t.Context(), flights.Query{To: "Tokyo"}); err != nil || len(fs) == 0 {
		t.Errorf("the catalogue finds %d flights (%v), want the seed's", len(fs), err)
	}
}

// TestDemoPace: --demo-pace and SWEATPANTS_DEMO_PACE are the demo's own
// flag, on serve and chat, listed in their help and refused when negative
// or no duration.
func TestDemoPace(t *testing.T) {
	for _, cmd := range []string{"serve", "chat"} {
		help, err := run(t, nil, "help", cmd)
		if err != nil || !strings.Contains(help, "--demo-pace (SWEATPANTS_DEMO_PACE, default 350ms)") {
			t.Errorf("help %s (%v) does not list --demo-pace:\n%s", cmd, err, help)
		}
	}
	db := filepath.Join(t.TempDir(), "x.db")
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"chat", "--db", db, "--demo-pace", "-1s"}, `invalid value "-1s" for flag -demo-pace: want a duration such as 350ms or 0`},
		{map[string]string{"SWEATPANTS_DEMO_PACE": "fast"}, []string{"chat", "--db", db}, `invalid value "fast" for SWEATPANTS_DEMO_PACE: want a duration`},
		{map[string]string{"SWEATPANTS_DEMO_PACE": "-1s"}, []string{"serve", "--db", db}, `invalid value "-1s" for SWEATPANTS_DEMO_PACE`},
	} {
		if _, err := run(t, tt.env, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %q: got %v, want %q", tt.env, tt.args, err, tt.want)
		}
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
			got, err := terminal.Answer(Config().Prompters[demo.PickFlight.Name], terminal.NewQuestion(req, strings.NewReader(tt.input), &out))
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

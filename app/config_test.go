package app

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/terminal"
	"github.com/sweatpants-go/sweatpants/turn"
)

// TestTheApplicationsConfigReachesItsTurns: what an application hands in
// is what its turns run with: its kinds beside the built-in ones, its
// scope inside the default middleware and Setup's inside that, Setup's
// assistants, and the word rule exactly when the model is the offline one,
// whether chosen from the environment or given.
func TestTheApplicationsConfigReachesItsTurns(t *testing.T) {
	appValue := middleware.NewValue("app-test", "")
	setupValue := middleware.NewValue("setup-test", "")
	card := elicit.NewKind[struct{}, greeting]("name-card", "A name card")
	tests := []struct {
		name     string
		model    llm.Provider
		env      map[string]string
		wantRule bool
	}{
		{"offline from the environment", nil, nil, true},
		{"a real model from the environment", nil, map[string]string{"OPENAI_API_KEY": "sk-test"}, false},
		{"the application's own model", openai.New(openai.Config{APIKey: "sk-test", Model: "m"}), nil, false},
		{"the offline model given", offline.New(), map[string]string{"OPENAI_API_KEY": "sk-test"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Model, cfg.Kinds = tt.model, []elicit.Registered{card}
			cfg.Scope = func(ctx context.Context) context.Context { return appValue.With(ctx, "app") }
			var got Env
			cfg.Setup = func(ctx context.Context, env Env) (Turns, error) {
				got = env
				made := testConfig().Assistants
				made[1].Description = "made by Setup"
				return Turns{Assistants: made, Scope: func(ctx context.Context) context.Context {
					return setupValue.With(ctx, "setup, inside "+appValue.Get(ctx))
				}}, nil
			}
			p := newProgram(cfg, func(k string) string { return tt.env[k] }, nil, io.Discard, io.Discard)
			o, err := p.open(t.Context(), "chat", filepath.Join(t.TempDir(), "x.db"), nil, defaultContextTokens, store.Options{}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer o.close()

			if o.chat.DecideByRule != tt.wantRule || got.Offline != tt.wantRule {
				t.Errorf("the word rule decides: %v, Setup was told offline: %v; want %v", o.chat.DecideByRule, got.Offline, tt.wantRule)
			}
			if got.Command != "chat" || got.DB != o.db.App() || got.Model != o.chat.Model || got.Getenv == nil || got.Log == nil {
				t.Errorf("Setup was handed %+v, want the command, its store, its model, the environment and the log", got)
			}
			if tt.model != nil && o.chat.Model != tt.model {
				t.Errorf("the turns sample from %s, want the application's model", o.chat.Model.Name())
			}
			for _, k := range []string{card.Name, elicit.Confirm.Name, elicit.LocateDevice.Name} {
				if !o.chat.Kinds.Has(k) {
					t.Errorf("the service does not check answers by the rules of the kind %q", k)
				}
			}
			if a, _ := o.chat.Assistants.Get("echo"); a.Description != "made by Setup" || o.chat.Assistants.Default().Name != "greeter" {
				t.Errorf("the service runs echo %q, default %s; want Setup's, default greeter", a.Description, o.chat.Assistants.Default().Name)
			}

			// A turn's scope holds both values, Setup's made inside the
			// application's, and the default middleware around them.
			var sent string
			ctx := o.chat.Scope(t.Context())
			if got, want := setupValue.Get(ctx), "setup, inside app"; got != want {
				t.Errorf("a turn sees %q, want %q", got, want)
			}
			ctx = primitive.Provide(ctx, middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
				sent = req.Messages[0].Content
				return llm.Response{Content: "ok"}, nil
			})
			if _, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "mail ann@example.com"}}}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(sent, "ann@example.com") {
				t.Errorf("the model was sent %q: the default middleware did not redact it", sent)
			}
		})
	}
}

// TestSetupKeepsTheAssistantsTheHelpNames: the help runs no Setup, so a
// Setup whose assistants are not the ones Config names, or whose default
// is another, is refused, naming both.
func TestSetupKeepsTheAssistantsTheHelpNames(t *testing.T) {
	tests := []struct {
		name string
		made func([]agents.Assistant) []agents.Assistant
		want string
	}{
		{"another assistant", func(as []agents.Assistant) []agents.Assistant { as[1].Name = "parrot"; return as },
			`setup made the assistants ["greeter" "parrot"], but app.Config.Assistants, which the help names, are ["echo" "greeter"]`},
		{"one less", func(as []agents.Assistant) []agents.Assistant { return as[:1] }, `setup made the assistants ["greeter"]`},
		{"another default", func(as []agents.Assistant) []agents.Assistant { return []agents.Assistant{as[1], as[0]} },
			"setup made echo the default assistant, but the help names app.Config.Assistants' first, greeter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Setup = func(context.Context, Env) (Turns, error) {
				return Turns{Assistants: tt.made(testConfig().Assistants)}, nil
			}
			_, _, err := runWith(cfg, "chat", "--db", filepath.Join(t.TempDir(), "x.db"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestAnApplicationWithoutAssistantsIsRefused: there is nothing to serve,
// and the refusal says which field is missing.
func TestAnApplicationWithoutAssistantsIsRefused(t *testing.T) {
	for _, args := range [][]string{nil, {"chat"}, {"help"}} {
		_, _, err := runWith(Config{Name: "empty"}, args...)
		if err == nil || !strings.Contains(err.Error(), "app.Config.Assistants") {
			t.Errorf("%q: got %v, want a refusal naming app.Config.Assistants", args, err)
		}
	}
}

// TestTheApplicationsOwnFlags: a flag an application defines is listed in
// the help of serve and chat with its variable, read from the variable
// when not given, and a bad value is refused as the program's own are.
func TestTheApplicationsOwnFlags(t *testing.T) {
	var times int
	var seen []int
	stop := errors.New("stop here")
	cfg := testConfig()
	cfg.Flags = func(fs *flag.FlagSet) { fs.IntVar(&times, "times", 1, "how many times to greet") }
	cfg.Setup = func(context.Context, Env) (Turns, error) { seen = append(seen, times); return Turns{}, stop }

	for _, cmd := range []string{"serve", "chat"} {
		out, _, err := runWith(cfg, "help", cmd)
		if err != nil || !strings.Contains(out, "--times (SWEATPANTS_TIMES, default 1)\n        how many times to greet") {
			t.Errorf("help %s (%v) does not list --times:\n%s", cmd, err, out)
		}
	}
	db := filepath.Join(t.TempDir(), "x.db")
	run := func(env map[string]string, args ...string) error {
		p := newProgram(cfg, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, io.Discard)
		return p.run(t.Context(), args)
	}
	if err := run(nil, "chat", "--db", db, "--times", "3"); !errors.Is(err, stop) {
		t.Fatalf("got %v, want Setup's error as it is", err)
	}
	if err := run(map[string]string{"SWEATPANTS_TIMES": "4"}, "chat", "--db", db); !errors.Is(err, stop) {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != 3 || seen[1] != 4 {
		t.Errorf("Setup saw --times %v, want 3 from the flag, then 4 from the variable", seen)
	}
	err := run(map[string]string{"SWEATPANTS_TIMES": "many"}, "chat", "--db", db)
	var usage *usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), `invalid value "many" for SWEATPANTS_TIMES`) {
		t.Errorf("got %v, want a usage error naming the variable", err)
	}
}

// TestChatAsksTheApplicationsOwnKindWithItsPrompter: at the terminal, a
// question of the application's own kind is asked by the prompter it
// handed in, and the answer reaches the turn.
func TestChatAsksTheApplicationsOwnKindWithItsPrompter(t *testing.T) {
	card := elicit.NewKind[struct{}, greeting]("name-card", "A name card")
	cfg := Config{Name: testName, Assistants: []agents.Assistant{{Name: "card",
		Turn: func(ctx context.Context, message string) (string, error) {
			res, err := turn.Ask(ctx, card, "Show me your card", struct{}{})
			if err != nil || res.Action != elicit.Accept {
				return "No card.", err
			}
			return "Hello, " + res.Content.Name + "!", nil
		}}},
		Kinds: []elicit.Registered{card},
		Prompters: map[string]terminal.Prompter{card.Name: terminal.PromptFunc(func(q *terminal.Question) (elicit.Response, error) {
			q.Printf("  (the card reader hums)\n")
			return terminal.Accept(greeting{Name: "Ann"})
		})},
	}
	var out strings.Builder
	p := newProgram(cfg, func(string) string { return "" }, strings.NewReader("hi\n"), &out, io.Discard)
	if err := p.run(t.Context(), []string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(the card reader hums)", "Hello, Ann!"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, &out)
		}
	}
}

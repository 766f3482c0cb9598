package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents/demo"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/transport/term"
	"github.com/sweatpants-go/sweatpants/store"
)

type chatConfig struct {
	db           string
	agent        string
	conversation string
	session      string
	pace         time.Duration
}

func parseChat(args []string, stderr io.Writer) (chatConfig, error) {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg chatConfig
	fs.StringVar(&cfg.db, "db", "data/terminal.db", "SQLite database file (its own by default, apart from the server's)")
	fs.StringVar(&cfg.agent, "agent", "", "the agent to talk to: concierge, showcase or survey (default: concierge)")
	fs.StringVar(&cfg.conversation, "conversation", "", "continue this conversation instead of starting one")
	fs.StringVar(&cfg.session, "session", "terminal", "the session the terminal's conversations belong to")
	fs.DurationVar(&cfg.pace, "demo-pace", 350*time.Millisecond, "how long each progress step of the demo concierge takes")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("chat takes no arguments, only flags (got %q)", fs.Arg(0))
	}
	if cfg.session == "" {
		return cfg, fmt.Errorf("--session must not be empty")
	}
	return cfg, nil
}

// chatCmd runs the demo agents at the terminal: messages and answers are
// read from stdin, the conversation is written to stdout, and warnings are
// logged to stderr. It ends when stdin does, or on Ctrl-C at the message
// prompt; Ctrl-C while the agent works stops its turn.
func chatCmd(ctx context.Context, args []string, getenv func(string) string, interrupts <-chan os.Signal, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseChat(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	db, err := store.Open(ctx, cfg.db, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.SeedFlights(ctx, time.Now()); err != nil {
		return err
	}
	app, err := appConfig(getenv, cfg.pace, db.Flights())
	if err != nil {
		return err
	}
	app.Store, app.Log = db, log
	svc := chat.New(app)
	defer svc.Close()

	prompters := term.Builtin()
	prompters.Register(demo.PickFlight.Name, term.PromptFunc(promptFlight))
	return term.Run(ctx, term.Config{
		Chat: svc, Session: cfg.session, Conversation: cfg.conversation, Agent: cfg.agent,
		Prompters: prompters, In: stdin, Out: stdout, Echo: !isTerminal(stdin), Interrupts: interrupts,
	})
}

// isTerminal reports whether r is a terminal, which echoes what is typed.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// promptFlight asks the demo's flight kind at the terminal: the flights as
// a numbered list, then the free seats of the one picked.
func promptFlight(q *term.Question) (elicit.Response, error) {
	var offer demo.FlightOffer
	if err := q.Input(&offer); err != nil {
		return elicit.Response{}, err
	}
	flights := make([]string, len(offer.Flights))
	for i, f := range offer.Flights {
		flights[i] = fmt.Sprintf("%s  %s  %s %s → %s %s  €%d  (%d free)",
			f.ID, f.Airline, f.From, f.Departs, f.To, f.Arrives, f.Price, len(f.Seats))
	}
	i, err := q.Pick("Flight", flights)
	if err != nil {
		return elicit.Response{}, err
	}
	f := offer.Flights[i]
	q.Printf("Free seats on %s:\n", f.ID)
	j, err := q.Pick("Seat", f.Seats)
	if err != nil {
		return elicit.Response{}, err
	}
	return term.Accept(demo.FlightPick{Flight: f.ID, Seat: f.Seats[j]})
}

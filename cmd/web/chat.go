package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
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
	maxReply     int
}

// chatSynopsis heads chat's usage.
const chatSynopsis = `Usage: sweatpants chat [flags]

Talks to the demo agents at the terminal: type a message, answer their
questions at the prompts. It ends at the end of input or on Ctrl-C at the
message prompt; Ctrl-C while the agent works stops its turn. The model is
chosen from the environment, as for serve (docs/configuration.md).`

// chatFlags defines chat's flags on a new flag set, writing into cfg.
func chatFlags(cfg *chatConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	*cfg = chatConfig{db: "data/terminal.db", session: "terminal", pace: 350 * time.Millisecond, maxReply: chat.DefaultMaxReply}
	fs.Var(nonEmptyFlag{&cfg.db}, "db", "SQLite database file (its own by default, apart from the server's); one process at a time may use it")
	fs.StringVar(&cfg.agent, "agent", "", agentUsage())
	fs.StringVar(&cfg.conversation, "conversation", "", "continue this conversation instead of starting one")
	fs.Var(nonEmptyFlag{&cfg.session}, "session", "the session the terminal's conversations belong to")
	fs.Var(durationFlag{&cfg.pace, func(d time.Duration) bool { return d >= 0 }, "a duration such as 350ms or 0"},
		"demo-pace", "how long each progress step of the demo concierge takes")
	fs.Var(maxReplyFlag(&cfg.maxReply), "max-reply", maxReplyUsage)
	return fs
}

// agentUsage says which agents --agent may name and which one talks when it
// names none, read from the demo registry so that the help cannot drift
// from what runs. The default is the registry's first; appConfig orders the
// registry by whether the model is offline, so both orders are asked.
func agentUsage() string {
	offline, real := demo.Agents(demo.Options{}), demo.Agents(demo.Options{AssistantFirst: true})
	var names []string
	for _, a := range offline.All() {
		names = append(names, a.Name)
	}
	def := offline.Default().Name
	if r := real.Default().Name; r != def {
		def = fmt.Sprintf("%s offline, %s with a real model", def, r)
	}
	last := len(names) - 1
	return fmt.Sprintf("the agent to talk to: %s or %s (default: %s)", strings.Join(names[:last], ", "), names[last], def)
}

// parseChat reads chat's flags from args and the environment; --help
// prints the usage to stdout and returns flag.ErrHelp.
func parseChat(args []string, getenv func(string) string, stdout io.Writer) (chatConfig, error) {
	var cfg chatConfig
	err := parseFlags(chatFlags(&cfg), chatSynopsis, args, getenv, stdout)
	return cfg, err
}

// chatCmd runs the demo agents at the terminal: messages and answers are
// read from stdin, the conversation is written to stdout, and warnings are
// logged to stderr. It ends when stdin does, or on Ctrl-C at the message
// prompt; Ctrl-C while the agent works stops its turn.
func chatCmd(ctx context.Context, args []string, getenv func(string) string, interrupts <-chan os.Signal, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseChat(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	db, unlock, err := openStore(ctx, cfg.db, store.Options{})
	if err != nil {
		return err
	}
	defer unlock()
	defer db.Close()
	app, err := appConfig(getenv, cfg.pace, db.Flights())
	if err != nil {
		return err
	}
	app.Store, app.Log, app.MaxReply = db, log, cfg.maxReply
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

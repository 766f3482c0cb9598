package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport/term"
)

type chatConfig struct {
	db           string
	agent        string
	conversation string
	session      string
	maxReply     int
	policy       ruleFile

	// contextTokens is the tokens a request may hold; 0: no bound.
	contextTokens int
}

// chatSynopsis heads chat's usage.
func (p *program) chatSynopsis() string {
	return fmt.Sprintf("Usage: %s chat [flags]\n\n", p.cfg.Name) + wrap(fmt.Sprintf(
		"Talks to %s at the terminal: type a message, answer the questions at the prompts. "+
			"It ends at the end of input or on Ctrl-C at the message prompt; Ctrl-C while the assistant works stops its turn. "+
			"The model is chosen from the environment, as for serve (docs/configuration.md).", p.assistantsPhrase()))
}

// chatFlags defines chat's flags, and the application's, on a new flag
// set, writing into cfg.
func (p *program) chatFlags(cfg *chatConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	*cfg = chatConfig{db: "data/terminal.db", session: "terminal", maxReply: chat.DefaultMaxReply}
	fs.Var(nonEmptyFlag{&cfg.db}, "db", "the database: a SQLite file (its own by default, apart from the server's), which one process at a time may use, or a postgres:// URL")
	fs.StringVar(&cfg.agent, "agent", "", p.agentUsage())
	fs.StringVar(&cfg.conversation, "conversation", "", "continue this conversation instead of starting one")
	fs.Var(nonEmptyFlag{&cfg.session}, "session", "the session the terminal's conversations belong to")
	fs.Var(maxReplyFlag(&cfg.maxReply), "max-reply", maxReplyUsage)
	contextTokensFlag(fs, &cfg.contextTokens, "")
	fs.Var(policyFlag{&cfg.policy}, "policy", policyUsage)
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	p.pluginFlags(fs) // a clash was refused before any command ran
	return fs
}

// agentUsage says which assistants --agent may name and which one talks
// when it names none: the application's, the first being the default.
func (p *program) agentUsage() string {
	return fmt.Sprintf("the assistant to talk to: %s (default: %s)", orList(p.assistantNames(), "or"), p.cfg.Assistants[0].Name)
}

// parseChat reads chat's flags from args and the environment; --help
// prints the usage to stdout and returns flag.ErrHelp.
func (p *program) parseChat(args []string) (chatConfig, error) {
	var cfg chatConfig
	err := parseFlags(p.chatFlags(&cfg), p.chatSynopsis(), args, p.getenv, p.stdout)
	return cfg, err
}

// chat runs the application's assistants at the terminal: messages and
// answers are read from stdin, the conversation is written to stdout, and
// warnings are logged to stderr. It ends when stdin does, or on Ctrl-C at
// the message prompt; Ctrl-C while the assistant works stops its turn.
func (p *program) chat(ctx context.Context, args []string) error {
	cfg, err := p.parseChat(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o, err := p.open(ctx, "chat", cfg.db, cfg.policy.rules, cfg.contextTokens, store.Options{}, log)
	if err != nil {
		return err
	}
	defer o.close()
	app := o.chat
	app.MaxReply = cfg.maxReply
	// The files given at the terminal, typed as paths, go to the store the
	// service reads them from, under the server's default limits.
	fstore := files.New(o.db, files.Options{})
	app.Files = fstore
	// Files given at a prompt and then refused, never used, go as the
	// server's do (before the database closes).
	defer collectFiles(ctx, fstore, filesGCEvery, log)()
	svc := chat.New(app)
	defer svc.Close()

	prompters := term.Builtin()
	for kind, pr := range p.prompters() {
		prompters.Register(kind, pr)
	}
	return term.Run(ctx, term.Config{
		Chat: svc, Session: cfg.session, Conversation: cfg.conversation, Agent: cfg.agent,
		Prompters: prompters, In: p.stdin, Out: p.stdout, Echo: !isTerminal(p.stdin), Interrupts: p.interrupts,
		Files: fstore,
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

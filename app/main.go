package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// Main runs the program an application's main is: it reads the command
// and its flags from os.Args and the environment, runs until the command
// ends or SIGTERM, and exits 0 when it ended as asked (help and version
// included), 2 on a bad command line or environment variable, and 1 on
// any other failure, said on stderr. Ctrl-C shuts the server down; in the
// terminal chat it stops the assistant's turn first, and ends the chat at
// the message prompt.
func Main(cfg Config) {
	if cfg.Name == "" {
		cfg.Name = filepath.Base(os.Args[0])
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	// Ctrl-C is the command's to interpret: the server shuts down, the
	// terminal chat stops the agent's turn first.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	p := newProgram(cfg, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	p.interrupts = interrupts
	if err := p.run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cfg.Name, err)
		var usage *usageError
		if errors.As(err, &usage) {
			fmt.Fprintf(os.Stderr, "Run '%s' for usage.\n", strings.TrimSpace(cfg.Name+" help "+usage.cmd))
			stop()
			os.Exit(2)
		}
		stop()
		os.Exit(1)
	}
}

// Run is the program Main runs, parameterized so that a test can drive it:
// args are the command line after the program's name, getenv reads the
// environment. It ends when the command does or ctx is done: serve then
// shuts down gracefully, the terminal chat stops. A bad command line or
// variable is an error for which Main exits 2; Run prints no error itself.
func Run(ctx context.Context, cfg Config, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if cfg.Name == "" {
		cfg.Name = filepath.Base(os.Args[0])
	}
	return newProgram(cfg, getenv, stdin, stdout, stderr).run(ctx, args)
}

// program is one run of the application's program: its configuration and
// what it was started with.
type program struct {
	cfg            Config
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	// interrupts delivers Ctrl-C (Main's); nil when ctx alone ends a run.
	interrupts <-chan os.Signal
	// plugs are the application's plugins, read and checked by run.
	plugs []plug
	// pluginsErr is what is wrong with them; nil for nothing.
	pluginsErr error
	// flagsErr is the first clash of a plugin's flag that TurnFlags met.
	flagsErr error
}

func newProgram(cfg Config, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) *program {
	p := &program{cfg: cfg, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(cfg.Assistants) > 0 { // else run refuses the application first
		p.pluginsErr = p.readPlugins()
	}
	return p
}

// run runs the command args name; flags alone serve.
func (p *program) run(ctx context.Context, args []string) error {
	if len(p.cfg.Assistants) == 0 {
		return errors.New("the application has no assistants: app.Config.Assistants must name one at least")
	}
	if p.pluginsErr != nil {
		return p.pluginsErr
	}
	name := defaultCommand // so that flags alone serve
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "-help" || a == "--help":
			name, args = "help", args[1:]
		case a == "-version" || a == "--version":
			name, args = "version", args[1:]
		case a != "" && a[0] != '-':
			name, args = a, args[1:]
		}
	}
	cmd, err := p.command(name)
	if err != nil {
		return err
	}
	return cmd.run(ctx, args)
}

// command returns the command called name.
func (p *program) command(name string) (command, error) {
	cmds := p.commands()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		if c.name == name {
			return c, nil
		}
		names[i] = c.name
	}
	return command{}, &usageError{"", fmt.Errorf("unknown command %q (the commands are %s)", name, orList(names, "and"))}
}

// help prints the program's usage, or the usage of the command args names.
func (p *program) help(args []string) error {
	if len(args) > 1 {
		return &usageError{"", fmt.Errorf("help takes one command at most (got %q)", args)}
	}
	if len(args) == 0 {
		fmt.Fprint(p.stdout, p.usage())
		return nil
	}
	cmd, err := p.command(args[0])
	if err != nil {
		return err
	}
	cmd.help()
	return nil
}

// usage is the program's own help.
func (p *program) usage() string {
	var b strings.Builder
	b.WriteString(wrap(fmt.Sprintf("%s serves a chat in the browser with %s, every conversation kept as a tree in a SQLite database.",
		p.cfg.Name, p.assistantsPhrase())))
	b.WriteString("\n\nUsage:\n")
	cmds := p.commands()
	lines := make([]string, len(cmds))
	width := 0
	for i, c := range cmds {
		name := c.name
		if name == defaultCommand {
			name = "[" + name + "]"
		}
		lines[i] = strings.TrimSpace(p.cfg.Name + " " + name + " " + c.args)
		width = max(width, len(lines[i]))
	}
	for i, c := range cmds {
		fmt.Fprintf(&b, "  %-*s   %s\n", width, lines[i], c.does)
	}
	b.WriteString(`
Every flag may be set by an environment variable instead: --max-body is
SWEATPANTS_MAX_BODY. The model is chosen from the environment too; see
docs/configuration.md of Sweatpants (github.com/sweatpants-go/sweatpants).
`)
	return b.String()
}

// chatPartner is who the chat command talks to, in a few words.
func (p *program) chatPartner() string {
	if len(p.cfg.Assistants) == 1 {
		return p.cfg.Assistants[0].Name
	}
	return "its assistants"
}

// wrap breaks s into lines of at most 78 columns, between words.
func wrap(s string) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(s) {
		if col > 0 && col+1+len(w) > 78 {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// assistantsPhrase names the application's assistants in a sentence: "the
// assistant greeter", "the assistants chat, survey and showcase".
func (p *program) assistantsPhrase() string {
	names := p.assistantNames()
	if len(names) == 1 {
		return "the assistant " + names[0]
	}
	return "the assistants " + orList(names, "and")
}

func (p *program) assistantNames() []string {
	names := make([]string, len(p.cfg.Assistants))
	for i, a := range p.cfg.Assistants {
		names[i] = a.Name
	}
	return names
}

// orList joins words as a sentence does: "a", "a or b", "a, b or c" (with
// conj "or").
func orList(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	last := len(words) - 1
	return strings.Join(words[:last], ", ") + " " + conj + " " + words[last]
}

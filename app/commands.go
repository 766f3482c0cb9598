package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/deploycheck"
)

// command is one of the program's commands.
type command struct {
	name string
	args string // what follows its name in the program's usage
	does string // what it does, in a few words, for the program's usage
	// run runs it with the arguments after its name; a mistake in them is
	// a *usageError.
	run func(ctx context.Context, args []string) error
	// help prints its usage, flags included, to stdout.
	help func()
}

// defaultCommand is the command run when none is named, so that flags
// alone serve.
const defaultCommand = "serve"

// commands are the program's commands, in the order its usage lists them.
// A command of one's own is an entry here and a method beside serve and
// chat: one that runs or replays the application's turns reads its flags
// with parseFlags (the application's own included, through Config.Flags)
// and opens the database and the service's configuration with p.open, as
// they do, so that it runs what they run.
func (p *program) commands() []command {
	own := p.ownCommands()
	// version and help stay last.
	return slices.Concat(own[:len(own)-2], p.pluginCommands(), own[len(own)-2:])
}

// ownCommands are the program's commands, without the plugins'.
func (p *program) ownCommands() []command {
	return []command{
		{name: "serve", args: "[flags]", does: "serve the app over HTTP (the default command)",
			run:  p.serveUntilInterrupted,
			help: func() { printFlags(p.stdout, p.serveFlags(&serveConfig{}), p.serveSynopsis()) }},
		{name: "chat", args: "[flags]", does: "talk to " + p.chatPartner() + " at the terminal",
			run:  p.chat,
			help: func() { printFlags(p.stdout, p.chatFlags(&chatConfig{}), p.chatSynopsis()) }},
		{name: CheckCommand, args: "[flags]", does: "before a deploy: list the waiting turns this build would break",
			run: p.check,
			help: func() {
				var db string
				printFlags(p.stdout, p.checkFlags(&db, &ruleFile{}, new(int)), deploycheck.Synopsis(p.cfg.Name))
			}},
		{name: "version", does: "print the version",
			run: p.version,
			help: func() {
				fmt.Fprintf(p.stdout, "Usage: %s version\n\nPrints the version of the binary, its commit and the Go it was built with.\n", p.cfg.Name)
			}},
		{name: "help", args: "[command]", does: "print this, or a command's usage and flags",
			run:  func(_ context.Context, args []string) error { return p.help(args) },
			help: func() { fmt.Fprint(p.stdout, p.usage()) }},
	}
}

// serveUntilInterrupted serves until ctx ends or Ctrl-C.
func (p *program) serveUntilInterrupted(ctx context.Context, args []string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.interrupts:
			cancel()
		case <-ctx.Done():
		}
	}()
	return p.serve(ctx, args)
}

// version prints the program's version.
func (p *program) version(_ context.Context, args []string) error {
	if len(args) > 0 {
		return &usageError{"", fmt.Errorf("version takes no arguments (got %q)", args[0])}
	}
	fmt.Fprintln(p.stdout, buildVersion(p.cfg.Name))
	return nil
}

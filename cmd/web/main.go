// Command sweatpants serves the Sweatpants chat: a single binary with its
// SQLite database, the browser app and the demo agents. The chat command
// runs the same agents at the terminal instead, over stdin and stdout.
//
//	sweatpants [serve] [--addr 127.0.0.1:8080] [--db data/sweatpants.db]
//	sweatpants chat [--agent showcase] [--conversation ID] [--db data/terminal.db]
//	sweatpants version
//	sweatpants help [serve|chat]
//
// It exits 0 when it ends as asked (help and version included), 2 on a bad
// command line or environment variable, and 1 on any other failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	// Ctrl-C is the command's to interpret: the server shuts down, the
	// terminal chat stops the agent's turn first.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	if err := run(ctx, os.Args[1:], os.Getenv, interrupts, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sweatpants:", err)
		var usage *usageError
		if errors.As(err, &usage) {
			fmt.Fprintf(os.Stderr, "Run 'sweatpants help %s' for usage.\n", usage.cmd)
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usage is the program's own help.
const usage = `Sweatpants serves a chat in the browser whose agents are Go code, with every
conversation kept as a tree in a SQLite database.

Usage:
  sweatpants [serve] [flags]   serve the app over HTTP (the default command)
  sweatpants chat [flags]      talk to the demo agents at the terminal
  sweatpants version           print the version
  sweatpants help [command]    print this, or a command's usage and flags

Every flag may be set by an environment variable instead: --max-body is
SWEATPANTS_MAX_BODY. The model is chosen from the environment too; see
docs/configuration.md.
`

// run is the whole program, parameterized so tests can call it. It ends when
// ctx does; interrupts delivers Ctrl-C.
func run(ctx context.Context, args []string, getenv func(string) string, interrupts <-chan os.Signal, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve" // the default, so that flags alone serve
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "-help" || a == "--help":
			cmd, args = "help", args[1:]
		case a == "-version" || a == "--version":
			cmd, args = "version", args[1:]
		case a != "" && a[0] != '-':
			cmd, args = a, args[1:]
		}
	}
	switch cmd {
	case "serve":
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-interrupts:
				cancel()
			case <-ctx.Done():
			}
		}()
		return serve(ctx, args, getenv, stdout, stderr)
	case "chat":
		return chatCmd(ctx, args, getenv, interrupts, stdin, stdout, stderr)
	case "version":
		if len(args) > 0 {
			return &usageError{"", fmt.Errorf("version takes no arguments (got %q)", args[0])}
		}
		fmt.Fprintln(stdout, version())
		return nil
	case "help":
		return help(args, stdout)
	default:
		return &usageError{"", fmt.Errorf("unknown command %q (the commands are serve, chat, version and help)", cmd)}
	}
}

// help prints the program's usage, or the usage of the command args names.
func help(args []string, stdout io.Writer) error {
	if len(args) > 1 {
		return &usageError{"", fmt.Errorf("help takes one command at most (got %q)", args)}
	}
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch args[0] {
	case "serve":
		printFlags(stdout, serveFlags(&serveConfig{}), serveSynopsis)
	case "chat":
		printFlags(stdout, chatFlags(&chatConfig{}), chatSynopsis)
	case "version":
		fmt.Fprintln(stdout, "Usage: sweatpants version\n\nPrints the version of the binary, its commit and the Go it was built with.")
	case "help":
		fmt.Fprint(stdout, usage)
	default:
		return &usageError{"", fmt.Errorf("unknown command %q (the commands are serve, chat, version and help)", args[0])}
	}
	return nil
}

// Command sweatpants serves the Sweatpants chat: a single binary with its
// SQLite database, the browser app and the demo agents. The chat command
// runs the same agents at the terminal instead, over stdin and stdout.
//
//	sweatpants [serve] [--addr 127.0.0.1:8080] [--db data/sweatpants.db]
//	sweatpants chat [--agent showcase] [--conversation ID] [--db data/terminal.db]
package main

import (
	"context"
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
		os.Exit(1)
	}
}

// run is the whole program, parameterized so tests can call it. It ends when
// ctx does; interrupts delivers Ctrl-C.
func run(ctx context.Context, args []string, getenv func(string) string, interrupts <-chan os.Signal, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
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
	default:
		return fmt.Errorf("unknown command %q (try: serve, chat)", cmd)
	}
}

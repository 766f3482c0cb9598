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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sweatpants:", err)
		os.Exit(1)
	}
}

// run is the whole program, parameterized so tests can call it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stdout, stderr)
	case "chat":
		return chatCmd(ctx, args, getenv, stdin, stdout, stderr)
	default:
		return fmt.Errorf("unknown command %q (try: serve, chat)", cmd)
	}
}

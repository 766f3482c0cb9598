package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/transport"
	"github.com/sweatpants-go/sweatpants/store"
	"github.com/sweatpants-go/sweatpants/web/templates"
)

type serveConfig struct {
	addr       string
	db         string
	durability string
	logFormat  string
	maxBody    int64
	pace       time.Duration
	compact    int
	suspend    time.Duration
}

func parseServe(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.addr, "addr", envOr(getenv, "SWEATPANTS_ADDR", "127.0.0.1:8080"), "address to listen on (loopback by default)")
	fs.StringVar(&cfg.db, "db", envOr(getenv, "SWEATPANTS_DB", "data/sweatpants.db"), "SQLite database file")
	fs.StringVar(&cfg.durability, "durability", envOr(getenv, "SWEATPANTS_DURABILITY", string(store.CrashSafe)),
		"what a recorded answer survives: process-crash (synchronous=NORMAL) or power-loss (synchronous=FULL)")
	fs.StringVar(&cfg.logFormat, "log", envOr(getenv, "SWEATPANTS_LOG", "text"), "log format: text or json")
	fs.Int64Var(&cfg.maxBody, "max-body", transport.DefaultMaxBody, "largest request body accepted, in bytes")
	fs.DurationVar(&cfg.pace, "demo-pace", 350*time.Millisecond, "how long each progress step of the demo concierge takes")
	compactDef, err := strconv.Atoi(envOr(getenv, "SWEATPANTS_COMPACT_AFTER", "40"))
	if err != nil {
		return cfg, fmt.Errorf("SWEATPANTS_COMPACT_AFTER must be a number: %w", err)
	}
	fs.IntVar(&cfg.compact, "compact-after", compactDef, "messages a branch gives the model before its oldest are summarized (0: never)")
	suspendDef, err := time.ParseDuration(envOr(getenv, "SWEATPANTS_SUSPEND_AFTER", chat.DefaultSuspendAfter.String()))
	if err != nil {
		return cfg, fmt.Errorf("SWEATPANTS_SUSPEND_AFTER must be a duration such as 1m or 30s: %w", err)
	}
	fs.DurationVar(&cfg.suspend, "suspend-after", suspendDef,
		"how long a turn waits for an answer with nobody watching before it is suspended to the database (0: at once; negative: never)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if d := store.Durability(cfg.durability); d != store.CrashSafe && d != store.PowerSafe {
		return cfg, fmt.Errorf("--durability must be %s or %s, not %q", store.CrashSafe, store.PowerSafe, cfg.durability)
	}
	return cfg, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// serve runs the server until ctx is cancelled, then shuts down gracefully:
// it stops accepting, ends streams, stops running turns and lets their
// writes finish before closing the database.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServe(args, getenv, stderr)
	if err != nil {
		return err
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if cfg.logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(handler)

	db, err := store.Open(ctx, cfg.db, store.Options{Durability: store.Durability(cfg.durability)})
	if err != nil {
		return err
	}
	defer db.Close()

	model := llm.FromEnv(getenv)
	svc := chat.New(db, agents.Demo(agents.DemoOptions{Pace: cfg.pace}), model, log)
	defer svc.Close()
	svc.SetCompactAfter(cfg.compact)
	svc.SetSuspendAfter(cfg.suspend)

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler: transport.NewServer(transport.Config{Chat: svc, Log: log, MaxBody: cfg.maxBody,
			// The demo's own elicit kind has its own browser component.
			ElicitComponents: templates.ElicitComponents{agents.PickFlight.Name: templates.FlightPicker}}),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	log.Info("serving", "url", "http://"+ln.Addr().String(), "db", cfg.db, "model", model.Name(), "durability", cfg.durability)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	// Streams watch ctx (the base context), so they end now and Shutdown
	// does not wait on them; commands in flight finish their writes.
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	svc.Close()
	log.Info("stopped")
	return nil
}

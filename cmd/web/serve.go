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
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents/demo"
	"github.com/sweatpants-go/sweatpants/backend/chat"
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

	allowedHosts   []string
	trustedProxies []netip.Prefix
	secureCookies  bool
	readTimeout    time.Duration
	idleTimeout    time.Duration
	maxConns       int
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
	paceDef, err := time.ParseDuration(envOr(getenv, "SWEATPANTS_DEMO_PACE", "350ms"))
	if err != nil {
		return cfg, fmt.Errorf("SWEATPANTS_DEMO_PACE must be a duration such as 350ms: %w", err)
	}
	fs.DurationVar(&cfg.pace, "demo-pace", paceDef, "how long each progress step of the demo agents takes")
	compactDef, err := strconv.Atoi(envOr(getenv, "SWEATPANTS_COMPACT_TOKENS", "16000"))
	if err != nil {
		return cfg, fmt.Errorf("SWEATPANTS_COMPACT_TOKENS must be a number: %w", err)
	}
	fs.IntVar(&cfg.compact, "compact-tokens", compactDef, "tokens of conversation a branch gives the model before its oldest messages are summarized (0: never)")
	suspendDef, err := time.ParseDuration(envOr(getenv, "SWEATPANTS_SUSPEND_AFTER", chat.DefaultSuspendAfter.String()))
	if err != nil {
		return cfg, fmt.Errorf("SWEATPANTS_SUSPEND_AFTER must be a duration such as 1m or 30s: %w", err)
	}
	fs.DurationVar(&cfg.suspend, "suspend-after", suspendDef,
		"how long a turn waits for an answer with nobody watching before it is suspended to the database (0: at once; negative: never)")
	hostsList := fs.String("allowed-hosts", getenv("SWEATPANTS_ALLOWED_HOSTS"),
		"comma-separated host names the app is served as; IP addresses and localhost are always answered, other names refused")
	proxyList := fs.String("trusted-proxies", getenv("SWEATPANTS_TRUSTED_PROXIES"),
		"comma-separated addresses or CIDR prefixes of reverse proxies whose X-Forwarded-Proto is believed")
	secureDef, err := envBool(getenv, "SWEATPANTS_SECURE_COOKIES")
	if err != nil {
		return cfg, err
	}
	fs.BoolVar(&cfg.secureCookies, "secure-cookies", secureDef, "mark the session cookie Secure (the app is reached over HTTPS)")
	fs.DurationVar(&cfg.readTimeout, "read-timeout", 30*time.Second, "longest time to read a request, body included (streams excepted)")
	fs.DurationVar(&cfg.idleTimeout, "idle-timeout", 2*time.Minute, "how long an idle keep-alive connection stays open")
	fs.IntVar(&cfg.maxConns, "max-conns", defaultMaxConns(), "open connections beyond which the longest-idle ones are closed")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	for _, h := range strings.Split(*hostsList, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cfg.allowedHosts = append(cfg.allowedHosts, h)
		}
	}
	if cfg.trustedProxies, err = transport.ParsePrefixes(*proxyList); err != nil {
		return cfg, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if d := store.Durability(cfg.durability); d != store.CrashSafe && d != store.PowerSafe {
		return cfg, fmt.Errorf("--durability must be %s or %s, not %q", store.CrashSafe, store.PowerSafe, cfg.durability)
	}
	return cfg, nil
}

func envBool(getenv func(string) string, key string) (bool, error) {
	v := getenv(key)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false, not %q", key, v)
	}
	return b, nil
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
	if err := db.SeedFlights(ctx, time.Now()); err != nil {
		return err
	}

	app, err := appConfig(getenv, cfg.pace, db.Flights())
	if err != nil {
		return err
	}
	app.Store, app.Log, app.CompactTokens, app.SuspendAfter = db, log, cfg.compact, &cfg.suspend
	svc := chat.New(app)
	defer svc.Close()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	reaper := newIdleReaper(cfg.maxConns)
	srv := &http.Server{
		Handler: transport.NewServer(transport.Config{Chat: svc, Log: log, MaxBody: cfg.maxBody,
			SecureCookies: cfg.secureCookies, TrustedProxies: cfg.trustedProxies, AllowedHosts: cfg.allowedHosts,
			// The demo's own elicit kind has its own browser component.
			ElicitComponents: templates.ElicitComponents{demo.PickFlight.Name: templates.FlightPicker}}),
		// A slow or idle client holds a connection only so long; streams
		// lift the read deadline for themselves.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cfg.readTimeout,
		IdleTimeout:       cfg.idleTimeout,
		ConnState:         reaper.track,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	log.Info("serving", "url", "http://"+ln.Addr().String(), "db", cfg.db, "model", app.Model.Name(), "durability", cfg.durability)
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

// Command bench measures the real server on loopback under many simulated
// browsers. Each browser starts a survey conversation, keeps its page's
// stream open and answers the survey's questions one after another; a round
// trip is the time from sending an answer to the arrival of the stream's
// next event.
//
//	go run ./bench -bin bin/sweatpants [-conversations 1000] [-rounds 20]
//	    [-durability process-crash|power-loss] [-json] [-timeout 5m]
//	    [-step-timeout 1m] [-setup-parallel 64]
//
// All conversations are created, their streams opened and their first
// question shown before the timed phase starts, so that they really run
// concurrently during it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// config is the bench's command line.
type config struct {
	bin           string
	conversations int
	rounds        int
	durability    string
	json          bool
	timeout       time.Duration
	stepTimeout   time.Duration
	setupParallel int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.bin, "bin", "", "the sweatpants binary to run (required)")
	fs.IntVar(&cfg.conversations, "conversations", 1000, "simulated browsers, each with one conversation")
	fs.IntVar(&cfg.rounds, "rounds", 20, "answers per conversation")
	fs.StringVar(&cfg.durability, "durability", "", "the server's --durability: process-crash or power-loss (empty: its default)")
	fs.BoolVar(&cfg.json, "json", false, "print the results as one JSON object")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "bound on the whole run")
	fs.DurationVar(&cfg.stepTimeout, "step-timeout", 60*time.Second, "bound on each request and each wait for an event")
	fs.IntVar(&cfg.setupParallel, "setup-parallel", 64, "browsers setting up at once before the timed phase")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	case cfg.bin == "":
		return cfg, errors.New("-bin is required")
	case cfg.conversations < 1 || cfg.rounds < 1:
		return cfg, errors.New("-conversations and -rounds must be at least 1")
	case cfg.durability != "" && cfg.durability != "process-crash" && cfg.durability != "power-loss":
		return cfg, fmt.Errorf("-durability must be process-crash or power-loss, not %q", cfg.durability)
	case cfg.timeout <= 0 || cfg.stepTimeout <= 0 || cfg.setupParallel < 1:
		return cfg, errors.New("-timeout, -step-timeout and -setup-parallel must be positive")
	}
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return cfg, err
	}
	cfg.bin = bin
	return cfg, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run starts the server, drives the browsers against it, stops it and
// prints the results.
func run(cfg config, stdout, stderr io.Writer) error {
	// Each browser holds a stream and a command connection, on both ends.
	if limit, err := raiseOpenFiles(); err != nil {
		fmt.Fprintln(stderr, "bench: could not raise the open-files limit:", err)
	} else if need := uint64(2*cfg.conversations + 64); limit != 0 && limit < need {
		fmt.Fprintf(stderr, "bench: the open-files limit is %d; %d browsers need about %d\n", limit, cfg.conversations, need)
	}
	// An interrupt ends the run like a failure, so the server is still
	// stopped and the temporary directory removed.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.timeout,
		fmt.Errorf("the whole run took longer than -timeout %v", cfg.timeout))
	defer cancel()

	dir, err := os.MkdirTemp("", "sweatpants-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	srv, err := startServer(cfg.bin, dir, cfg.durability, 30*time.Second)
	if err != nil {
		return err
	}
	res, runErr := drive(ctx, cfg, srv.base)
	res.ServerPeakRSS = srv.peakRSS()
	res.DBBytes, res.WALBytes = srv.dbSizes()
	res.Durability = cfg.durability
	if res.Durability == "" {
		res.Durability = "server default"
		if d := srv.durability(); d != "" {
			res.Durability += " (" + d + ")"
		}
	}
	stopErr := srv.stop(20 * time.Second)
	res.ServerCPUs, res.BenchCPUs = secs(srv.cpu()), secs(selfCPU())
	if runErr != nil {
		return fmt.Errorf("%w\nlast lines of the server's log:\n%s", runErr, srv.logTail(10))
	}
	if stopErr != nil {
		return fmt.Errorf("%w\nlast lines of the server's log:\n%s", stopErr, srv.logTail(10))
	}
	if cfg.json {
		return res.writeJSON(stdout)
	}
	return res.writeText(stdout)
}

// drive runs the browsers against the server at base: setup for all of
// them, then, once every one is ready, the timed phase.
func drive(ctx context.Context, cfg config, base string) (results, error) {
	res := results{
		Conversations: cfg.conversations,
		Rounds:        cfg.rounds,
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		NumCPU:        runtime.NumCPU(),
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	transport := newTransport(cfg.conversations)
	defer transport.CloseIdleConnections()

	var (
		mu      sync.Mutex
		samples = make([]time.Duration, 0, cfg.conversations*cfg.rounds)
	)
	record := func(d time.Duration) {
		mu.Lock()
		samples = append(samples, d)
		mu.Unlock()
	}
	ready := make(chan error, cfg.conversations)
	start := make(chan struct{})
	done := make(chan error, cfg.conversations)
	setupSlots := make(chan struct{}, cfg.setupParallel)
	for i := range cfg.conversations {
		go func() {
			err := browse(ctx, cfg, i+1, base, transport, setupSlots, ready, start, record)
			if err != nil {
				cancel(err)
			}
			done <- err
		}()
	}

	if _, err := gather(ctx, ready, cfg.conversations); err != nil {
		cancel(err)
		waitAll(done, cfg.conversations)
		return res, fmt.Errorf("setting up: %w", context.Cause(ctx))
	}
	t0 := time.Now()
	close(start)
	finished, err := gather(ctx, done, cfg.conversations)
	elapsed := time.Since(t0)
	if err != nil {
		cancel(err)
		waitAll(done, cfg.conversations-finished)
		mu.Lock()
		n := len(samples)
		mu.Unlock()
		return res, fmt.Errorf("timed phase, after %d of %d round trips: %w", n, cfg.conversations*cfg.rounds, context.Cause(ctx))
	}
	res.summarize(samples, elapsed)
	return res, nil
}

// browse is one browser's whole life: set up (holding one of setupSlots),
// report on ready, wait for start, answer every round, close the stream.
func browse(ctx context.Context, cfg config, n int, base string, transport http.RoundTripper,
	setupSlots chan struct{}, ready chan<- error, start <-chan struct{}, record func(time.Duration)) error {
	b, err := newBrowser(n, base, transport, cfg.stepTimeout)
	if err != nil {
		ready <- err
		return err
	}
	defer b.closeStream()
	select {
	case setupSlots <- struct{}{}:
	case <-ctx.Done():
		ready <- context.Cause(ctx)
		return nil
	}
	err = b.setup(ctx, cfg.rounds)
	<-setupSlots
	ready <- err
	if err != nil {
		return err
	}
	select {
	case <-start:
	case <-ctx.Done():
		return nil // another browser failed or time ran out; that is reported
	}
	return b.run(ctx, cfg.rounds, record)
}

// gather waits for n reports on c. It stops at the first error, or when
// the context ends, and returns how many reports it took and the error (the
// context's cause if it ended).
func gather(ctx context.Context, c <-chan error, n int) (int, error) {
	for i := range n {
		select {
		case err := <-c:
			if err != nil {
				return i + 1, err
			}
		case <-ctx.Done():
			return i, context.Cause(ctx)
		}
	}
	return n, nil
}

// waitAll waits, a bounded time, for the browsers still running to notice
// the run was cancelled, so the server is not stopped under them.
func waitAll(done <-chan error, n int) {
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	for range n {
		select {
		case <-done:
		case <-timer.C:
			return
		}
	}
}

// newTransport returns the transport all browsers share, with enough idle
// connections kept for every browser's commands to reuse one.
func newTransport(browsers int) *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0, // no limit
		MaxIdleConnsPerHost: 2 * browsers,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

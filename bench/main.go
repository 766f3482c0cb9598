// Command bench measures the real server on loopback under many simulated
// browsers. Each browser starts a survey conversation, keeps its page's
// stream open and answers the survey's questions one after another; a round
// trip is the time from sending an answer to the arrival of the stream's
// next event.
//
//	go run ./bench -bin bin/sweatpants [-mode both|paced|saturate|transports|timers]
//	    [-rate 200] [-seed 1] [-conversations 1000] [-rounds 20]
//	    [-durability process-crash|power-loss] [-json] [-timeout 5m]
//	    [-step-timeout 1m] [-setup-parallel 64]
//	    [-db sqlite|postgres|postgres://…] [-nodes 1] [-cross]
//	    [-transports sse,ws]
//
// It measures two ways, each against a fresh server and database:
//
//   - paced (open loop): every browser thinks before each answer, for an
//     exponentially distributed time counted from its question's arrival,
//     with the mean that makes all of them together send -rate answers a
//     second. This is many people using the app at once at a human pace.
//   - saturated (closed loop): every browser answers as soon as its question
//     arrives, so the server is as busy as it can be and latency is mostly
//     queueing. This is the server's capacity, not a user's experience.
//
// -mode both, the default, runs the paced run and then the saturated one,
// and prints both results; -rate 0 alone means -mode saturate.
//
// -mode transports measures the answer round trip of a program rather
// than a page, over each transport -transports names, one after another,
// each against a fresh server, at -rate (0: the closed loop) and with 100
// conversations unless -conversations says otherwise: sse is the event
// stream (GET /c/:id/events) with the page's POSTs sent as JSON, ws the
// WebSocket (GET /c/:id/ws). See transports.go.
//
// -mode timers measures the conversations' timers: start-up over 10,000
// pending ones (-conversations), and the cost of each firing, all at once
// and paced at -rate a second. It runs the service in this process, on a
// clock of its own, and needs no -bin. See timers.go.
//
// -db postgres runs the servers on a throwaway PostgreSQL the bench starts
// (internal/store/pgtest, durable: fsync and synchronous_commit on), a fresh schema
// for each run, instead of a SQLite file; -db postgres://… on that
// database, a new schema for each run, left there afterwards. -nodes N
// then starts N servers on that schema, a cluster (docs/cluster.md):
// browser i opens its conversation and its stream on node i mod N and
// answers there too, or, with -cross, on the next node, which forwards the
// answer to the node the conversation is live on. The difference between a -cross run and one without at the same
// rate is what an answer landing on another node costs.
//
// All conversations are created, their streams opened and their first
// question shown before the timed phase starts, and every stream stays open
// until the last browser has finished, so that the conversations really are
// open concurrently throughout it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The values of -mode, and the names of the two kinds of run.
const (
	modeBoth      = "both"
	modePaced     = "paced"
	modeSaturate  = "saturate"
	modeSaturated = "saturated" // a run's name in results
)

// config is the bench's command line.
type config struct {
	bin           string
	mode          string
	rate          float64 // answers per second in total in a paced run
	seed          uint64
	conversations int
	rounds        int
	durability    string
	json          bool
	timeout       time.Duration
	stepTimeout   time.Duration
	setupParallel int
	db            string // dbSQLite, dbPostgres or a postgres:// URL
	nodes         int
	cross         bool
	transports    []string // -mode transports: the transports measured, in order
	cpuProfile    string   // -mode timers: where the firings' CPU profile goes
}

// The values of -db.
const (
	dbSQLite   = "sqlite"
	dbPostgres = "postgres"
)

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.bin, "bin", "", "the sweatpants binary to run (required)")
	fs.StringVar(&cfg.mode, "mode", modeBoth, "both (a paced run, then a saturated one), paced, saturate, transports (a program's round trip over each of -transports), or timers (start-up over pending timers and the cost of firing them)")
	fs.Float64Var(&cfg.rate, "rate", 200, "answers per second in total across all browsers in the paced run; 0 alone means -mode saturate")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the paced run's think times")
	fs.IntVar(&cfg.conversations, "conversations", 1000, "simulated browsers, each with one conversation")
	fs.IntVar(&cfg.rounds, "rounds", 20, "answers per conversation")
	fs.StringVar(&cfg.durability, "durability", "", "the server's --durability: process-crash or power-loss (empty: its default)")
	fs.BoolVar(&cfg.json, "json", false, "print the results as one JSON object")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "bound on each run (-mode both makes two)")
	fs.DurationVar(&cfg.stepTimeout, "step-timeout", 60*time.Second, "bound on each request and each wait for an event")
	fs.IntVar(&cfg.setupParallel, "setup-parallel", 64, "browsers setting up at once before the timed phase")
	fs.StringVar(&cfg.db, "db", dbSQLite, "sqlite (a file per run), postgres (a durable throwaway server, a schema per run) or a postgres:// URL (that database, a new schema per run, left there)")
	fs.IntVar(&cfg.nodes, "nodes", 1, "servers on the one database (-db postgres); browser i uses node i mod N")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "with -mode timers: write a CPU profile of the firings to this file (go tool pprof)")
	fs.BoolVar(&cfg.cross, "cross", false, "answer on the next node, not the one with the stream (-nodes 2 or more)")
	transports := fs.String("transports", transportSSE+","+transportWS+","+transportAGUI, "with -mode transports: the transports measured, comma-separated: "+transportSSE+" (the event stream and POSTs), "+transportWS+" (the WebSocket), "+transportAGUI+" (AG-UI runs)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.rate == 0 && !isSet(fs, "mode") {
		cfg.mode = modeSaturate
	}
	if cfg.mode == modeTransports && !isSet(fs, "conversations") {
		cfg.conversations = 100
	}
	if cfg.mode == modeTimers && !isSet(fs, "conversations") {
		cfg.conversations = 10000
	}
	for _, name := range strings.Split(*transports, ",") {
		if name = strings.TrimSpace(name); name != "" {
			cfg.transports = append(cfg.transports, name)
		}
	}
	if err := cfg.check(fs.Args()); err != nil {
		return cfg, err
	}
	if cfg.bin == "" { // -mode timers runs no binary
		return cfg, nil
	}
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return cfg, err
	}
	cfg.bin = bin
	return cfg, nil
}

// isSet reports whether the command line set the flag named name.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// check validates a parsed command line with rest left over.
func (cfg config) check(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected arguments %q", rest)
	case cfg.bin == "" && cfg.mode != modeTimers:
		return errors.New("-bin is required")
	case cfg.mode != modeBoth && cfg.mode != modePaced && cfg.mode != modeSaturate && cfg.mode != modeTransports && cfg.mode != modeTimers:
		return fmt.Errorf("-mode must be both, paced, saturate, transports or timers, not %q", cfg.mode)
	case cfg.mode == modeTimers && (cfg.rate <= 0 || cfg.nodes != 1):
		return errors.New("-mode timers needs a -rate above 0 (its paced run) and runs one node")
	case !(cfg.rate >= 0) || math.IsInf(cfg.rate, 0):
		return fmt.Errorf("-rate must be a number of answers per second, not %v", cfg.rate)
	case cfg.mode == modeTransports && (len(cfg.transports) == 0 || cfg.onPostgres()):
		return errors.New("-mode transports needs -transports and runs on SQLite")
	case cfg.rate == 0 && cfg.mode != modeSaturate && cfg.mode != modeTransports:
		return fmt.Errorf("-mode %s needs a -rate above 0", cfg.mode)
	case cfg.conversations < 1 || cfg.rounds < 1:
		return errors.New("-conversations and -rounds must be at least 1")
	case cfg.durability != "" && cfg.durability != "process-crash" && cfg.durability != "power-loss":
		return fmt.Errorf("-durability must be process-crash or power-loss, not %q", cfg.durability)
	case cfg.timeout <= 0 || cfg.stepTimeout <= 0 || cfg.setupParallel < 1:
		return errors.New("-timeout, -step-timeout and -setup-parallel must be positive")
	case cfg.db != dbSQLite && cfg.db != dbPostgres && !strings.HasPrefix(cfg.db, "postgres://") && !strings.HasPrefix(cfg.db, "postgresql://"):
		return fmt.Errorf("-db must be sqlite, postgres or a postgres:// URL, not %q", cfg.db)
	case cfg.nodes < 1:
		return errors.New("-nodes must be at least 1")
	case cfg.nodes > 1 && !cfg.onPostgres():
		return errors.New("-nodes above 1 needs -db postgres: a SQLite file is one server's")
	case cfg.cross && cfg.nodes < 2:
		return errors.New("-cross needs -nodes 2 or more")
	case cfg.durability != "" && cfg.onPostgres():
		return errors.New("-durability is SQLite's; on PostgreSQL a commit is durable (synchronous_commit on)")
	}
	return nil
}

// engine names the database the servers run on in results: sqlite or
// postgres, never the URL, which may hold a password.
func (cfg config) engine() string {
	if cfg.onPostgres() {
		return dbPostgres
	}
	return dbSQLite
}

// onPostgres reports whether the servers run on PostgreSQL; an empty -db
// is the default, SQLite.
func (cfg config) onPostgres() bool { return cfg.db != "" && cfg.db != dbSQLite }

// plan lists the runs cfg asks for, in order, each by its target rate in
// answers per second: 0 for the saturated run.
func (cfg config) plan() []float64 {
	switch cfg.mode {
	case modePaced:
		return []float64{cfg.rate}
	case modeSaturate:
		return []float64{0}
	default:
		return []float64{cfg.rate, 0}
	}
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

// run makes the runs cfg asks for, one after another, and prints their
// results.
func run(cfg config, stdout, stderr io.Writer) error {
	// Each browser holds a stream and a command connection, on both ends
	// (the timers bench has no browsers).
	if cfg.mode != modeTimers {
		if limit, err := raiseOpenFiles(); err != nil {
			fmt.Fprintln(stderr, "bench: could not raise the open-files limit:", err)
		} else if need := uint64(2*cfg.conversations + 64); limit != 0 && limit < need {
			fmt.Fprintf(stderr, "bench: the open-files limit is %d; %d browsers need about %d\n", limit, cfg.conversations, need)
		}
	}
	// An interrupt ends the run like a failure, so the server is still
	// stopped and the temporary directory removed.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	var pg *postgres
	if cfg.onPostgres() {
		var err error
		if pg, err = startPostgres(ctx, cfg.db); err != nil {
			return err
		}
		defer pg.stop()
	}
	if cfg.mode == modeTransports {
		return runTransports(ctx, cfg, stdout, stderr)
	}
	if cfg.mode == modeTimers {
		return runTimers(ctx, cfg, pg, stdout, stderr)
	}
	var all []*results
	for _, rate := range cfg.plan() {
		name := runName(rate)
		fmt.Fprintf(stderr, "bench: %s run: %d conversations × %d rounds…\n", name, cfg.conversations, cfg.rounds)
		res, err := runOnce(ctx, cfg, pg, rate, pageUser)
		if err != nil {
			return fmt.Errorf("%s run: %w", name, err)
		}
		all = append(all, res)
	}
	return report(stdout, cfg.json, all)
}

// runName names the run at rate: paced, or saturated for 0.
func runName(rate float64) string {
	if rate > 0 {
		return modePaced
	}
	return modeSaturated
}

// report prints the results of one run as before, or of a paced and a
// saturated run together.
func report(w io.Writer, asJSON bool, all []*results) error {
	switch {
	case len(all) == 2 && asJSON:
		return writeBothJSON(w, all[0], all[1])
	case len(all) == 2:
		return writeBothText(w, all[0], all[1])
	case asJSON:
		return all[0].writeJSON(w)
	default:
		return all[0].writeText(w)
	}
}

// runOnce starts a server, or cfg.nodes of them, on a fresh database (a
// SQLite file, or a schema on pg), drives the users makeUser makes against
// it at rate answers per second in total (0: closed loop), stops it and
// returns what was measured, all within cfg.timeout.
func runOnce(ctx context.Context, cfg config, pg *postgres, rate float64, makeUser newUser) (*results, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.timeout,
		fmt.Errorf("the run took longer than -timeout %v", cfg.timeout))
	defer cancel()

	dir, err := os.MkdirTemp("", "sweatpants-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	if pg != nil {
		return runCluster(ctx, cfg, pg, dir, rate, makeUser)
	}
	cpu0 := selfCPU()
	srv, err := startServer(cfg.bin, dir, "", "", cfg.durability, cfg.conversations, 30*time.Second)
	if err != nil {
		return nil, err
	}
	res, runErr := drive(ctx, cfg, rate, []string{srv.base}, makeUser)
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
	res.ServerCPUs, res.BenchCPUs = secs(srv.cpu()), secs(since(cpu0, selfCPU()))
	if runErr != nil {
		return nil, fmt.Errorf("%w\nlast lines of the server's log:\n%s", runErr, srv.logTail(10))
	}
	if stopErr != nil {
		return nil, fmt.Errorf("%w\nlast lines of the server's log:\n%s", stopErr, srv.logTail(10))
	}
	return res, nil
}

// since returns the CPU time used between readings before and after, or
// -1 if either is unknown.
func since(before, after time.Duration) time.Duration {
	if before < 0 || after < 0 {
		return -1
	}
	return after - before
}

// user is one simulated user of a run: set up before the timed phase
// (its stream open, its first question shown), then answering rounds
// questions, each round trip recorded; its stream stays open until
// closeStream.
type user interface {
	setup(ctx context.Context, rounds int) error
	run(ctx context.Context, rounds int, began time.Time, record func(sent time.Time, d time.Duration)) error
	closeStream()
}

// newUser makes user n of a run, whose page and stream are on the node at
// base and whose answers go to the node at answers, sharing transport's
// connections, each step bounded by timeout, thinking as pace says.
type newUser func(n int, base, answers string, transport http.RoundTripper, timeout time.Duration, pace *thinker) (user, error)

// pageUser is a browser on the app's page: its Datastar stream and its
// POST commands (browser.go).
func pageUser(n int, base, answers string, transport http.RoundTripper, timeout time.Duration, pace *thinker) (user, error) {
	b, err := newBrowser(n, base, answers, transport, timeout)
	if err != nil {
		return nil, err
	}
	b.pace = pace
	return b, nil
}

// drive runs the users that makeUser makes against the servers at bases,
// user i on bases[i mod N] (see nodeOf): setup for all of them, then, once
// every one is ready, the timed phase, paced at rate answers per second in
// total or, at 0, in the closed loop.
func drive(ctx context.Context, cfg config, rate float64, bases []string, makeUser newUser) (*results, error) {
	res := &results{
		Mode:          runName(rate),
		DB:            cfg.engine(),
		Nodes:         len(bases),
		Cross:         cfg.cross,
		Conversations: cfg.conversations,
		Rounds:        cfg.rounds,
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		NumCPU:        runtime.NumCPU(),
	}
	var mean time.Duration
	if rate > 0 {
		mean = meanThink(cfg.conversations, rate)
		res.Pacing = &pacing{TargetRate: rate, MeanThinkS: secs(mean), Seed: cfg.seed}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	transport := newTransport(cfg.conversations)
	defer transport.CloseIdleConnections()

	col := newCollector(cfg.conversations * cfg.rounds)
	ready := make(chan error, cfg.conversations)
	start := make(chan struct{})
	done := make(chan error, cfg.conversations)
	end := make(chan struct{}) // closed once every browser is done
	setupSlots := make(chan struct{}, cfg.setupParallel)
	var streams sync.WaitGroup
	for i := range cfg.conversations {
		streams.Go(func() {
			stream, answers := nodeOf(i, len(bases), cfg.cross)
			b, err := browse(ctx, cfg, i+1, bases[stream], bases[answers], transport, makeUser, newThinker(mean, cfg.seed, i+1), setupSlots, ready, start, col)
			if err != nil {
				cancel(err)
			}
			done <- err
			if b != nil {
				linger(ctx, b, err, end)
			}
		})
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
		return res, fmt.Errorf("timed phase, after %d of %d round trips: %w", col.count(), cfg.conversations*cfg.rounds, context.Cause(ctx))
	}
	close(end)
	streams.Wait()
	res.summarize(col.samples, elapsed)
	if res.Pacing != nil {
		res.Pacing.achieve(col.sent, t0, col.firstDone)
	}
	return res, nil
}

// nodeOf returns the nodes, of n, that browser i (from 0) uses: its own,
// i mod n, for its page and stream, and for its answers the same one or,
// when cross, the next.
func nodeOf(i, n int, cross bool) (stream, answers int) {
	stream = i % n
	if cross {
		return stream, (stream + 1) % n
	}
	return stream, stream
}

// linger keeps b's stream open, once b has finished without err, until end
// is closed or ctx ends, and then closes it.
func linger(ctx context.Context, b user, err error, end <-chan struct{}) {
	if err == nil {
		select {
		case <-end:
		case <-ctx.Done():
		}
	}
	b.closeStream()
}

// browse is one user's life up to its last answer: made by makeUser, set
// up (holding one of setupSlots), report on ready, wait for start, answer
// every round, thinking first as pace says, and tell col when it is done.
// It returns the user, if it made one, with its stream still open.
func browse(ctx context.Context, cfg config, n int, base, answers string, transport http.RoundTripper, makeUser newUser, pace *thinker,
	setupSlots chan struct{}, ready chan<- error, start <-chan struct{}, col *collector) (user, error) {
	b, err := makeUser(n, base, answers, transport, cfg.stepTimeout, pace)
	if err != nil {
		ready <- err
		return nil, err
	}
	select {
	case setupSlots <- struct{}{}:
	case <-ctx.Done():
		ready <- context.Cause(ctx)
		return b, nil
	}
	err = b.setup(ctx, cfg.rounds)
	<-setupSlots
	ready <- err
	if err != nil {
		return b, err
	}
	select {
	case <-start:
	case <-ctx.Done():
		return b, nil // another browser failed or time ran out; that is reported
	}
	if err := b.run(ctx, cfg.rounds, time.Now(), col.record); err != nil {
		return b, err
	}
	col.finished(time.Now())
	return b, nil
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

package main

// -mode timers measures the conversations' timers (package timers): a
// database with -conversations (10,000 by default) conversations, each
// with a turn waiting in turn.Until for a time of its own, so as many
// timers pending, the turns suspended (nothing of them in memory). It
// runs the chat service in this process, not the binary, because it
// drives the service's clock (chat.Config.Now): the service is the real
// one (store, conversations, turns resumed by replay), only HTTP is left
// out. Two runs, each on a database set up afresh:
//
//   - all at once: the clock jumps past every timer, so all of them are
//     due together; the figures are a node's firing rate and how long the
//     last turn waits behind the others.
//   - paced: the clock runs at the wall clock's pace from the first
//     timer's time, and the timers come due -rate a second, steadily; the
//     figures are what one firing costs when the node keeps up.
//
// Before the all-at-once run, the service is closed and started again on
// the database, and that start-up is timed: opening the store, making the
// service (whose clock starts), and its first look for due timers, with
// the memory held once started.
//
// A firing's latency is from the timer's time (or, all at once, the jump)
// to the turn's code running again past its wait, as the agent itself
// notes; the fired figures end when the clock recorded the answer
// (Clock.OnFired).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/timers"
	"github.com/sweatpants-go/sweatpants/turn"
)

const modeTimers = "timers"

// timersOwner owns every conversation of the timers bench.
const timersOwner = "bench"

// benchClock is the service's clock in the timers bench: stopped at a time
// while the database is set up, then running at the wall clock's pace
// from a time of the bench's choosing.
type benchClock struct {
	mu      sync.Mutex
	at      time.Time // the time it shows while stopped, or at wall
	wall    time.Time // when it started running; zero while stopped
	running bool
}

func (c *benchClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return c.at
	}
	return c.at.Add(time.Since(c.wall))
}

// run has the clock show at from now on, running.
func (c *benchClock) run(at time.Time) {
	c.mu.Lock()
	c.at, c.wall, c.running = at, time.Now(), true
	c.mu.Unlock()
}

// timerEpoch is the clock's time while the database is set up; the
// timers are due from an hour later on.
var timerEpoch = time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)

// timerRun is one run of the timers bench: its conversations' due times
// and when each one's turn ran again (by the service's clock).
type timerRun struct {
	clk   *benchClock
	due   []time.Time // by conversation number
	mu    sync.Mutex
	woke  []time.Time // zero until the turn ran past its wait
	fired []time.Time // zero until the clock recorded its answer
	byID  map[string]int
	left  atomic.Int64
	done  chan struct{} // closed when every turn has run again
}

// agent waits until the time its message names ("<n> <unix ms>"), then
// notes that it ran again.
func (r *timerRun) agent() agents.Assistant {
	return agents.Assistant{Name: "timers", Turn: func(ctx context.Context, msg string) (string, error) {
		n, ms, ok := strings.Cut(msg, " ")
		i, err1 := strconv.Atoi(n)
		at, err2 := strconv.ParseInt(ms, 10, 64)
		if !ok || err1 != nil || err2 != nil || i < 0 || i >= len(r.due) {
			return "", fmt.Errorf("the timers bench's agent was sent %q", msg)
		}
		if err := turn.Until(ctx, time.UnixMilli(at)); err != nil {
			return "", err
		}
		r.mu.Lock()
		first := r.woke[i].IsZero()
		if first {
			r.woke[i] = r.clk.Now()
		}
		r.mu.Unlock()
		if first && r.left.Add(-1) == 0 {
			close(r.done)
		}
		return "woke", nil
	}}
}

// timerResults is what the timers bench measured.
type timerResults struct {
	DB            string     `json:"db"`
	Conversations int        `json:"conversations"`
	SetupS        float64    `json:"setup_s"`
	Startup       startup    `json:"startup"`
	AllAtOnce     *timerPass `json:"all_at_once"`
	Paced         *timerPass `json:"paced"`
	GOMAXPROCS    int        `json:"gomaxprocs"`
}

// startup is a service's start over the database of pending timers.
type startup struct {
	OpenMs      float64 `json:"open_ms"`       // store.Open
	ServiceMs   float64 `json:"service_ms"`    // chat.New, its clock started
	FirstLookMs float64 `json:"first_look_ms"` // one look for due timers and the next one's time
	ReadyMs     float64 `json:"ready_ms"`      // the three together
	HeapMiB     float64 `json:"heap_mib"`      // live heap once started, after a GC
	HeapBaseMiB float64 `json:"heap_base_mib"` // the same before opening anything
}

// timerPass is one run's firings.
type timerPass struct {
	Rate       float64 `json:"rate,omitempty"` // timers due a second (paced)
	Fired      int     `json:"fired"`
	ElapsedS   float64 `json:"elapsed_s"`
	PerSecond  float64 `json:"per_second"`
	FiredP50ms float64 `json:"fired_p50_ms"`
	FiredP99ms float64 `json:"fired_p99_ms"`
	WokeP50ms  float64 `json:"woke_p50_ms"`
	WokeP99ms  float64 `json:"woke_p99_ms"`
	WokeMaxMs  float64 `json:"woke_max_ms"`
	// CPUus is this process's CPU time per firing, in µs: steadier than
	// the latencies on a shared machine (-1: unknown).
	CPUus float64 `json:"cpu_us_per_firing"`
}

// runTimers runs the timers bench (see above) and prints its results.
func runTimers(ctx context.Context, cfg config, pg *postgres, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.timeout, fmt.Errorf("the timers bench took longer than -timeout %v", cfg.timeout))
	defer cancel()
	dir, err := os.MkdirTemp("", "sweatpants-bench-timers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	res := &timerResults{DB: cfg.engine(), Conversations: cfg.conversations, GOMAXPROCS: runtime.GOMAXPROCS(0)}

	for _, paced := range []bool{false, true} {
		target := filepath.Join(dir, fmt.Sprintf("timers-%v.db", paced))
		if pg != nil {
			if _, target, err = pg.schema(ctx); err != nil {
				return err
			}
		}
		r := newTimerRun(cfg.conversations, cfg.rate)
		fmt.Fprintf(stderr, "bench: timers: setting up %d conversations, each waiting…\n", cfg.conversations)
		t0 := time.Now()
		if err := r.setup(ctx, target, cfg.setupParallel); err != nil {
			return fmt.Errorf("set up: %w", err)
		}
		res.SetupS = secs(time.Since(t0))
		name := "all at once"
		if paced {
			name = fmt.Sprintf("paced at %g a second", cfg.rate)
		}
		fmt.Fprintf(stderr, "bench: timers: firing them, %s…\n", name)
		pass, st, err := r.fire(ctx, target, paced, cfg.cpuProfile)
		if err != nil {
			return fmt.Errorf("fire %s: %w", name, err)
		}
		if paced {
			pass.Rate = cfg.rate
			res.Paced = pass
		} else {
			res.Startup, res.AllAtOnce = st, pass
		}
	}
	if cfg.json {
		return json.NewEncoder(stdout).Encode(res)
	}
	return res.writeText(stdout)
}

func newTimerRun(n int, rate float64) *timerRun {
	r := &timerRun{clk: &benchClock{at: timerEpoch}, due: make([]time.Time, n), woke: make([]time.Time, n), fired: make([]time.Time, n),
		byID: make(map[string]int, n), done: make(chan struct{})}
	r.left.Store(int64(n))
	first := timerEpoch.Add(time.Hour)
	for i := range n {
		r.due[i] = first.Add(time.Duration(float64(i) / rate * float64(time.Second))).Truncate(time.Millisecond)
	}
	return r
}

// open opens the store at target on r's clock.
func (r *timerRun) open(ctx context.Context, target string) (*store.DB, error) {
	return store.Open(ctx, target, store.Options{Now: r.clk.Now})
}

// service makes the service on db, on r's clock, turns suspended as soon
// as nobody watches them.
func (r *timerRun) service(db *store.DB) *chat.Service {
	zero := time.Duration(0)
	return chat.New(chat.Config{Store: db, Assistants: registry.New(r.agent()), Model: offline.New(), Now: r.clk.Now, SuspendAfter: &zero})
}

// setup starts every conversation and waits until each one's turn waits
// on its timer, parallel at a time, then closes the service.
func (r *timerRun) setup(ctx context.Context, target string, parallel int) error {
	db, err := r.open(ctx, target)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := r.service(db)
	defer svc.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range next {
				if err := r.start(ctx, svc, i); err != nil {
					cancel(err)
				}
			}
		})
	}
	for i := range r.due {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// start starts conversation i and waits until its timer is set.
func (r *timerRun) start(ctx context.Context, svc *chat.Service, i int) error {
	if ctx.Err() != nil {
		return nil
	}
	conv, err := svc.Create(ctx, timersOwner, "timers")
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.byID[conv.ID] = i
	r.mu.Unlock()
	if err := svc.Send(ctx, timersOwner, conv.ID, fmt.Sprintf("%d %d", i, r.due[i].UnixMilli())); err != nil {
		return err
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		ts, err := svc.Timers().Of(ctx, conv.ID)
		if err != nil {
			return err
		}
		if len(ts) == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait): // polling the database for the timer, bounded by ctx
		}
	}
}

// fire starts a service on the database at target, timing its start-up,
// lets the clock run (from past every timer, or from the first one when
// paced) and waits until every turn has run again.
func (r *timerRun) fire(ctx context.Context, target string, paced bool, profile string) (*timerPass, startup, error) {
	var st startup
	st.HeapBaseMiB = liveHeapMiB()
	t0 := time.Now()
	db, err := r.open(ctx, target)
	if err != nil {
		return nil, st, err
	}
	defer db.Close()
	t1 := time.Now()
	svc := r.service(db)
	defer svc.Close()
	t2 := time.Now()
	svc.Timers().OnFired(func(t timers.Timer, at time.Time) {
		r.mu.Lock()
		if i, ok := r.byID[t.Conversation]; ok && r.fired[i].IsZero() {
			r.fired[i] = at
		}
		r.mu.Unlock()
	})
	// What the clock's loop does first: a look for timers due (none yet)
	// and the time of the next.
	if _, err := svc.Timers().FireDue(ctx); err != nil {
		return nil, st, err
	}
	if _, _, err := db.NextDue(ctx); err != nil {
		return nil, st, err
	}
	t3 := time.Now()
	st.OpenMs, st.ServiceMs, st.FirstLookMs, st.ReadyMs = ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)), ms(t3.Sub(t0))
	st.HeapMiB = liveHeapMiB()

	from := r.due[len(r.due)-1].Add(time.Millisecond) // past every timer
	if paced {
		from = r.due[0]
	}
	if profile != "" {
		if paced {
			profile = strings.TrimSuffix(profile, ".pprof") + "-paced.pprof"
		}
		stop, err := startCPUProfile(profile)
		if err != nil {
			return nil, st, err
		}
		defer stop()
	}
	cpu0 := selfCPU()
	began := time.Now()
	r.clk.run(from)
	svc.Timers().Poke()
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, st, fmt.Errorf("%d turns of %d still waiting: %w", r.left.Load(), len(r.due), context.Cause(ctx))
	}
	elapsed := time.Since(began)
	cpu := since(cpu0, selfCPU())
	// The last answers' OnFired may follow their turns' waking by a moment.
	for deadline := time.Now().Add(10 * time.Second); r.firedCount() < len(r.due) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // polling a count, bounded by the deadline
	}
	pass := &timerPass{Fired: len(r.due), ElapsedS: secs(elapsed), PerSecond: float64(len(r.due)) / elapsed.Seconds(), CPUus: -1}
	if cpu >= 0 {
		pass.CPUus = math.Round(float64(cpu.Microseconds()) / float64(len(r.due)))
	}
	r.mu.Lock()
	woke, fired := r.latencies(r.woke, from), r.latencies(r.fired, from)
	r.mu.Unlock()
	pass.WokeP50ms, pass.WokeP99ms, pass.WokeMaxMs = ms(percentile(woke, 50)), ms(percentile(woke, 99)), ms(woke[len(woke)-1])
	pass.FiredP50ms, pass.FiredP99ms = ms(percentile(fired, 50)), ms(percentile(fired, 99))
	return pass, st, nil
}

func (r *timerRun) firedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, t := range r.fired {
		if !t.IsZero() {
			n++
		}
	}
	return n
}

// latencies are, sorted, how long after its due time (or from, when the
// clock started running after it) each of at came; r.mu is held.
func (r *timerRun) latencies(at []time.Time, from time.Time) []time.Duration {
	out := make([]time.Duration, 0, len(at))
	for i, t := range at {
		if t.IsZero() {
			continue
		}
		due := r.due[i]
		if due.Before(from) {
			due = from
		}
		out = append(out, max(t.Sub(due), 0))
	}
	slices.Sort(out)
	if len(out) == 0 {
		out = append(out, 0)
	}
	return out
}

// startCPUProfile profiles this process's CPU into the file at path until
// stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// liveHeapMiB is the live heap after a collection, in MiB.
func liveHeapMiB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

func (res *timerResults) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "timers on %s: %d conversations, each waiting on one (set up in %s), GOMAXPROCS %d\n", res.DB, res.Conversations, seconds(res.SetupS), res.GOMAXPROCS)
	s := res.Startup
	fmt.Fprintf(tw, "start-up\topen %.1f ms, service %.1f ms\tfirst look %.1f ms\tready %.1f ms\tlive heap %.1f MiB (%.1f before)\n", s.OpenMs, s.ServiceMs, s.FirstLookMs, s.ReadyMs, s.HeapMiB, s.HeapBaseMiB)
	for _, p := range []struct {
		name string
		p    *timerPass
	}{{"all at once", res.AllAtOnce}, {fmt.Sprintf("paced %g/s", res.Paced.Rate), res.Paced}} {
		fmt.Fprintf(tw, "%s\t%d in %s (%.0f/s)\tfired p50 %.1f ms p99 %.1f ms\tturn ran again p50 %.1f ms p99 %.1f ms max %.1f ms\tCPU %.0f µs each\n",
			p.name, p.p.Fired, seconds(p.p.ElapsedS), p.p.PerSecond, p.p.FiredP50ms, p.p.FiredP99ms, p.p.WokeP50ms, p.p.WokeP99ms, p.p.WokeMaxMs, p.p.CPUus)
	}
	return tw.Flush()
}

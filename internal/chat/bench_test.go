package chat_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The benchmarks in this file drive the service the way the web server does,
// on a real SQLite file: a page is open (a Subscription), the user answers
// the question the agent waits on, and the time that counts is until the
// agent's next question is recorded durably and shown as pending on the
// page. Each benchmark reports its own metrics; ns/op is the time of one
// iteration, which is a batch of operations, not one.

// benchAnswer is the form the benchmark agent asks the user to fill in.
type benchAnswer struct {
	Answer string `json:"answer"`
}

var benchForm = elicit.Form[benchAnswer]()

// benchAgent asks as many questions as the message that starts its turn
// says, one after another, each through a form, as an agent that gathers
// answers in a loop does.
var benchAgent = agents.Assistant{
	Name:        "asker",
	Description: "Asks questions in a loop.",
	Turn: func(ctx context.Context, message string) (string, error) {
		n, err := strconv.Atoi(message)
		if err != nil {
			return "", err
		}
		for i := range n {
			if _, err := turn.Ask(ctx, benchForm, "Question "+strconv.Itoa(i+1)+": what comes to mind?", struct{}{}); err != nil {
				return "", err
			}
		}
		return "Thanks.", nil
	},
}

// benchQuestions starts a turn that asks more questions than any benchmark
// answers, so the turn is always waiting on the next one.
const benchQuestions = "1000000000"

// benchWait bounds every wait for the service, so a broken benchmark fails
// instead of hanging.
const benchWait = time.Minute

// benchEnv is one run of the service on a database file.
type benchEnv struct {
	path string
	db   *store.DB
	svc  *chat.Service
}

// openBenchEnv opens the database at path with durability d and starts a
// service with the benchmark agent on it.
func openBenchEnv(path string, d store.Durability) (*benchEnv, error) {
	return openBenchEnvWith(path, d, chat.Config{})
}

// openBenchEnvWith is openBenchEnv with the service configured by cfg, whose
// Store, Agents and Model it sets.
func openBenchEnvWith(path string, d store.Durability, cfg chat.Config) (*benchEnv, error) {
	db, err := store.Open(context.Background(), path, store.Options{Durability: d})
	if err != nil {
		return nil, err
	}
	cfg.Store, cfg.Assistants, cfg.Model = db, registry.New(benchAgent), offline.New()
	return &benchEnv{path: path, db: db, svc: chat.New(cfg)}, nil
}

// mustOpenBenchEnv is openBenchEnv that fails b, closing the service when
// the benchmark ends.
func mustOpenBenchEnv(b *testing.B, path string, d store.Durability) *benchEnv {
	b.Helper()
	e, err := openBenchEnv(path, d)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.shutdown)
	return e
}

// shutdown stops the service's turns and closes the database; calling it
// again does nothing.
func (e *benchEnv) shutdown() {
	if e.svc != nil {
		e.svc.Close()
		e.db.Close()
		e.svc, e.db = nil, nil
	}
}

// fileMB returns the size of the database file and of its write-ahead log,
// in MB (10⁶ bytes).
func (e *benchEnv) fileMB() (db, wal float64) {
	size := func(p string) float64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return float64(fi.Size()) / 1e6
	}
	return size(e.path), size(e.path + "-wal")
}

// benchConv is a conversation of the benchmark agent with a page open on
// it and a question pending.
type benchConv struct {
	session, id string
	sub         *feed.Follower
	pending     string // the id of the elicit waiting for an answer
}

// startConv creates a conversation for session, opens its page, starts the
// agent's turn and waits until its first question is pending.
func (e *benchEnv) startConv(ctx context.Context, session string) (*benchConv, error) {
	conv, err := e.svc.Create(ctx, session, benchAgent.Name)
	if err != nil {
		return nil, err
	}
	sub, _, err := e.svc.Subscribe(ctx, session, conv.ID)
	if err != nil {
		return nil, err
	}
	c := &benchConv{session: session, id: conv.ID, sub: sub}
	if err := e.svc.Send(ctx, session, conv.ID, benchQuestions); err != nil {
		sub.Close()
		return nil, err
	}
	if c.pending, err = awaitPending(ctx, sub, ""); err != nil {
		sub.Close()
		return nil, err
	}
	return c, nil
}

// answer answers the pending question with content and waits until the
// next question is pending, returning how long that took.
func (c *benchConv) answer(ctx context.Context, svc *chat.Service, content []byte) (time.Duration, error) {
	start := time.Now()
	if err := svc.Answer(ctx, c.session, c.id, c.pending, chat.Answer{Action: elicit.Accept, Content: content}); err != nil {
		return 0, err
	}
	next, err := awaitPending(ctx, c.sub, c.pending)
	if err != nil {
		return 0, err
	}
	c.pending = next
	return time.Since(start), nil
}

// awaitPending takes changes from sub until a question other than not is
// appended as pending (or, after a resync, shows as pending), and returns
// its id. The change is broadcast only after the question's node is
// committed, so a pending question is a durable one.
func awaitPending(ctx context.Context, sub *feed.Follower, not string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, benchWait)
	defer cancel()
	for {
		u, err := sub.Next(ctx)
		changes, resync := u.Changes, u.Resync
		if err != nil {
			return "", fmt.Errorf("waiting for the next question: %w", err)
		}
		if resync != nil {
			if id := pendingID(*resync); id != "" && id != not {
				return id, nil
			}
			continue
		}
		for _, c := range changes {
			if c.New && c.Item != nil && c.Item.Elicit != nil && c.Item.Elicit.State == pageview.Pending && c.Item.Elicit.Request.ID != not {
				return c.Item.Elicit.Request.ID, nil
			}
		}
	}
}

// pendingID returns the id of the question the view shows as pending, or "".
func pendingID(v pageview.View) string {
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.State == pageview.Pending {
			return it.Elicit.Request.ID
		}
	}
	return ""
}

// benchContent encodes text as the content of an accepted benchAnswer.
func benchContent(text string) []byte {
	return []byte(`{"answer":"` + text + `"}`)
}

// randomText returns n letters drawn from r: text that neither compresses
// nor repeats across answers.
func randomText(r *rand.Rand, n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// quantile returns quantile q (0 < q ≤ 1) of d by nearest rank; d is
// sorted in place.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	k := int(math.Ceil(q*float64(len(d)))) - 1
	return d[min(max(k, 0), len(d)-1)]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func millis(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// benchDurabilities are the store's durability levels, named as the store
// names them (process-crash, power-loss).
var benchDurabilities = []store.Durability{store.CrashSafe, store.PowerSafe}

// BenchmarkResume measures the round trip of one answer: from calling Answer
// until the agent's next question is committed and pending on the page.
// Alone, one conversation answers 200 questions per iteration, one after
// another. Back to back, 100 conversations do the same at once, 20 each,
// each from its own goroutine, so that the service is never idle: their
// latency is the queue's (Little's law: 100 conversations over the answers
// per second). In bursts, 100 conversations answer one question each at the
// same instant, as 100 users who press submit together, and wait for all 100
// next questions before the next burst; 20 bursts per iteration. Paced,
// conversations answer as people do, each after a pause of its own once its
// question shows (drawn at random, so that answers arrive independently of
// each other), at so many answers per second over all of them: one
// conversation at five a second, where the service is idle between answers,
// 50 answers per iteration, and 100 at 1,000 and 5,000 a second, 20 answers
// each. Before timing, every conversation answers a few questions untimed
// and without pauses, so that the figures are of a service that has warmed
// up. p50-µs and p99-µs are per answer; cpu-µs/answer is the process's
// CPU time, user and system, over the timed rounds divided by the answers
// they made: the service's work for an answer and the benchmark's own
// (a page that reads the change), whichever goroutine or core did it.
func BenchmarkResume(b *testing.B) {
	for _, d := range benchDurabilities {
		b.Run(string(d), func(b *testing.B) {
			b.Run("conversations=1", func(b *testing.B) { benchResume(b, d, 1, 1, 200, 0) })
			b.Run("conversations=100", func(b *testing.B) { benchResume(b, d, 100, 1, 20, 0) })
			b.Run("burst=100", func(b *testing.B) { benchResume(b, d, 100, 20, 1, 0) })
			b.Run("paced=1/per-s=5", func(b *testing.B) { benchResume(b, d, 1, 1, 50, 5) })
			for _, rate := range []int{1000, 5000} {
				b.Run(fmt.Sprintf("paced=100/per-s=%d", rate), func(b *testing.B) { benchResume(b, d, 100, 1, 20, rate) })
			}
		})
	}
}

// resumeWarmUp is how many questions each conversation of BenchmarkResume
// answers before timing starts.
const resumeWarmUp = 20

// benchResume runs BenchmarkResume for n conversations, which per
// iteration run rounds rounds of perConv answers each; a round starts for
// all of them at once and ends when all are done. With a rate (answers
// per second over all conversations), each conversation pauses before each
// answer for a time drawn from an exponential distribution with a mean of
// n/rate seconds; with none, it answers as soon as its question shows.
func benchResume(b *testing.B, d store.Durability, n, rounds, perConv, rate int) {
	ctx := context.Background()
	e := mustOpenBenchEnv(b, filepath.Join(b.TempDir(), "resume.db"), d)
	convs := make([]*benchConv, n)
	for i := range convs {
		c, err := e.startConv(ctx, "session-"+strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		defer c.sub.Close()
		convs[i] = c
	}
	content := benchContent("yes")
	lat := make([][]time.Duration, n)
	errs := make([]error, n)
	round := func(answers int, timed bool) {
		pace := rate
		if !timed {
			pace = 0
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, c := range convs {
			wg.Go(func() {
				think := newThinker(pace, n, uint64(i))
				<-start
				for range answers {
					think.pause()
					took, err := c.answer(ctx, e.svc, content)
					if err != nil {
						errs[i] = err
						return
					}
					if timed {
						lat[i] = append(lat[i], took)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
	}
	round(resumeWarmUp, false)
	var busy, cpu time.Duration // the time answers were under way, and the CPU they took, over all rounds
	for b.Loop() {
		for range rounds {
			t0, c0 := time.Now(), processCPU()
			round(perConv, true)
			busy += time.Since(t0)
			cpu += processCPU() - c0
		}
	}
	all := slices.Concat(lat...)
	b.ReportMetric(micros(quantile(all, 0.50)), "p50-µs")
	b.ReportMetric(micros(quantile(all, 0.99)), "p99-µs")
	b.ReportMetric(float64(len(all))/busy.Seconds(), "answers/s")
	if processCPU() >= 0 {
		b.ReportMetric(micros(cpu)/float64(len(all)), "cpu-µs/answer")
	}
}

// thinker paces one conversation of a paced benchmark: the pause of a
// person between seeing a question and answering it. The pause is a load
// generator's schedule, not a wait for the service, which is awaited on
// its own condition (awaitPending).
type thinker struct {
	mean time.Duration // zero: no pause
	r    *rand.Rand
}

// newThinker paces one of n conversations that together answer rate times
// a second; a rate of zero means no pause.
func newThinker(rate, n int, seed uint64) *thinker {
	if rate <= 0 {
		return &thinker{}
	}
	return &thinker{mean: time.Second * time.Duration(n) / time.Duration(rate), r: rand.New(rand.NewPCG(seed, 7))}
}

func (t *thinker) pause() {
	if t.mean > 0 {
		time.Sleep(time.Duration(t.r.ExpFloat64() * float64(t.mean)))
	}
}

// BenchmarkHistoryGrowth answers historyAnswers questions of one
// conversation with 1 KiB of text each and compares the round trip of an
// answer early and late in the conversation: the median of answers 1–10
// (at10-µs), 91–100 (at100-µs) and 491–500 (at500-µs), and at500 over
// at10 (growth-x). Each iteration does that historyRuns times, each on a
// database of its own, and the medians are over all of them: a background
// checkpoint, which comes every hundred answers or so whatever the
// history, falls in ten answers of one run, not of every one. MB is the
// database file and its write-ahead log after the last answer of the last
// run; db-MB and wal-MB are the two apart. closed-MB is the database once
// closed, when the log has been copied into it and removed: what the
// conversation takes to keep. Before each run, a conversation on another
// database answers historyWarmUp questions, so that the first window does
// not measure a cold process.
func BenchmarkHistoryGrowth(b *testing.B) {
	const historyAnswers, historyWarmUp, historyRuns = 500, 50, 3
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	byAnswer := make([][]time.Duration, historyAnswers) // round trips of the k-th answer, over iterations
	var dbMB, walMB, closedMB float64
	for i := 0; b.Loop(); i++ {
		for run := range historyRuns {
			b.StopTimer()
			// Warm the process up on another database first, so that the early
			// answers measure a short history and not a cold process.
			w, err := openBenchEnv(filepath.Join(b.TempDir(), fmt.Sprintf("warm-%d-%d.db", i, run)), store.CrashSafe)
			if err != nil {
				b.Fatal(err)
			}
			warm, err := w.startConv(ctx, "warm-up")
			if err != nil {
				b.Fatal(err)
			}
			for range historyWarmUp {
				if _, err := warm.answer(ctx, w.svc, benchContent(randomText(r, 1024))); err != nil {
					b.Fatal(err)
				}
			}
			warm.sub.Close()
			w.shutdown()
			e, err := openBenchEnv(filepath.Join(b.TempDir(), fmt.Sprintf("history-%d-%d.db", i, run)), store.CrashSafe)
			if err != nil {
				b.Fatal(err)
			}
			c, err := e.startConv(ctx, "session")
			if err != nil {
				b.Fatal(err)
			}
			contents := make([][]byte, historyAnswers)
			for k := range contents {
				contents[k] = benchContent(randomText(r, 1024))
			}
			b.StartTimer()
			for k, content := range contents {
				took, err := c.answer(ctx, e.svc, content)
				if err != nil {
					b.Fatalf("answer %d: %v", k+1, err)
				}
				byAnswer[k] = append(byAnswer[k], took)
			}
			b.StopTimer()
			dbMB, walMB = e.fileMB()
			c.sub.Close()
			e.shutdown()
			closedMB, _ = e.fileMB()
			b.StartTimer()
		}
	}
	window := func(from, to int) time.Duration { // answers from..to, counted from 1
		return quantile(slices.Concat(byAnswer[from-1:to]...), 0.50)
	}
	at10, at100, at500 := window(1, 10), window(91, 100), window(491, 500)
	b.ReportMetric(micros(at10), "at10-µs")
	b.ReportMetric(micros(at100), "at100-µs")
	b.ReportMetric(micros(at500), "at500-µs")
	b.ReportMetric(float64(at500)/float64(at10), "growth-x")
	b.ReportMetric(dbMB+walMB, "MB")
	b.ReportMetric(dbMB, "db-MB")
	b.ReportMetric(walMB, "wal-MB")
	b.ReportMetric(closedMB, "closed-MB")
}

// BenchmarkColdStart measures what a restart costs. open: opening a
// database whose migrations are applied and building a service on it.
// rehydrate: on a service just started, the first Answer to a
// conversation that was suspended on a question when the last one
// stopped, until the next question is pending; that loads the
// conversation and replays its turn, whose record holds the given number
// of answered questions. Each iteration measures coldStartsPerIter starts
// on fresh copies of the same database file (the copy is not timed; the
// file is in the OS page cache, so "cold" means a new process, not a
// cold disk).
func BenchmarkColdStart(b *testing.B) {
	const coldStartsPerIter = 20
	ctx := context.Background()

	// snapshot prepares a closed database holding one conversation
	// suspended on a question after answered answers.
	snapshot := func(b *testing.B, answered int) (path string, conv benchConv) {
		b.Helper()
		path = filepath.Join(b.TempDir(), "snapshot.db")
		e, err := openBenchEnv(path, store.CrashSafe)
		if err != nil {
			b.Fatal(err)
		}
		defer e.shutdown()
		c, err := e.startConv(ctx, "session")
		if err != nil {
			b.Fatal(err)
		}
		defer c.sub.Close()
		for range answered {
			if _, err := c.answer(ctx, e.svc, benchContent("an answer")); err != nil {
				b.Fatal(err)
			}
		}
		return path, *c
	}

	b.Run("open", func(b *testing.B) {
		src, _ := snapshot(b, 10)
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			for j := range coldStartsPerIter {
				b.StopTimer()
				path := copyDB(b, src, fmt.Sprintf("open-%d-%d.db", i, j))
				b.StartTimer()
				start := time.Now()
				e, err := openBenchEnv(path, store.CrashSafe)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				b.StopTimer()
				e.shutdown()
				b.StartTimer()
			}
		}
		b.ReportMetric(millis(quantile(lat, 0.50)), "p50-ms")
		b.ReportMetric(millis(quantile(lat, 0.99)), "p99-ms")
	})

	for _, answered := range []int{10, 500} {
		b.Run("rehydrate/answered="+strconv.Itoa(answered), func(b *testing.B) {
			src, conv := snapshot(b, answered)
			content := benchContent("the answer after a restart")
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				for j := range coldStartsPerIter {
					b.StopTimer()
					e, err := openBenchEnv(copyDB(b, src, fmt.Sprintf("rehydrate-%d-%d.db", i, j)), store.CrashSafe)
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					took, err := rehydrate(ctx, e.svc, conv, content)
					if err != nil {
						b.Fatal(err)
					}
					lat = append(lat, took)
					b.StopTimer()
					e.shutdown()
					b.StartTimer()
				}
			}
			b.ReportMetric(millis(quantile(lat, 0.50)), "p50-ms")
			b.ReportMetric(millis(quantile(lat, 0.99)), "p99-ms")
		})
	}
}

// rehydrate answers conv's pending question as the first request to a
// service that has not loaded it, and returns how long it took until the
// next question was pending. The page opens after the answer, as a browser
// would reload it, so that the answer is what loads the conversation.
func rehydrate(ctx context.Context, svc *chat.Service, conv benchConv, content []byte) (time.Duration, error) {
	start := time.Now()
	if err := svc.Answer(ctx, conv.session, conv.id, conv.pending, chat.Answer{Action: elicit.Accept, Content: content}); err != nil {
		return 0, err
	}
	sub, v, err := svc.Subscribe(ctx, conv.session, conv.id)
	if err != nil {
		return 0, err
	}
	defer sub.Close()
	if id := pendingID(v); id == "" || id == conv.pending {
		if _, err := awaitPending(ctx, sub, conv.pending); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// copyDB copies the closed database file src (with its write-ahead log, if
// one was left) to a new file named name in b's temporary directory.
func copyDB(b testing.TB, src, name string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), name)
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(src + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return dst
}

// BenchmarkIdleConversations starts idleConversations conversations, each
// waiting on a pending question, closes every page, and measures what they
// keep while they wait: goroutines, live heap and goroutine stack per
// conversation, after a garbage collection. setup-s is how long starting
// them took. The service suspends a turn nobody watches (here at once,
// Config.SuspendAfter 0; after a minute by default), so what remains is what
// the service keeps besides the database.
func BenchmarkIdleConversations(b *testing.B) {
	const idleConversations, workers = 10_000, 8
	ctx := context.Background()
	var goroutines, heap, stack, setup float64
	for i := 0; b.Loop(); i++ {
		e, err := openBenchEnvWith(filepath.Join(b.TempDir(), "idle-"+strconv.Itoa(i)+".db"), store.CrashSafe,
			chat.Config{SuspendAfter: new(time.Duration(0))})
		if err != nil {
			b.Fatal(err)
		}
		g0, m0 := settledMemory()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for w := range workers {
			wg.Go(func() {
				for k := w; k < idleConversations; k += workers {
					c, err := e.startConv(ctx, "session-"+strconv.Itoa(k))
					if err != nil {
						errs[w] = err
						return
					}
					c.sub.Close()
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
		for deadline := time.Now().Add(benchWait); e.svc.Loaded() > 0 || goruntime.NumGoroutine() > g0; {
			if time.Now().After(deadline) {
				b.Fatalf("%d conversations still loaded, %d goroutines (%d before)", e.svc.Loaded(), goruntime.NumGoroutine(), g0)
			}
			time.Sleep(time.Millisecond) // polling a condition with a deadline
		}
		for deadline := time.Now().Add(benchWait); e.svc.Loaded() > 0 || goruntime.NumGoroutine() > g0; {
			if time.Now().After(deadline) {
				b.Fatalf("%d conversations still loaded, %d goroutines (%d before)", e.svc.Loaded(), goruntime.NumGoroutine(), g0)
			}
			time.Sleep(time.Millisecond) // polling a condition with a deadline
		}
		setup = time.Since(start).Seconds()
		g1, m1 := settledMemory()
		goroutines = float64(g1-g0) / idleConversations
		heap = (float64(m1.HeapAlloc) - float64(m0.HeapAlloc)) / idleConversations
		stack = (float64(m1.StackInuse) - float64(m0.StackInuse)) / idleConversations
		b.StopTimer()
		e.shutdown()
		b.StartTimer()
	}
	b.ReportMetric(goroutines, "goroutines/conv")
	b.ReportMetric(heap, "heap-B/conv")
	b.ReportMetric(stack, "stack-B/conv")
	b.ReportMetric(setup, "setup-s")
}

// settledMemory collects garbage and returns the number of goroutines and
// the memory statistics after it.
func settledMemory() (int, goruntime.MemStats) {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return goruntime.NumGoroutine(), m
}

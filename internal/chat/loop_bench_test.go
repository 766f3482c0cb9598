package chat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/llm"
)

// loopSizes are the loop lengths, in tool-calling steps, that the loop
// benchmarks and the loop storage test run: the 20, 100 and 200.
var loopSizes = []int{20, 100, 200}

// stepModel drives a loop for steps steps: it calls the tool "step" until
// it has that many results, then asks the user a yes/no through ask_user,
// then answers. It notes when each of its calls began and ended, so the
// time between them — the loop's own — can be told from its.
type stepModel struct {
	steps int
	mu    sync.Mutex
	spans [][2]time.Time
}

func (*stepModel) Name() string { return "steps" }

func (m *stepModel) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	start := time.Now()
	results := 0
	for _, msg := range req.Messages {
		if msg.Role == llm.Tool {
			results++
		}
	}
	var resp llm.Response
	switch {
	case results < m.steps:
		resp = llm.Response{FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", results), Name: "step", Arguments: fmt.Sprintf(`{"n":%d}`, results)}}}
	case results == m.steps:
		resp = llm.Response{FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{{ID: "ask", Name: agents.AskUserTool, Arguments: `{"question":"Carry on?","kind":"confirm"}`}}}
	default:
		resp = llm.Response{Content: "Done.", FinishReason: "stop"}
	}
	m.mu.Lock()
	m.spans = append(m.spans, [2]time.Time{start, time.Now()})
	m.mu.Unlock()
	return resp, nil
}

// gaps returns the time between the end of each call and the start of the
// next, and forgets the calls.
func (m *stepModel) gaps() []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(m.spans); i++ {
		out = append(out, m.spans[i][0].Sub(m.spans[i-1][1]))
	}
	m.spans = nil
	return out
}

// calls returns how many calls the model answered.
func (m *stepModel) calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.spans)
}

type stepInput struct {
	N int `json:"n"`
}

// loopAssistant is a model-driven assistant with one tool, whose loop is
// long enough for steps steps.
func loopAssistant(steps int) agents.Assistant {
	a := agents.New("stepper", "Takes steps")
	agents.NewTool(a, "step", "Take a step", func(_ context.Context, in stepInput) (int, error) { return in.N + 1, nil })
	return agents.Assistant{Name: "looper", Turn: agents.Loop{Agents: []*agents.Agent{a}, AskUser: true, MaxSteps: steps + 3}.Turn}
}

// openLoopEnv starts a service with the loop assistant and model on the
// database at path.
func openLoopEnv(tb testing.TB, path string, model *stepModel) *benchEnv {
	tb.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Durability: store.CrashSafe})
	if err != nil {
		tb.Fatal(err)
	}
	e := &benchEnv{path: path, db: db, svc: chat.New(chat.Config{Store: db, Assistants: registry.New(loopAssistant(model.steps)), Model: model})}
	tb.Cleanup(e.shutdown)
	return e
}

// runLoopTurn starts a loop turn and waits until it asks its question;
// it returns the conversation and the question's id.
func runLoopTurn(ctx context.Context, tb testing.TB, svc *chat.Service) benchConv {
	tb.Helper()
	conv, err := svc.Create(ctx, "session", "looper")
	if err != nil {
		tb.Fatal(err)
	}
	sub, _, err := svc.Subscribe(ctx, "session", conv.ID)
	if err != nil {
		tb.Fatal(err)
	}
	defer sub.Close()
	if err := svc.Send(ctx, "session", conv.ID, "go"); err != nil {
		tb.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, benchWait)
	defer cancel()
	eid, err := awaitPending(wctx, sub, "")
	if err != nil {
		tb.Fatal(err)
	}
	return benchConv{session: "session", id: conv.ID, pending: eid}
}

// loopBytes runs loops loops of steps steps, each up to its question, on
// a database that already holds one, and returns the bytes each added to
// the database file, and the gaps between model calls of the loops'
// steps. The file is measured closed, its write-ahead log checkpointed
// into it, so the figure is what the loops cost on disk, indexes and
// pages' slack included.
func loopBytes(tb testing.TB, dir string, steps, loops int) (perLoop float64, gaps []time.Duration) {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, fmt.Sprintf("loop-%d.db", steps))
	model := &stepModel{steps: steps}
	e := openLoopEnv(tb, path, model)
	runLoopTurn(ctx, tb, e.svc) // the tables' first pages are not the loops'
	e.shutdown()
	before := closedSize(tb, path)
	e = openLoopEnv(tb, path, model)
	model.gaps()
	for range loops {
		runLoopTurn(ctx, tb, e.svc)
		gaps = append(gaps, model.gaps()[:steps]...) // the gaps after each tool step
	}
	e.shutdown()
	return float64(closedSize(tb, path)-before) / float64(loops), gaps
}

// closedSize is the size of the closed database at path, which must have
// no write-ahead log left.
func closedSize(tb testing.TB, path string) int64 {
	tb.Helper()
	if _, err := os.Stat(path + "-wal"); err == nil {
		if fi, _ := os.Stat(path + "-wal"); fi.Size() > 0 {
			tb.Fatalf("the closed database %s left a write-ahead log of %d bytes", path, fi.Size())
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// BenchmarkLoop measures the agent loop's own cost at 20, 100 and 200
// steps, model time excluded: the time from the end of one model call to
// the start of the next, which holds the record of the call, the tool's
// run and its record, and the bytes a loop adds to the database file
// (step/steps=N); and the replay of a loop after a restart, from the
// answer to its question until the loop's answer (replay/steps=N). Each
// iteration runs enough loops, and replays, for its percentiles to mean
// something at -benchtime 1x, as make bench runs it.
func BenchmarkLoop(b *testing.B) {
	ctx := context.Background()
	for _, steps := range loopSizes {
		b.Run(fmt.Sprintf("step/steps=%d", steps), func(b *testing.B) {
			loops := max(2, 400/steps) // 400 steps or more an iteration
			var gaps []time.Duration
			var bytes float64
			n := 0
			for b.Loop() {
				per, g := loopBytes(b, b.TempDir(), steps, loops)
				gaps = append(gaps, g...)
				bytes += per
				n++
			}
			b.ReportMetric(micros(quantile(gaps, 0.50)), "p50-µs")
			b.ReportMetric(micros(quantile(gaps, 0.99)), "p99-µs")
			b.ReportMetric(bytes/float64(n)/1e3, "KB/loop")
		})
	}
	for _, steps := range loopSizes {
		b.Run(fmt.Sprintf("replay/steps=%d", steps), func(b *testing.B) {
			const replays = 5 // an iteration's
			src := filepath.Join(b.TempDir(), "snapshot.db")
			e := openLoopEnv(b, src, &stepModel{steps: steps})
			conv := runLoopTurn(ctx, b, e.svc)
			e.shutdown()
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				for j := range replays {
					model := &stepModel{steps: steps}
					e := openLoopEnv(b, copyDB(b, src, fmt.Sprintf("replay-%d-%d.db", i, j)), model)
					start := time.Now()
					if err := e.svc.Answer(ctx, conv.session, conv.id, conv.pending, accept(`{"yes":true}`)); err != nil {
						b.Fatal(err)
					}
					if err := awaitEnd(ctx, e.svc, conv); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
					if n := model.calls(); n != 1 {
						b.Fatalf("the replay called the model %d times, want once (the call after the answer)", n)
					}
					e.shutdown()
				}
			}
			b.ReportMetric(millis(quantile(lat, 0.50)), "p50-ms")
			b.ReportMetric(millis(quantile(lat, 0.99)), "p99-ms")
		})
	}
}

// awaitEnd waits until conv's turn has ended.
func awaitEnd(ctx context.Context, svc *chat.Service, conv benchConv) error {
	sub, v, err := svc.Subscribe(ctx, conv.session, conv.id)
	if err != nil {
		return err
	}
	defer sub.Close()
	wctx, cancel := context.WithTimeout(ctx, benchWait)
	defer cancel()
	for v.Status.Running {
		u, err := sub.Next(wctx)
		changes, resync := u.Changes, u.Resync
		if err != nil {
			return err
		}
		if resync != nil {
			v = *resync
		}
		for _, c := range changes {
			if c.Status != nil {
				v.Status = *c.Status
			}
		}
	}
	return nil
}

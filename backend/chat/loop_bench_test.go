package chat_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/store"
)

// loopSteps is how many tool-calling steps the loop benchmarks run.
const loopSteps = 20

// stepModel drives a loop for loopSteps steps: it calls the tool "step"
// until it has that many results, then asks the user a yes/no through
// ask_user, then answers. It notes when each of its calls began and ended,
// so the time between them — the loop's own — can be told from its.
type stepModel struct {
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
	case results < loopSteps:
		resp = llm.Response{FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", results), Name: "step", Arguments: fmt.Sprintf(`{"n":%d}`, results)}}}
	case results == loopSteps:
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

type stepInput struct {
	N int `json:"n"`
}

// loopAssistant is a model-driven assistant with one tool.
func loopAssistant() agents.Assistant {
	a := agents.New("stepper", "Takes steps")
	agents.NewTool(a, "step", "Take a step", func(_ context.Context, in stepInput) (int, error) { return in.N + 1, nil })
	return agents.Assistant{Name: "looper", Turn: agents.Loop{Agents: []*agents.Agent{a}, AskUser: true, MaxSteps: loopSteps + 3}.Turn}
}

// openLoopEnv starts a service with the loop assistant and model on the
// database at path.
func openLoopEnv(b *testing.B, path string, model *stepModel) *benchEnv {
	b.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Durability: store.CrashSafe})
	if err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{path: path, db: db, svc: chat.New(chat.Config{Store: db, Assistants: agents.NewRegistry(loopAssistant()), Model: model})}
	b.Cleanup(e.shutdown)
	return e
}

// runLoopTurn starts a loop turn and waits until it asks its question;
// it returns the conversation and the question's id.
func runLoopTurn(ctx context.Context, b *testing.B, svc *chat.Service) benchConv {
	b.Helper()
	conv, err := svc.Create(ctx, "session", "looper")
	if err != nil {
		b.Fatal(err)
	}
	sub, _, err := svc.Subscribe(ctx, "session", conv.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	if err := svc.Send(ctx, "session", conv.ID, "go"); err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, benchWait)
	defer cancel()
	eid, err := awaitPending(wctx, sub, "")
	if err != nil {
		b.Fatal(err)
	}
	return benchConv{session: "session", id: conv.ID, pending: eid}
}

// BenchmarkLoop measures the agent loop's own cost, model time excluded:
// the time from the end of one model call to the start of the next, which
// holds the record of the call, the tool's run and its record (step); and
// the replay of a 20-step loop after a restart, from the answer to its
// question until the loop's answer (replay).
func BenchmarkLoop(b *testing.B) {
	ctx := context.Background()
	b.Run("step", func(b *testing.B) {
		model := &stepModel{}
		e := openLoopEnv(b, filepath.Join(b.TempDir(), "loop.db"), model)
		var gaps []time.Duration
		for b.Loop() {
			runLoopTurn(ctx, b, e.svc)
			g := model.gaps()
			gaps = append(gaps, g[:loopSteps]...) // the gaps after each tool step
		}
		b.ReportMetric(micros(quantile(gaps, 0.50)), "p50-µs")
		b.ReportMetric(micros(quantile(gaps, 0.99)), "p99-µs")
	})
	b.Run(fmt.Sprintf("replay/steps=%d", loopSteps), func(b *testing.B) {
		src := filepath.Join(b.TempDir(), "snapshot.db")
		e := openLoopEnv(b, src, &stepModel{})
		conv := runLoopTurn(ctx, b, e.svc)
		e.shutdown()
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			model := &stepModel{}
			e := openLoopEnv(b, copyDB(b, src, fmt.Sprintf("replay-%d.db", i)), model)
			b.StartTimer()
			start := time.Now()
			if err := e.svc.Answer(ctx, conv.session, conv.id, conv.pending, accept(`{"yes":true}`)); err != nil {
				b.Fatal(err)
			}
			if err := awaitEnd(ctx, e.svc, conv); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
			b.StopTimer()
			if n := len(model.spans); n != 1 {
				b.Fatalf("the replay called the model %d times, want once (the call after the answer)", n)
			}
			e.shutdown()
			b.StartTimer()
		}
		b.ReportMetric(millis(quantile(lat, 0.50)), "p50-ms")
		b.ReportMetric(millis(quantile(lat, 0.99)), "p99-ms")
	})
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

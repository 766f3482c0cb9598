package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The scenario of BenchmarkMCPSessions: benchSessions MCP sessions at
// once, each making benchCalls calls one after another per run, after
// benchWarmUp untimed ones.
const (
	benchSessions = 100
	benchCalls    = 20
	benchWarmUp   = 3
	benchTool     = "bench.ask"
)

// BenchmarkMCPSessions measures a tool call that asks the client one
// question, over Streamable HTTP on loopback, with 100 MCP sessions
// calling at once: each session calls the tool, answers its
// elicitation/create at once, waits for the result and calls again. Two
// servers are measured side by side, in the same run, each run of one
// followed by a run of the other:
//
//   - durable: this package's handler (mcp.Handler) serving an agent's tool
//     that asks with turn.Ask; each call is a turn of the session's
//     conversation in a real SQLite file, and the streams' events are kept
//     there (Config.Events);
//   - plain: the SDK's handler and server, whose tool handler calls
//     req.Session.Elicit; nothing is kept.
//
// Two ways: saturated, each session calling again as soon as it has its
// result, so that the servers are as busy as they can be (their capacity,
// and latency that is mostly queueing); and paced=200/s, each session
// pausing before each call for an exponentially distributed time whose
// mean makes all of them together call 200 times a second (many clients
// at once, not one server's limit).
//
// A call's time runs from the client's answer (its elicitation handler
// returning) to the tool's result in the client's hands. Both clocks are
// this process's; the clients run in it too, on the same cores. Reported
// per server: p50-ms and p99-ms of that time, and, saturated, calls/s,
// the calls completed per second of the timed runs; p50-ratio is durable's
// p50 over plain's; durable-commits/call and durable-ms/commit are the
// durable server's writes to its database per call and how long each
// writer waited for its commit. Run it with -benchtime 1x or more.
func BenchmarkMCPSessions(b *testing.B) {
	b.Run("saturated", func(b *testing.B) { benchSessionsAt(b, 0) })
	b.Run("paced=200/s", func(b *testing.B) { benchSessionsAt(b, 200) })
}

// benchSessionsAt runs BenchmarkMCPSessions at rate calls a second over
// all sessions, or as fast as they go for 0.
func benchSessionsAt(b *testing.B, rate float64) {
	var commits commitCounter
	servers := []struct {
		name string
		url  string
	}{{"durable", durableBenchServer(b, &commits)}, {"plain", plainBenchServer(b)}}
	ctx := context.Background()
	fleets := make([]*benchFleet, len(servers))
	for i, s := range servers {
		f, err := connectFleet(ctx, s.url, benchSessions)
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		defer f.close()
		if _, _, err := f.run(ctx, benchWarmUp, 0); err != nil {
			b.Fatalf("%s, warming up: %v", s.name, err)
		}
		fleets[i] = f
	}
	lat := make([][]time.Duration, len(servers))
	busy := make([]time.Duration, len(servers))
	var n, waited int64
	for b.Loop() {
		for i, f := range fleets {
			before, beforeWaited := commits.n.Load(), commits.waited.Load()
			got, took, err := f.run(ctx, benchCalls, rate)
			if err != nil {
				b.Fatalf("%s: %v", servers[i].name, err)
			}
			lat[i] = append(lat[i], got...)
			busy[i] += took
			if i == 0 {
				n += commits.n.Load() - before
				waited += commits.waited.Load() - beforeWaited
			}
		}
	}
	for i, s := range servers {
		b.ReportMetric(benchMillis(lat[i], 0.50), s.name+"-p50-ms")
		b.ReportMetric(benchMillis(lat[i], 0.99), s.name+"-p99-ms")
		if rate == 0 { // a paced run calls at the rate it was given
			b.ReportMetric(float64(len(lat[i]))/busy[i].Seconds(), s.name+"-calls/s")
		}
	}
	b.ReportMetric(benchMillis(lat[0], 0.50)/benchMillis(lat[1], 0.50), "p50-ratio")
	b.ReportMetric(float64(n)/float64(len(lat[0])), "durable-commits/call")
	b.ReportMetric(float64(waited)/1e6/float64(n), "durable-ms/commit")
}

// commitCounter counts the durable server's writes and the time their
// callers waited for them to commit (store.Options.Committed).
type commitCounter struct {
	n, waited atomic.Int64
}

func (c *commitCounter) committed(d time.Duration) {
	c.n.Add(1)
	c.waited.Add(int64(d))
}

// durableBenchServer serves the agent tool that asks once, as the
// program's /mcp does, and returns its URL; commits hears of each write.
func durableBenchServer(b *testing.B, commits *commitCounter) string {
	a := agents.New("bench", "Asks once.")
	agents.NewTool(a, "ask", "Asks the user's name and greets them", func(ctx context.Context, _ struct{}) (greetOut, error) {
		r, err := turn.Ask(ctx, nameForm, "What is your name?", struct{}{})
		if err != nil {
			return greetOut{}, err
		}
		if r.Action != elicit.Accept {
			return greetOut{}, fmt.Errorf("the question was answered %s", r.Action)
		}
		return greetOut{Text: "Hello, " + r.Content.Name}, nil
	})
	tools := mcp.NewTools(a)
	db := storetest.Open(b, store.Options{Committed: commits.committed})
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	b.Cleanup(svc.Close)
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: chat.NewSessionID(), Events: db, Name: "sweatpants-bench", Version: "bench"})
	ts := httptest.NewServer(mcp.Handler(srv, "", nil))
	b.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}

// plainBenchServer serves the same tool with the SDK alone, kept in no
// store, and returns its URL.
func plainBenchServer(b *testing.B) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "plain-bench", Version: "bench"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"friend"}}}`)
	s.AddTool(&sdk.Tool{Name: benchTool, Description: "Asks the user's name and greets them", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: "What is your name?", RequestedSchema: schema})
			if err != nil {
				return nil, err
			}
			if res.Action != "accept" {
				return nil, fmt.Errorf("the question was answered %s", res.Action)
			}
			out, err := json.Marshal(greetOut{Text: fmt.Sprint("Hello, ", res.Content["name"])})
			if err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	b.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}

// benchFleet is the sessions of one server.
type benchFleet struct {
	sessions []*benchSession
}

// benchSession is one MCP client session; answered is when its
// elicitation handler last answered (Unix nanoseconds).
type benchSession struct {
	cs       *sdk.ClientSession
	answered atomic.Int64
}

// connectFleet connects n sessions to the server at url, over one HTTP
// client whose connections are kept for reuse (every session holds its
// standalone stream open and makes its calls on another).
func connectFleet(ctx context.Context, url string, n int) (*benchFleet, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * n, MaxIdleConnsPerHost: 4 * n}}
	f := &benchFleet{}
	for range n {
		s := &benchSession{}
		c := sdk.NewClient(&sdk.Implementation{Name: "bench-client", Version: "1"}, &sdk.ClientOptions{
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				defer func() { s.answered.Store(time.Now().UnixNano()) }()
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bea"}}, nil
			},
		})
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			f.close()
			return nil, fmt.Errorf("connect session %d: %w", len(f.sessions), err)
		}
		s.cs = cs
		f.sessions = append(f.sessions, s)
	}
	return f, nil
}

func (f *benchFleet) close() {
	for _, s := range f.sessions {
		s.cs.Close()
	}
}

// run has every session make calls calls, all sessions at once, at rate
// calls a second over all of them (0: each as soon as the one before is
// done), and returns each call's time from answer to result and how long
// the run took.
func (f *benchFleet) run(ctx context.Context, calls int, rate float64) ([]time.Duration, time.Duration, error) {
	lat := make([][]time.Duration, len(f.sessions))
	errs := make([]error, len(f.sessions))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range f.sessions {
		wg.Go(func() {
			think := rand.New(rand.NewPCG(uint64(i), 1))
			<-start
			for range calls {
				if rate > 0 {
					time.Sleep(time.Duration(think.ExpFloat64() * float64(len(f.sessions)) / rate * float64(time.Second)))
				}
				res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: benchTool, Arguments: map[string]any{}})
				done := time.Now()
				if err == nil && (res.IsError || text(res) != `{"text":"Hello, Bea"}`) {
					err = fmt.Errorf("result %q", text(res))
				}
				if err != nil {
					errs[i] = fmt.Errorf("session %d: %w", i, err)
					return
				}
				lat[i] = append(lat[i], done.Sub(time.Unix(0, s.answered.Load())))
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	return slices.Concat(lat...), time.Since(t0), errors.Join(errs...)
}

// benchMillis is the q-quantile of d in milliseconds.
func benchMillis(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return float64(s[min(max(k, 0), len(s)-1)].Nanoseconds()) / 1e6
}

//go:build unix

package transport

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// tokensProfile, when set, is where BenchmarkTokenStream writes the CPU
// profile of each sub-benchmark's last run, for go tool pprof: to this
// path with ".per-conv=N" added. (The benchmark takes the profile itself,
// so -cpuprofile cannot be used with it.)
var tokensProfile = flag.String("tokens.profile", "", "write BenchmarkTokenStream's CPU profiles to this path, with .per-conv=N added")

// The token stream's scenario: tokenConversations conversations with the
// general assistant, each asking tokenReplies questions one after another;
// every reply is the markdown of tokenReply, streamed token by token.
const (
	tokenConversations = 100
	tokenReplies       = 3
)

// BenchmarkTokenStream measures what a model's streaming costs the page: a
// fake OpenAI-compatible model, in this process, streams replies into 100
// conversations at once, and each conversation's page stream (GET
// /c/:id/stream) is read as a browser reads it. The conversations start
// one after another, spread over the length of one reply, and each asks
// its next question as soon as the page shows the previous reply done, so
// that all of them stream at once for most of the run.
//
// A token's delay runs from the moment the model has written it to the
// arrival of the first event on its page's stream that shows it; both
// clocks are this process's. Every token carries its number (see
// markedTokens), which is how a reader tells which tokens an event shows.
// The benchmark fails unless every reply ends on the page as exactly the
// markdown rendering of the model's text.
//
// The server's CPU comes from a CPU profile of the run: the benchmark's
// own goroutines (the model and the readers) carry a profiler label, and
// every sample without it is the server's; markdown's share is the share
// of those samples with package markdown on their stack.
//
// Sub-benchmarks are named by the tokens per second each conversation
// streams: per-conv=50 is 5,000 tokens a second in all. Run it with
// -benchtime 1x; -tokens.profile writes the profile.
func BenchmarkTokenStream(b *testing.B) {
	if testing.Short() {
		b.Skip("streams replies into 100 conversations for about half a minute")
	}
	for _, perConv := range []int{50, 500} {
		b.Run(fmt.Sprintf("conversations=%d/per-conv=%d", tokenConversations, perConv), func(b *testing.B) {
			benchTokens(b, tokenConversations, perConv)
		})
	}
}

func benchTokens(b *testing.B, conversations, perConv int) {
	interval := time.Second / time.Duration(perConv)
	script := newTokenScript(tokenReplies)
	model := newPacedModel(script, conversations, interval)
	// The model serves from goroutines labelled as the benchmark's, so that
	// its work is not counted as the server's.
	pprof.Do(context.Background(), benchSide, func(context.Context) {
		model.srv = httptest.NewServer(model)
	})
	defer model.srv.Close()
	a := newTestAppWith(b, chat.Config{
		Assistants: registry.New(demo.Agents(demo.Options{AssistantFirst: true})...),
		Kinds:      kindset.New(demo.Kinds()...),
		Model:      openai.New(openai.Config{APIKey: "bench", BaseURL: model.srv.URL + "/v1", Model: "bench"}),
		// The middleware package app gives every turn.
		Scope: func(ctx context.Context) context.Context {
			return sampling.Budget(sampling.RepairJSON(sampling.RedactPII(ctx)), sampling.Limits{Calls: 40})
		},
	})

	var runs []*tokenRun
	for b.Loop() {
		var run *tokenRun
		var err error
		pprof.Do(context.Background(), benchSide, func(ctx context.Context) {
			run, err = runTokens(ctx, a.srv.URL, conversations, script, model, interval)
			if err == nil && *tokensProfile != "" {
				err = os.WriteFile(fmt.Sprintf("%s.per-conv=%d", *tokensProfile, perConv), run.profile, 0o644)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, run)
	}
	reportTokens(b, runs)
}

// benchSide labels the benchmark's own goroutines in its CPU profile.
var benchSide = pprof.Labels("side", "bench")

// tokenRun is what one run measured.
type tokenRun struct {
	delays  []time.Duration // per token, from the model to the page
	tokens  int
	elapsed time.Duration // from the first question to the last reply done
	events  int64         // events the page streams carried in the window
	bytes   int64         // and their bytes
	cpu     cpuSplit
	rusage  time.Duration // the process's CPU over the window
	profile []byte        // the CPU profile of the window
}

// runTokens runs the scenario once against the server at base: it sets up
// every conversation with its stream open, then starts them one after
// another and waits for every reply to be done and exact.
func runTokens(ctx context.Context, base string, conversations int, script *tokenScript, model *pacedModel, interval time.Duration) (*tokenRun, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	model.reset()
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 2 * conversations,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()

	pages := make([]*tokenPage, conversations)
	for i := range pages {
		p, err := openTokenPage(ctx, base, tr, i, script)
		if err != nil {
			return nil, fmt.Errorf("conversation %d: %w", i, err)
		}
		defer p.close()
		pages[i] = p
	}

	profBuf := &bytes.Buffer{}
	profiling := pprof.StartCPUProfile(profBuf) == nil
	cpu0 := processCPU()
	t0 := time.Now()
	// Conversation i starts i/n of a reply's length after the first, so
	// that the tokens of all of them together come at an even pace.
	spread := time.Duration(len(script.replies[0].tokens)) * interval / time.Duration(len(pages))
	var wg sync.WaitGroup
	for i, p := range pages {
		wg.Go(func() {
			if err := p.converse(ctx, t0.Add(time.Duration(i)*spread)); err != nil {
				cancel(fmt.Errorf("conversation %d: %w", i, err))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	cpu := processCPU() - cpu0
	if profiling {
		pprof.StopCPUProfile()
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}

	run := &tokenRun{elapsed: elapsed, rusage: cpu}
	for _, p := range pages {
		run.events += p.events.Load()
		run.bytes += p.bytes.Load()
		for seq := range script.tokens {
			sent, got := model.sent[p.n][seq].Load(), p.got[seq].Load()
			switch {
			case sent == 0:
				return nil, fmt.Errorf("conversation %d: the model never sent token %d", p.n, seq)
			case got == 0:
				return nil, fmt.Errorf("conversation %d: the page never showed token %d", p.n, seq)
			}
			run.delays = append(run.delays, time.Duration(got-sent))
		}
	}
	run.tokens = len(run.delays)
	if profiling {
		run.profile = bytes.Clone(profBuf.Bytes())
		p, err := profile.Parse(profBuf)
		if err != nil {
			return nil, fmt.Errorf("read the CPU profile: %w", err)
		}
		run.cpu = splitCPU(p)
	}
	return run, nil
}

// reportTokens reports the delays of all runs, and the CPU of the last.
func reportTokens(b *testing.B, runs []*tokenRun) {
	var delays []time.Duration
	for _, r := range runs {
		delays = append(delays, r.delays...)
	}
	slices.Sort(delays)
	last := runs[len(runs)-1]
	secs := last.elapsed.Seconds()
	b.ReportMetric(benchMillis(delays, 0.50), "p50-ms")
	b.ReportMetric(benchMillis(delays, 0.99), "p99-ms")
	b.ReportMetric(benchMillis(delays, 1), "max-ms")
	b.ReportMetric(float64(last.tokens)/secs, "tokens/s")
	b.ReportMetric(float64(last.events)/float64(last.tokens), "events/token")
	b.ReportMetric(float64(last.bytes)/1e6/secs, "stream-MB/s")
	b.ReportMetric(last.rusage.Seconds()/secs, "process-cores")
	if c := last.cpu; c.total > 0 {
		// The profile misses some of the CPU the process used; its samples
		// give the server's share of what the process used.
		server := last.rusage.Seconds() * float64(c.server) / float64(c.total)
		b.ReportMetric(server/secs, "server-cores")
		b.ReportMetric(server*1e6/float64(last.tokens), "server-µs/token")
		b.ReportMetric(server*1e6/float64(last.tokens)*float64(c.markdown)/float64(c.server), "markdown-µs/token")
		b.ReportMetric(100*float64(c.markdown)/float64(c.server), "markdown-%")
		b.ReportMetric(100*float64(c.gcWorkers)/float64(c.server), "gc-workers-%")
	} else {
		b.Log("no CPU profile (is -cpuprofile set?): the server's CPU and markdown's share are not measured")
	}
}

// benchMillis is the q quantile of sorted d in milliseconds.
func benchMillis(d []time.Duration, q float64) float64 {
	return benchMicros(d, q) / 1e3
}

// processCPU returns the CPU time, user and system, this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuSplit divides a CPU profile's time between the benchmark and the
// server, and within the server's, markdown's and the garbage collector's
// background workers'.
type cpuSplit struct {
	total, server, markdown, gcWorkers time.Duration
}

// markdownPkg prefixes the functions of package markdown in a profile.
const markdownPkg = "github.com/sweatpants-go/sweatpants/internal/markdown."

// splitCPU reads p, a CPU profile of a run whose benchmark goroutines carry
// benchSide's label. Samples without it are the server's, the runtime's
// background work (garbage collection) included, though part of that is
// the benchmark's; markdown's samples are those with package markdown on
// their stack, which counts the garbage collection markdown's allocations
// make it assist with, not the background workers' share.
func splitCPU(p *profile.Profile) cpuSplit {
	cpu := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "cpu" })
	var s cpuSplit
	if cpu < 0 {
		return s
	}
	for _, smp := range p.Sample {
		v := time.Duration(smp.Value[cpu])
		s.total += v
		if slices.Contains(smp.Label["side"], "bench") {
			continue
		}
		s.server += v
		switch {
		case onStack(smp, func(fn string) bool { return strings.HasPrefix(fn, markdownPkg) }):
			s.markdown += v
		case onStack(smp, func(fn string) bool { return fn == "runtime.gcBgMarkWorker" }):
			s.gcWorkers += v
		}
	}
	return s
}

// onStack reports whether a function of smp's stack satisfies is.
func onStack(smp *profile.Sample, is func(fn string) bool) bool {
	for _, loc := range smp.Location {
		for _, line := range loc.Line {
			if line.Function != nil && is(line.Function.Name) {
				return true
			}
		}
	}
	return false
}

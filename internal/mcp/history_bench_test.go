package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scenario of BenchmarkMCPHistory: one session's calls are timed after
// historyShort earlier calls, and again after historyLong, historyTimed
// calls each time.
const (
	historyShort = 3
	historyLong  = 600
	historyTimed = 30
)

// BenchmarkMCPHistory measures whether a call costs more as its session's
// history grows: one MCP session alone calls the tool that asks once
// (BenchmarkMCPSessions' tool), historyTimed calls timed after 3 earlier
// calls in the session and historyTimed more after 600. Each call of the
// durable server is a turn of the session's one conversation, so a call
// whose cost follows the conversation's length shows here; the plain go-sdk
// server, measured in the same run, keeps nothing and is flat.
//
// Reported per server and history: call-ms, the p50 of a whole tools/call
// (the request sent to the result in hand, the question answered on the
// way), and answer-ms, the p50 from the client's answer to the result;
// growth is durable's call-ms after 600 over after 3 (target ≤ 1.2), and
// answer-ratio durable's answer-ms over plain's after 600 (target ≤ 1.5).
// Run it with -benchtime 1x.
func BenchmarkMCPHistory(b *testing.B) {
	ctx := context.Background()
	var commits commitCounter
	servers := []struct {
		name string
		url  string
	}{{"durable", durableBenchServer(b, &commits)}, {"plain", plainBenchServer(b)}}
	sessions := make([]*benchSession, len(servers))
	for i, s := range servers {
		f, err := connectFleet(ctx, s.url, 1)
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		defer f.close()
		sessions[i] = f.sessions[0]
	}
	type figures struct{ call, answer []time.Duration }
	var short, long [2]figures
	for b.Loop() {
		for i, s := range sessions {
			made := 0
			call := func(timed *figures) {
				t0 := time.Now()
				res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: benchTool, Arguments: map[string]any{}})
				done := time.Now()
				if err == nil && (res.IsError || text(res) != `{"text":"Hello, Bea"}`) {
					err = fmt.Errorf("result %q", text(res))
				}
				if err != nil {
					b.Fatalf("%s, call %d: %v", servers[i].name, made, err)
				}
				made++
				if timed != nil {
					timed.call = append(timed.call, done.Sub(t0))
					timed.answer = append(timed.answer, done.Sub(time.Unix(0, s.answered.Load())))
				}
			}
			for made < historyShort {
				call(nil)
			}
			for range historyTimed {
				call(&short[i])
			}
			for made < historyLong {
				call(nil)
			}
			for range historyTimed {
				call(&long[i])
			}
		}
	}
	for i, s := range servers {
		b.ReportMetric(benchMillis(short[i].call, 0.5), fmt.Sprintf("%s-call-ms@%d", s.name, historyShort))
		b.ReportMetric(benchMillis(long[i].call, 0.5), fmt.Sprintf("%s-call-ms@%d", s.name, historyLong))
		b.ReportMetric(benchMillis(long[i].answer, 0.5), fmt.Sprintf("%s-answer-ms@%d", s.name, historyLong))
	}
	b.ReportMetric(benchMillis(long[0].call, 0.5)/benchMillis(short[0].call, 0.5), "growth")
	b.ReportMetric(benchMillis(long[0].answer, 0.5)/benchMillis(long[1].answer, 0.5), "answer-ratio")
}

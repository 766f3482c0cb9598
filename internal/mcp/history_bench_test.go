package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scenario of BenchmarkMCPHistory: two sessions of a server take turns
// calling, historyTimed timed calls each, one after historyShort earlier
// calls in it, the other after historyLong.
const (
	historyShort = 3
	historyLong  = 600
	historyTimed = 50
)

// BenchmarkMCPHistory measures whether a call costs more as its session's
// history grows. Two MCP sessions of each server call the tool that asks
// once (BenchmarkMCPSessions' tool): one after 3 earlier calls, the other
// after 600, taking turns call by call, historyTimed calls each, so that
// both are timed under the same load of the machine. Each call of the
// durable server is a turn of its session's one conversation, so a call
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
	// sessions[i] are server i's: the short history's, then the long one's.
	sessions := make([][2]*benchSession, len(servers))
	for i, s := range servers {
		f, err := connectFleet(ctx, s.url, 2)
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		defer f.close()
		sessions[i] = [2]*benchSession{f.sessions[0], f.sessions[1]}
	}
	type figures struct{ call, answer []time.Duration }
	var timed [2][2]figures // by server, then history
	call := func(i int, s *benchSession, fig *figures) {
		t0 := time.Now()
		res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: benchTool, Arguments: map[string]any{}})
		done := time.Now()
		if err == nil && (res.IsError || text(res) != `{"text":"Hello, Bea"}`) {
			err = fmt.Errorf("result %q", text(res))
		}
		if err != nil {
			b.Fatalf("%s: %v", servers[i].name, err)
		}
		if fig != nil {
			fig.call = append(fig.call, done.Sub(t0))
			fig.answer = append(fig.answer, done.Sub(time.Unix(0, s.answered.Load())))
		}
	}
	for i := range servers {
		for range historyShort {
			call(i, sessions[i][0], nil)
		}
		for range historyLong {
			call(i, sessions[i][1], nil)
		}
	}
	for b.Loop() {
		for range historyTimed {
			for i := range servers {
				for h := range 2 {
					call(i, sessions[i][h], &timed[i][h])
				}
			}
		}
	}
	for i, s := range servers {
		b.ReportMetric(benchMillis(timed[i][0].call, 0.5), fmt.Sprintf("%s-call-ms@%d", s.name, historyShort))
		b.ReportMetric(benchMillis(timed[i][1].call, 0.5), fmt.Sprintf("%s-call-ms@%d", s.name, historyLong))
		b.ReportMetric(benchMillis(timed[i][1].answer, 0.5), fmt.Sprintf("%s-answer-ms@%d", s.name, historyLong))
	}
	b.ReportMetric(benchMillis(timed[0][1].call, 0.5)/benchMillis(timed[0][0].call, 0.5), "growth")
	b.ReportMetric(benchMillis(timed[0][1].answer, 0.5)/benchMillis(timed[1][1].answer, 0.5), "answer-ratio")
}

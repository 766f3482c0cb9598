package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"text/tabwriter"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest sample such that at least p percent of
// the samples are no larger. It returns 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// ms converts d to milliseconds rounded to three decimals (microseconds).
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// results is what one bench run measured.
type results struct {
	Mode           string  `json:"mode"`                // modePaced or modeSaturated
	Transport      string  `json:"transport,omitempty"` // -mode transports: the transport measured
	Pacing         *pacing `json:"pacing,omitempty"`
	Conversations  int     `json:"conversations"`
	Rounds         int     `json:"rounds"`
	RoundTrips     int     `json:"round_trips"`
	P50ms          float64 `json:"p50_ms"`
	P90ms          float64 `json:"p90_ms"`
	P99ms          float64 `json:"p99_ms"`
	MaxMs          float64 `json:"max_ms"`
	TimedSeconds   float64 `json:"timed_seconds"`
	RoundTripsPerS float64 `json:"round_trips_per_second"`
	ServerPeakRSS  int64   `json:"server_peak_rss_bytes"`
	ServerCPUs     float64 `json:"server_cpu_seconds"`
	BenchCPUs      float64 `json:"bench_cpu_seconds"`
	DBBytes        int64   `json:"db_bytes"`
	WALBytes       int64   `json:"wal_bytes"`
	Durability     string  `json:"durability"`
	DB             string  `json:"db"`    // dbSQLite or dbPostgres
	Nodes          int     `json:"nodes"` // servers on the database
	Cross          bool    `json:"cross"` // answers went to another node than the stream's
	PostgresCPUs   float64 `json:"postgres_cpu_seconds,omitempty"`
	GOMAXPROCS     int     `json:"gomaxprocs"`
	NumCPU         int     `json:"num_cpu"`
}

// pacing describes a paced run's pace: the rate it aimed at and the rate
// it kept while every conversation was still answering, which is the
// window in which the aim holds. Once the first conversation is done the
// others answer at their own unchanged pace, so fewer answers a second
// arrive in total towards the end.
type pacing struct {
	TargetRate     float64 `json:"target_answers_per_second"`
	MeanThinkS     float64 `json:"mean_think_seconds"`
	Seed           uint64  `json:"seed"`
	AchievedRate   float64 `json:"achieved_answers_per_second"`
	AllActiveS     float64 `json:"all_answering_seconds"`
	AllActiveCount int     `json:"all_answering_answers"`
}

// achieve fills in the achieved rate from the times the answers were sent
// in a timed phase that began at start and in which the first browser to
// finish did so at firstDone.
func (p *pacing) achieve(sent []time.Time, start, firstDone time.Time) {
	window := firstDone.Sub(start)
	n := 0
	for _, t := range sent {
		if t.Before(firstDone) {
			n++
		}
	}
	p.AllActiveS, p.AllActiveCount = secs(window), n
	if window > 0 {
		p.AchievedRate = math.Round(float64(n)/window.Seconds()*10) / 10
	}
}

// collector gathers what every browser measures in the timed phase.
type collector struct {
	mu        sync.Mutex
	samples   []time.Duration // round trip latencies
	sent      []time.Time     // when each answer was sent
	firstDone time.Time       // when the first browser finished its rounds
}

func newCollector(capacity int) *collector {
	return &collector{samples: make([]time.Duration, 0, capacity), sent: make([]time.Time, 0, capacity)}
}

// record adds the round trip of an answer sent at sent that took d.
func (c *collector) record(sent time.Time, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples = append(c.samples, d)
	c.sent = append(c.sent, sent)
}

// finished notes that a browser finished its rounds at t.
func (c *collector) finished(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.firstDone.IsZero() || t.Before(c.firstDone) {
		c.firstDone = t
	}
}

// count returns how many round trips have been recorded.
func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.samples)
}

// summarize fills in the latency figures and throughput from the samples of
// a timed phase that lasted elapsed.
func (r *results) summarize(samples []time.Duration, elapsed time.Duration) {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	r.RoundTrips = len(sorted)
	r.P50ms = ms(percentile(sorted, 50))
	r.P90ms = ms(percentile(sorted, 90))
	r.P99ms = ms(percentile(sorted, 99))
	r.MaxMs = ms(percentile(sorted, 100))
	r.TimedSeconds = secs(elapsed)
	if elapsed > 0 {
		r.RoundTripsPerS = math.Round(float64(len(sorted))/elapsed.Seconds()*10) / 10
	}
}

// writeJSON prints r as one JSON object on one line.
func (r *results) writeJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

// writeText prints r as aligned "name  value" lines.
func (r *results) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(name, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t%s\n", name, fmt.Sprintf(format, args...))
	}
	if p := r.Pacing; p != nil {
		line("mode", "paced (open loop)")
		line("target rate", "%.1f answers/s in total (think time exponential, mean %.3f s, seed %d)", p.TargetRate, p.MeanThinkS, p.Seed)
		line("achieved rate", "%.1f answers/s while all %d conversations answered (first %.3f s, %d answers)",
			p.AchievedRate, r.Conversations, p.AllActiveS, p.AllActiveCount)
	} else if r.Mode != "" {
		line("mode", "%s", r.Mode+" (closed loop: each answer as soon as its question arrives)")
	}
	if r.Transport != "" {
		line("transport", "%s", transportNames[r.Transport])
	}
	line("conversations", "%d", r.Conversations)
	line("rounds", "%d", r.Rounds)
	line("round trips", "%d", r.RoundTrips)
	line("latency p50", "%.3f ms", r.P50ms)
	line("latency p90", "%.3f ms", r.P90ms)
	line("latency p99", "%.3f ms", r.P99ms)
	line("latency max", "%.3f ms", r.MaxMs)
	line("timed phase", "%.3f s", r.TimedSeconds)
	line("throughput", "%.1f round trips/s over the timed phase", r.RoundTripsPerS)
	line("server peak RSS", "%s", mib(r.ServerPeakRSS))
	line("server CPU", "%s (whole life)", seconds(r.ServerCPUs))
	line("bench CPU", "%s (whole run)", seconds(r.BenchCPUs))
	if r.DB == dbPostgres {
		line("database", "%s (PostgreSQL: the schema's tables, indexes and TOAST)", mib(r.DBBytes))
		line("PostgreSQL CPU", "%s (its backends, whole run)", seconds(r.PostgresCPUs))
		where := "each browser answers on its stream's node"
		if r.Cross {
			where = "cross: each browser answers on the next node, which forwards to its stream's"
		}
		line("nodes", "%d (%s)", r.Nodes, where)
	} else {
		line("database", "%s (db %s + wal %s)", mib(r.DBBytes+r.WALBytes), mib(r.DBBytes), mib(r.WALBytes))
	}
	line("durability", "%s", r.Durability)
	line("GOMAXPROCS/NumCPU", "%d/%d", r.GOMAXPROCS, r.NumCPU)
	return tw.Flush()
}

// writeBothJSON prints a paced and a saturated run's results as one JSON
// object on one line, under the keys "paced" and "saturated".
func writeBothJSON(w io.Writer, paced, saturated *results) error {
	return json.NewEncoder(w).Encode(struct {
		Paced     *results `json:"paced"`
		Saturated *results `json:"saturated"`
	}{paced, saturated})
}

// writeBothText prints a paced and a saturated run's results as two blocks,
// each under a heading that says what it measured.
func writeBothText(w io.Writer, paced, saturated *results) error {
	fmt.Fprintf(w, "== paced (open loop): %d conversations open, %.1f answers/s in total ==\n",
		paced.Conversations, paced.Pacing.TargetRate)
	if err := paced.writeText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== saturated (closed loop): %d conversations, each answering as soon as its question arrives ==\n",
		saturated.Conversations)
	return saturated.writeText(w)
}

// mib formats a byte count in MiB, or "unknown" when negative.
func mib(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// seconds formats a duration in seconds, or "unknown" when negative.
func seconds(s float64) string {
	if s < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.3f s", s)
}

// secs converts d to seconds rounded to milliseconds, keeping -1 for
// unknown.
func secs(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return math.Round(d.Seconds()*1000) / 1000
}

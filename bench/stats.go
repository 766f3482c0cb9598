package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
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
	GOMAXPROCS     int     `json:"gomaxprocs"`
	NumCPU         int     `json:"num_cpu"`
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
	line("conversations", "%d", r.Conversations)
	line("rounds", "%d", r.Rounds)
	line("round trips", "%d", r.RoundTrips)
	line("latency p50", "%.3f ms", r.P50ms)
	line("latency p90", "%.3f ms", r.P90ms)
	line("latency p99", "%.3f ms", r.P99ms)
	line("latency max", "%.3f ms", r.MaxMs)
	line("timed phase", "%.3f s", r.TimedSeconds)
	line("throughput", "%.1f round trips/s", r.RoundTripsPerS)
	line("server peak RSS", "%s", mib(r.ServerPeakRSS))
	line("server CPU", "%s (whole life)", seconds(r.ServerCPUs))
	line("bench CPU", "%s (whole run)", seconds(r.BenchCPUs))
	line("database", "%s (db %s + wal %s)", mib(r.DBBytes+r.WALBytes), mib(r.DBBytes), mib(r.WALBytes))
	line("durability", "%s", r.Durability)
	line("GOMAXPROCS/NumCPU", "%d/%d", r.GOMAXPROCS, r.NumCPU)
	return tw.Flush()
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

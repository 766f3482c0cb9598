package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var sorted []time.Duration
	for i := 1; i <= 100; i++ {
		sorted = append(sorted, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{
		{50, 50 * time.Millisecond},
		{90, 90 * time.Millisecond},
		{99, 99 * time.Millisecond},
		{99.5, 100 * time.Millisecond},
		{100, 100 * time.Millisecond},
		{0.1, 1 * time.Millisecond},
	} {
		if got := percentile(sorted, tc.p); got != tc.want {
			t.Errorf("percentile(1..100 ms, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
	one := []time.Duration{7}
	if percentile(one, 1) != 7 || percentile(one, 100) != 7 {
		t.Error("a single sample is every percentile")
	}
}

func TestSummarize(t *testing.T) {
	var r results
	samples := []time.Duration{3 * time.Millisecond, 1234567 * time.Nanosecond, 2 * time.Millisecond, 10 * time.Millisecond}
	r.summarize(samples, 2*time.Second)
	if r.RoundTrips != 4 || r.P50ms != 2 || r.P90ms != 10 || r.MaxMs != 10 || r.RoundTripsPerS != 2 || r.TimedSeconds != 2 {
		t.Fatalf("summarize = %+v", r)
	}
	if samples[0] != 3*time.Millisecond {
		t.Fatal("summarize reordered the caller's samples")
	}
	if got := ms(1234567 * time.Nanosecond); got != 1.235 {
		t.Fatalf("ms(1.234567ms) = %v, want 1.235", got)
	}
}

func TestOutput(t *testing.T) {
	r := results{Conversations: 2, Rounds: 3, DBBytes: 1 << 20, WALBytes: 1 << 19, ServerPeakRSS: -1, Durability: "power-loss", GOMAXPROCS: 2, NumCPU: 4}
	r.summarize([]time.Duration{time.Millisecond, 2 * time.Millisecond}, time.Second)

	var text bytes.Buffer
	if err := r.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"latency p99        2.000 ms\n",
		"database           1.5 MiB (db 1.0 MiB + wal 0.5 MiB)\n",
		"server peak RSS    unknown\n",
		"GOMAXPROCS/NumCPU  2/4\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := r.writeJSON(&js); err != nil {
		t.Fatal(err)
	}
	if strings.Count(js.String(), "\n") != 1 {
		t.Errorf("JSON output is not one line: %q", js.String())
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["round_trips"] != 2.0 || back["durability"] != "power-loss" || back["p50_ms"] != 1.0 {
		t.Errorf("JSON output = %s", js.String())
	}
	if strings.Contains(text.String(), "nodes") || strings.Contains(text.String(), "PostgreSQL") {
		t.Errorf("a SQLite run's text output speaks of nodes or PostgreSQL:\n%s", text.String())
	}
}

// TestOutputOnACluster says a PostgreSQL run's engine, nodes, where the
// answers went and PostgreSQL's own CPU, in text and in JSON.
func TestOutputOnACluster(t *testing.T) {
	r := results{Conversations: 2, Rounds: 1, DBBytes: 3 << 20, DB: dbPostgres, Nodes: 3, Cross: true, PostgresCPUs: 1.5,
		Durability: "PostgreSQL fsync=on, synchronous_commit=on"}
	var text bytes.Buffer
	if err := r.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"database           3.0 MiB (PostgreSQL: the schema's tables, indexes and TOAST)\n",
		"PostgreSQL CPU     1.500 s (its backends, whole run)\n",
		"nodes              3 (cross: each browser answers on the next node, which forwards to its stream's)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := r.writeJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["db"] != "postgres" || back["nodes"] != 3.0 || back["cross"] != true || back["postgres_cpu_seconds"] != 1.5 {
		t.Errorf("JSON output = %s", js.String())
	}
}

func TestConversationID(t *testing.T) {
	for loc, want := range map[string]string{
		"/c/abc123":                   "abc123",
		"http://127.0.0.1:1/c/abc123": "abc123",
	} {
		if got, err := conversationID(loc); err != nil || got != want {
			t.Errorf("conversationID(%q) = %q, %v; want %q", loc, got, err, want)
		}
	}
	for _, bad := range []string{"", "/", "/c/", "/c/a/b", "/x/abc"} {
		if got, err := conversationID(bad); err == nil {
			t.Errorf("conversationID(%q) = %q, want an error", bad, got)
		}
	}
}

func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := parseFlags([]string{"-bin", "x", "-durability", "power-loss", "-json"}, &stderr)
	if err != nil || cfg.conversations != 1000 || cfg.rounds != 20 || !cfg.json || cfg.timeout != 5*time.Minute {
		t.Fatalf("parseFlags = %+v, %v", cfg, err)
	}
	if cfg.mode != modeBoth || cfg.rate != 200 || cfg.seed != 1 || !slices.Equal(cfg.plan(), []float64{200, 0}) {
		t.Fatalf("defaults: mode %q, rate %v, seed %d, plan %v; want both, 200, 1, [200 0]", cfg.mode, cfg.rate, cfg.seed, cfg.plan())
	}
	for _, tc := range []struct {
		args []string
		mode string
		rate float64
		seed uint64
		plan []float64
	}{
		{[]string{"-bin", "x", "-mode", "paced", "-rate", "50", "-seed", "9"}, modePaced, 50, 9, []float64{50}},
		{[]string{"-bin", "x", "-mode", "saturate"}, modeSaturate, 200, 1, []float64{0}},
		{[]string{"-bin", "x", "-rate", "0"}, modeSaturate, 0, 1, []float64{0}},
		{[]string{"-bin", "x", "-mode", "saturate", "-rate", "0"}, modeSaturate, 0, 1, []float64{0}},
		{[]string{"-bin", "x", "-rate", "12.5"}, modeBoth, 12.5, 1, []float64{12.5, 0}},
	} {
		cfg, err := parseFlags(tc.args, &stderr)
		if err != nil || cfg.mode != tc.mode || cfg.rate != tc.rate || cfg.seed != tc.seed || !slices.Equal(cfg.plan(), tc.plan) {
			t.Errorf("parseFlags(%q) = mode %q, rate %v, seed %d, plan %v, %v; want %q, %v, %d, %v",
				tc.args, cfg.mode, cfg.rate, cfg.seed, cfg.plan(), err, tc.mode, tc.rate, tc.seed, tc.plan)
		}
	}
	for _, args := range [][]string{
		{},
		{"-bin", "x", "-durability", "sometimes"},
		{"-bin", "x", "-rounds", "0"},
		{"-bin", "x", "extra"},
		{"-bin", "x", "-mode", "sometimes"},
		{"-bin", "x", "-mode", "paced", "-rate", "0"},
		{"-bin", "x", "-mode", "both", "-rate", "0"},
		{"-bin", "x", "-rate", "-1"},
		{"-bin", "x", "-rate", "NaN"},
		{"-bin", "x", "-rate", "+Inf"},
		{"-bin", "x", "-seed", "-1"},
	} {
		if _, err := parseFlags(args, &stderr); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
}

func TestBothOutput(t *testing.T) {
	paced := &results{Mode: modePaced, Conversations: 1000, Rounds: 20,
		Pacing: &pacing{TargetRate: 200, MeanThinkS: 5, Seed: 1, AchievedRate: 199.5, AllActiveS: 45.2, AllActiveCount: 9017}}
	saturated := &results{Mode: modeSaturated, Conversations: 1000, Rounds: 20}

	var text bytes.Buffer
	if err := writeBothText(&text, paced, saturated); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		"== paced (open loop): 1000 conversations open, 200.0 answers/s in total ==\n",
		"mode               paced (open loop)\n",
		"target rate        200.0 answers/s in total (think time exponential, mean 5.000 s, seed 1)\n",
		"achieved rate      199.5 answers/s while all 1000 conversations answered (first 45.200 s, 9017 answers)\n",
		"\n== saturated (closed loop): 1000 conversations, each answering as soon as its question arrives ==\n",
		"mode               saturated (closed loop: each answer as soon as its question arrives)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "== paced") > strings.Index(out, "== saturated") {
		t.Error("the saturated block comes before the paced one")
	}

	var js bytes.Buffer
	if err := writeBothJSON(&js, paced, saturated); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Paced     map[string]any `json:"paced"`
		Saturated map[string]any `json:"saturated"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	pace, _ := back.Paced["pacing"].(map[string]any)
	if back.Paced["mode"] != "paced" || pace["achieved_answers_per_second"] != 199.5 || pace["target_answers_per_second"] != 200.0 {
		t.Errorf("paced JSON = %v", back.Paced)
	}
	if back.Saturated["mode"] != "saturated" || back.Saturated["pacing"] != nil {
		t.Errorf("saturated JSON = %v", back.Saturated)
	}
}

func TestReport(t *testing.T) {
	one := []*results{{Mode: modeSaturated, Conversations: 3}}
	var js bytes.Buffer
	if err := report(&js, true, one); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back["conversations"] != 3.0 {
		t.Errorf("one run's JSON = %s, %v; want its results at the top level", js.String(), err)
	}
}

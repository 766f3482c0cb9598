package main

import (
	"bytes"
	"encoding/json"
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
	for _, args := range [][]string{
		{},
		{"-bin", "x", "-durability", "sometimes"},
		{"-bin", "x", "-rounds", "0"},
		{"-bin", "x", "extra"},
	} {
		if _, err := parseFlags(args, &stderr); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
}

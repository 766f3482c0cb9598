package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
)

// -mode timers runs no binary and counts 10,000 timers unless told; it
// needs a rate for its paced run, and one node.
func TestTimersFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := parseFlags([]string{"-mode", "timers"}, &stderr)
	if err != nil || cfg.conversations != 10000 || cfg.rate != 200 || cfg.bin != "" {
		t.Fatalf("parseFlags(-mode timers) = %+v, %v; want 10,000 timers at 200/s, no binary", cfg, err)
	}
	for _, args := range [][]string{
		{"-mode", "timers", "-rate", "0"},
		{"-mode", "timers", "-db", "postgres", "-nodes", "2"},
	} {
		if _, err := parseFlags(args, &stderr); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	if _, err := parseFlags([]string{"-mode", "paced"}, &stderr); err == nil {
		t.Error("-mode paced without -bin accepted")
	}
}

// A small timers run fires every timer in both passes, each turn running
// again once, and reports it.
func TestTimersRun(t *testing.T) {
	cfg := config{mode: modeTimers, conversations: 40, rate: 400, json: true, timeout: time.Minute, setupParallel: 8, db: dbSQLite, nodes: 1}
	var out, stderr bytes.Buffer
	if err := runTimers(context.Background(), cfg, nil, &out, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var res timerResults
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if res.Conversations != 40 || res.AllAtOnce == nil || res.Paced == nil || res.AllAtOnce.Fired != 40 || res.Paced.Fired != 40 {
		t.Fatalf("results = %s, want 40 fired in each pass", out.String())
	}
	if res.Startup.ReadyMs <= 0 || res.Paced.WokeP50ms < 0 || res.Paced.Rate != 400 {
		t.Errorf("results = %s", out.String())
	}
}

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRunAgainstServer runs a small bench against the binary named by
// SWEATPANTS_BIN (as `make e2e` builds it), and is skipped without one.
func TestRunAgainstServer(t *testing.T) {
	bin := os.Getenv("SWEATPANTS_BIN")
	if bin == "" {
		t.Skip("SWEATPANTS_BIN is not set")
	}
	cfg := config{bin: bin, mode: modeBoth, rate: 50, seed: 1, conversations: 5, rounds: 3,
		timeout: time.Minute, stepTimeout: 10 * time.Second, setupParallel: 2}
	var stdout, stderr bytes.Buffer
	if err := run(cfg, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"== paced (open loop): 5 conversations open, 50.0 answers/s in total ==\n",
		"== saturated (closed loop): 5 conversations",
		"target rate        50.0 answers/s in total (think time exponential, mean 0.100 s, seed 1)\n",
		"durability         server default (process-crash)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "round trips        15\n"); n != 2 {
		t.Errorf("%d blocks with 15 round trips, want 2:\n%s", n, out)
	}
}

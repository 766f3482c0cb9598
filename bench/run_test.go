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
	cfg := config{bin: bin, conversations: 5, rounds: 3, timeout: time.Minute, stepTimeout: 10 * time.Second, setupParallel: 2}
	var stdout, stderr bytes.Buffer
	if err := run(cfg, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	for _, want := range []string{"round trips        15\n", "durability         server default (process-crash)\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

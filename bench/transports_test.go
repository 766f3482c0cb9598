package main

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTransportsFlags(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		cfg, err := parseFlags([]string{"-bin", "x", "-mode", "transports"}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.transports, []string{"sse", "ws", "agui"}; !slices.Equal(got, want) {
			t.Errorf("transports %q, want %q", got, want)
		}
		if cfg.conversations != 100 {
			t.Errorf("conversations %d, want 100", cfg.conversations)
		}
	})
	t.Run("conversations given", func(t *testing.T) {
		cfg, err := parseFlags([]string{"-bin", "x", "-mode", "transports", "-conversations", "7", "-transports", "ws"}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.conversations != 7 || !slices.Equal(cfg.transports, []string{"ws"}) {
			t.Errorf("conversations %d, transports %q, want 7 and ws", cfg.conversations, cfg.transports)
		}
	})
	for _, args := range [][]string{
		{"-mode", "transports", "-transports", ""},
		{"-mode", "transports", "-db", "postgres"},
	} {
		if _, err := parseFlags(append([]string{"-bin", "x"}, args...), io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	if _, err := transportUser("carrier-pigeon"); err == nil || !strings.Contains(err.Error(), "sse, ws and agui") {
		t.Errorf("an unknown transport: %v, want an error naming the transports", err)
	}
}

// TestTransportsAgainstServer measures the three transports against the binary
// named by SWEATPANTS_BIN, and is skipped without one.
func TestTransportsAgainstServer(t *testing.T) {
	bin := os.Getenv("SWEATPANTS_BIN")
	if bin == "" {
		t.Skip("SWEATPANTS_BIN is not set")
	}
	cfg := config{bin: bin, mode: modeTransports, rate: 50, seed: 1, conversations: 5, rounds: 3, transports: []string{"sse", "ws", "agui"},
		timeout: time.Minute, stepTimeout: 10 * time.Second, setupParallel: 2}
	var stdout, stderr bytes.Buffer
	if err := run(cfg, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"== sse: 5 conversations, paced at 50.0 answers/s in total ==\n",
		"== ws: 5 conversations, paced at 50.0 answers/s in total ==\n",
		"transport          SSE + POST",
		"transport          WebSocket",
		"== agui: 5 conversations, paced at 50.0 answers/s in total ==\n",
		"transport          AG-UI",
		"== answer → event round trip ==\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "round trips        15\n"); n != 3 {
		t.Errorf("%d blocks with 15 round trips, want 3:\n%s", n, out)
	}
}

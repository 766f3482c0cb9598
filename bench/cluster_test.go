package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// TestNodeOf spreads browsers over the nodes in turn; with -cross each
// answers on the node after its stream's, wrapping round.
func TestNodeOf(t *testing.T) {
	for _, tc := range []struct {
		i, n            int
		cross           bool
		stream, answers int
	}{
		{0, 1, false, 0, 0},
		{4, 3, false, 1, 1},
		{0, 3, true, 0, 1},
		{2, 3, true, 2, 0},
		{5, 2, true, 1, 0},
	} {
		stream, answers := nodeOf(tc.i, tc.n, tc.cross)
		if stream != tc.stream || answers != tc.answers {
			t.Errorf("nodeOf(%d, %d, %v) = %d, %d, want %d, %d", tc.i, tc.n, tc.cross, stream, answers, tc.stream, tc.answers)
		}
	}
}

// TestClusterFlags refuses what a cluster run cannot mean, each with a
// reason, and takes what it can.
func TestClusterFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for accepted
	}{
		{[]string{"-db", "postgres", "-nodes", "3", "-cross"}, ""},
		{[]string{"-db", "postgres"}, ""},
		{[]string{"-db", "postgres://db.example/sweatpants", "-nodes", "2"}, ""},
		{[]string{"-db", "mysql"}, `-db must be sqlite, postgres or a postgres:// URL, not "mysql"`},
		{[]string{"-nodes", "3"}, "-nodes above 1 needs -db postgres"},
		{[]string{"-db", "postgres", "-nodes", "0"}, "-nodes must be at least 1"},
		{[]string{"-db", "postgres", "-cross"}, "-cross needs -nodes 2 or more"},
		{[]string{"-db", "postgres", "-durability", "power-loss"}, "-durability is SQLite's"},
	} {
		cfg, err := parseFlags(append([]string{"-bin", "x"}, tc.args...), io.Discard)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v, want it accepted", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		case tc.want == "" && cfg.engine() != dbPostgres:
			t.Errorf("%q: engine %q, want postgres", tc.args, cfg.engine())
		}
	}
	cfg, err := parseFlags([]string{"-bin", "x"}, io.Discard)
	if err != nil || cfg.db != dbSQLite || cfg.nodes != 1 || cfg.cross {
		t.Errorf("defaults: %+v, %v; want SQLite, one node, not cross", cfg, err)
	}
}

// TestRunOnACluster runs a small cross-node bench against three servers,
// the binary named by SWEATPANTS_BIN, on a durable throwaway PostgreSQL:
// every answer lands on another node than its stream's and every round
// trip is measured. It is skipped without the binary, or without
// PostgreSQL unless pgtest.RequiredEnv is set.
func TestRunOnACluster(t *testing.T) {
	bin := os.Getenv("SWEATPANTS_BIN")
	if bin == "" {
		t.Skip("SWEATPANTS_BIN is not set")
	}
	if srv, err := pgtest.Start(context.Background()); errors.Is(err, pgtest.ErrNotFound) && os.Getenv(pgtest.RequiredEnv) == "" {
		t.Skip(err)
	} else if err == nil {
		srv.Stop()
	}
	cfg := config{bin: bin, mode: modePaced, rate: 50, seed: 1, conversations: 6, rounds: 3,
		timeout: time.Minute, stepTimeout: 10 * time.Second, setupParallel: 2,
		db: dbPostgres, nodes: 3, cross: true, json: true}
	var stdout, stderr bytes.Buffer
	if err := run(cfg, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	var got results
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if got.DB != dbPostgres || got.Nodes != 3 || !got.Cross || got.RoundTrips != 18 {
		t.Errorf("results %s, want 18 round trips on 3 PostgreSQL nodes, cross", stdout.String())
	}
	if !strings.Contains(got.Durability, "synchronous_commit=on") {
		t.Errorf("durability %q, want PostgreSQL's synchronous commit on", got.Durability)
	}
}

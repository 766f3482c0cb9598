package cluster

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// logs is a node's log, read by the test while the node writes it.
type logs struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines are the lines of the log that hold every one of words.
func (l *logs) lines(words ...string) []string {
	var found []string
	for line := range strings.Lines(l.String()) {
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			found = append(found, line)
		}
	}
	return found
}

// TestANodeOfAnotherVersionIsNamedInTheLog: a node that joins a cluster
// running another build warns at once, naming both versions and the deploy
// check; the nodes already there warn too when they meet it; nodes of one
// build say nothing of each other.
func TestANodeOfAnotherVersionIsNamedInTheLog(t *testing.T) {
	url := newCluster(t)
	var aLog, bLog, cLog logs
	a := join(t, url, Options{Version: "v1", Schema: 13, LeaseTTL: 300 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&aLog, nil))})
	b := join(t, url, Options{Version: "v2", Schema: 14, Log: slog.New(slog.NewTextHandler(&bLog, nil))})

	warning := "another version"
	if got := bLog.lines(warning, "node="+a.ID(), "its_version=v1", "its_schema=13", "this_version=v2", "this_schema=14", "check"); len(got) != 1 {
		t.Errorf("b's log has %d warnings naming a and both versions, want 1:\n%s", len(got), bLog.String())
	}
	eventually(t, "a warns of b", func() bool {
		return len(aLog.lines(warning, "node="+b.ID(), "its_version=v2", "this_version=v1")) == 1
	})

	c := join(t, url, Options{Version: "v1", Schema: 13, Log: slog.New(slog.NewTextHandler(&cLog, nil))})
	if got := cLog.lines(warning); len(got) != 1 || !strings.Contains(got[0], "node="+b.ID()) {
		t.Errorf("c's warnings: %q, want one, of b", got)
	}
	// a meets c on its next round; it warns of no one then, and of b
	// only once.
	eventually(t, "a meets c", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.met[c.ID()]
	})
	if got := aLog.lines(warning); len(got) != 1 {
		t.Errorf("a's warnings: %q, want one, of b", got)
	}
}

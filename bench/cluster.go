package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// runCluster is runOnce on PostgreSQL: cfg.nodes servers on a fresh schema
// of pg, their logs in dir. The server figures are the nodes' together:
// CPU and peak RSS summed; PostgreSQL's own CPU is given apart.
func runCluster(ctx context.Context, cfg config, pg *postgres, dir string, rate float64, makeUser newUser) (*results, error) {
	cpu0, pgCPU0 := selfCPU(), pg.cpu()
	schema, url, err := pg.schema(ctx)
	if err != nil {
		return nil, err
	}
	var nodes []*server
	stopAll := func() error {
		var errs []error
		for _, s := range nodes {
			if err := s.stop(20 * time.Second); err != nil {
				errs = append(errs, fmt.Errorf("node %s: %w", s.base, err))
			}
		}
		return errors.Join(errs...)
	}
	// The first node migrates the schema alone, so that the others start
	// on a database that is ready rather than queueing behind its lock.
	var bases []string
	for i := range cfg.nodes {
		srv, err := startServer(cfg.bin, dir, strconv.Itoa(i+1), url, "", cfg.conversations, 30*time.Second)
		if err != nil {
			stopAll()
			return nil, fmt.Errorf("node %d: %w", i+1, err)
		}
		nodes = append(nodes, srv)
		bases = append(bases, srv.base)
	}
	res, runErr := drive(ctx, cfg, rate, bases, makeUser)
	var cpu time.Duration
	res.ServerPeakRSS = 0
	for _, s := range nodes {
		res.ServerPeakRSS += s.peakRSS()
	}
	res.DBBytes = pg.size(ctx, schema)
	res.Durability = pg.durability(ctx)
	stopErr := stopAll()
	for _, s := range nodes {
		cpu += s.cpu()
	}
	res.ServerCPUs, res.BenchCPUs = secs(cpu), secs(since(cpu0, selfCPU()))
	res.PostgresCPUs = secs(since(pgCPU0, pg.cpu()))
	if err := errors.Join(runErr, stopErr); err != nil {
		return nil, fmt.Errorf("%w\nlast lines of the servers' logs:\n%s", err, logTails(nodes, 10))
	}
	return res, nil
}

// logTails is the last n lines of each node's log, under its address.
func logTails(nodes []*server, n int) string {
	var b strings.Builder
	for _, s := range nodes {
		fmt.Fprintf(&b, "-- %s --\n%s\n", s.base, s.logTail(n))
	}
	return b.String()
}

// cpu returns the CPU time, user and system, PostgreSQL has used so far:
// the postmaster's own and that of its children that have exited (each
// connection's backend, once the connection closes), or -1 if it cannot
// be read (not Linux, or not the bench's own server). Read after the servers stopped, it counts all their
// backends.
func (p *postgres) cpu() time.Duration {
	if p.srv == nil {
		return -1
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.srv.Pid()))
	if err != nil {
		return -1
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, cstime the 15th.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 15 {
		return -1
	}
	var ticks int64
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return -1
		}
		ticks += n
	}
	// Linux reports these in USER_HZ, 100 a second on every architecture
	// Go runs on.
	return time.Duration(ticks) * (time.Second / 100)
}

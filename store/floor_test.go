package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkCommitFloor measures the least a durable write costs on this
// machine: one small row in a table of its own, committed through the
// store's own write path (its connection, settings and group commit), with
// nothing else to do. No resume can take less than one of these, so it
// tells how far the other benchmarks are from what SQLite allows here, a
// figure that, unlike theirs, does not move with the code. Each iteration
// commits floorCommits rows, one per transaction.
func BenchmarkCommitFloor(b *testing.B) {
	const floorCommits = 2000
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "floor.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE floor (id INTEGER PRIMARY KEY, v BLOB NOT NULL) STRICT`); err != nil {
		b.Fatal(err)
	}
	row := []byte(`{"answer":"yes"}`)
	var lat []time.Duration
	for b.Loop() {
		for range floorCommits {
			t0 := time.Now()
			err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO floor(v) VALUES (?)`, row)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

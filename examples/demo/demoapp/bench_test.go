package demoapp

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/plugin"
)

// BenchmarkNewDatabase times what a new database costs before the first
// serve: opening and migrating it, which is all an application without
// tables of its own pays ("framework"), and then the demo's catalogue plugin, which
// makes its catalogue's tables and stocks them with the seed's flights
// ("demo"). The process's own start (flags, model, listener) is not in it.
func BenchmarkNewDatabase(b *testing.B) {
	const perIter = 10
	for _, tc := range []struct {
		name string
		demo bool
	}{{"framework", false}, {"demo", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				for j := range perIter {
					path := filepath.Join(b.TempDir(), fmt.Sprintf("new-%d-%d.db", i, j))
					start := time.Now()
					db, err := store.Open(b.Context(), path, store.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if tc.demo {
						err = Config().Plugins[0].Parts().Start(b.Context(), plugin.Env{Command: "serve", DB: db.App(),
							Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler)})
						if err != nil {
							b.Fatal(err)
						}
					}
					lat = append(lat, time.Since(start))
					b.StopTimer()
					db.Close()
					b.StartTimer()
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
		})
	}
}

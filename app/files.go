package app

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/files"
)

// filesGCEvery is how often the server removes the files nobody sent on
// (files.Store.GC).
const filesGCEvery = time.Hour

// collectFiles runs the files' gc now and every so often until it is
// stopped; stop returns once a run under way has ended, so the database
// can be closed after it.
func collectFiles(ctx context.Context, fs *files.Store, every time.Duration, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if n, err := fs.GC(ctx); err != nil && ctx.Err() == nil {
				log.Error("collect files", "err", err)
			} else if n > 0 {
				log.Info("collected files nobody sent", "removed", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// typesFlag is a comma-separated list of content types (files.ParseTypes).
type typesFlag struct{ p *[]string }

func (f typesFlag) Set(s string) error {
	types, err := files.ParseTypes(s)
	if err != nil {
		return err
	}
	*f.p = types
	return nil
}

func (f typesFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

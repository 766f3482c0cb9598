package app

import (
	"context"
	"log/slog"
	"time"
)

// storeCheckEvery is how often a serving server checks its database on
// its own (watchStore).
const storeCheckEvery = 10 * time.Second

// checker is the database as watchStore sees it (store.DB.Check).
type checker interface {
	Check(ctx context.Context) error
}

// watchStore checks db every so often until it is stopped, and logs when
// it stops being able to serve (its file deleted, its disk full or
// read-only) and when it can again. /readyz says the same, but only to
// whoever asks: a server nobody polls still tells its log. After a write
// failed, a check is also what finds that writes work again. stop returns
// once a check under way has ended, so the database can be closed after
// it.
func watchStore(ctx context.Context, db checker, every time.Duration, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		var failing error
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			checkCtx, cancelCheck := context.WithTimeout(ctx, every)
			err := db.Check(checkCtx)
			cancelCheck()
			switch {
			case ctx.Err() != nil:
				return
			case err != nil && failing == nil:
				log.Error("the database cannot serve", "err", err)
			case err == nil && failing != nil:
				log.Info("the database serves again")
			}
			failing = err
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

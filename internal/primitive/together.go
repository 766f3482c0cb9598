package primitive

import (
	"context"
	"sync"
)

// Lanes, when set, gives each branch of a Together its own context, so
// that a runtime that records calls can number each branch's calls on its
// own: the order in which concurrent branches reach their calls changes
// from run to run, their position within their branch does not.
var Lanes = NewValue[func(ctx context.Context) func(branch int) context.Context]("lanes", nil)

// Together runs fns at once, each in a child scope, and returns when all
// have returned. The first to fail cancels the others, and its error is
// returned. Their elicits reach the user together, queued in the order
// asked.
func Together(ctx context.Context, fns ...func(ctx context.Context) error) error {
	return WithScope(ctx, func(ctx context.Context, s *Scope) error {
		lane := func(int) context.Context { return ctx }
		if mk := Lanes.Get(ctx); mk != nil {
			lane = mk(ctx)
		}
		var wg sync.WaitGroup
		for i, fn := range fns {
			wg.Add(1)
			bctx := lane(i)
			s.Go(func(context.Context) error {
				defer wg.Done()
				return fn(bctx)
			})
		}
		wg.Wait()
		// Children that saw the scope cancelled return quietly; the caller
		// must still learn that not all of them finished.
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	})
}

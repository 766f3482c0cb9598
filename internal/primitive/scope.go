package primitive

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Scope owns the goroutines started in it. When the function given to
// WithScope returns, the scope's context is cancelled and WithScope waits for
// every child to finish, so no child outlives its parent. Cleanups registered
// with Defer run after the children have stopped, last registered first.
type Scope struct {
	ctx    context.Context
	cancel context.CancelCauseFunc

	wg       sync.WaitGroup
	mu       sync.Mutex
	err      error
	cleanups []func()
}

// ErrScopeExited is the cancellation cause children see when their scope's
// function returned while they were still running.
var ErrScopeExited = errors.New("scope exited")

// WithScope runs fn in a new scope derived from ctx and returns fn's error, or
// else the first error of a child. Children are halted when fn returns.
func WithScope(ctx context.Context, fn func(ctx context.Context, s *Scope) error) error {
	sctx, cancel := context.WithCancelCause(ctx)
	s := &Scope{ctx: sctx, cancel: cancel}
	err := s.run(fn)
	s.cancel(ErrScopeExited)
	s.wg.Wait()
	s.runCleanups()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Scope) run(fn func(ctx context.Context, s *Scope) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in scope: %v", r)
		}
	}()
	return fn(s.ctx, s)
}

// Context returns the scope's context; it is cancelled when the scope exits.
func (s *Scope) Context() context.Context { return s.ctx }

// Go starts fn as a child of the scope. A child that fails cancels the scope
// (and so its siblings) with its error; the first such error is what
// WithScope returns if the scope's own function did not fail.
func (s *Scope) Go(fn func(ctx context.Context) error) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := s.runChild(fn)
		if err == nil || errors.Is(err, context.Canceled) && s.ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
		s.cancel(err)
	}()
}

func (s *Scope) runChild(fn func(ctx context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in child: %v", r)
		}
	}()
	return fn(s.ctx)
}

// Defer registers fn to run when the scope exits, after its children stopped.
func (s *Scope) Defer(fn func()) {
	s.mu.Lock()
	s.cleanups = append(s.cleanups, fn)
	s.mu.Unlock()
}

func (s *Scope) runCleanups() {
	s.mu.Lock()
	cs := s.cleanups
	s.cleanups = nil
	s.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

package primitive

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestScopeHaltsChildrenWhenItExits(t *testing.T) {
	var running atomic.Int32
	started := make(chan struct{})
	err := WithScope(context.Background(), func(ctx context.Context, s *Scope) error {
		s.Go(func(ctx context.Context) error {
			running.Add(1)
			defer running.Add(-1)
			close(started)
			<-ctx.Done() // a child that would run forever
			return ctx.Err()
		})
		<-started
		return nil
	})
	if err != nil {
		t.Fatalf("WithScope = %v, want nil", err)
	}
	if n := running.Load(); n != 0 {
		t.Errorf("%d children still running after their scope exited", n)
	}
}

func TestScopeChildFailureCancelsSiblings(t *testing.T) {
	boom := errors.New("boom")
	var siblingSaw error
	err := WithScope(context.Background(), func(ctx context.Context, s *Scope) error {
		s.Go(func(ctx context.Context) error {
			<-ctx.Done()
			siblingSaw = context.Cause(ctx)
			return nil
		})
		s.Go(func(context.Context) error { return boom })
		<-ctx.Done()
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("WithScope = %v, want %v", err, boom)
	}
	if !errors.Is(siblingSaw, boom) {
		t.Errorf("sibling saw cause %v, want %v", siblingSaw, boom)
	}
}

func TestScopeCleanupsRunAfterChildrenInReverse(t *testing.T) {
	var order []string
	done := make(chan struct{})
	_ = WithScope(context.Background(), func(ctx context.Context, s *Scope) error {
		s.Defer(func() { order = append(order, "first") })
		s.Defer(func() { order = append(order, "second") })
		s.Go(func(ctx context.Context) error {
			<-ctx.Done()
			close(done)
			return nil
		})
		return nil
	})
	select {
	case <-done:
	default:
		t.Fatal("child had not finished when WithScope returned")
	}
	if len(order) != 2 || order[0] != "second" || order[1] != "first" {
		t.Errorf("cleanup order = %v, want [second first]", order)
	}
}

func TestScopeCancelledByParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	exited := make(chan error, 1)
	go func() {
		exited <- WithScope(parent, func(ctx context.Context, s *Scope) error {
			s.Go(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	cancel()
	select {
	case err := <-exited:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("scope did not exit after its parent was cancelled")
	}
}

func TestScopePanicBecomesError(t *testing.T) {
	err := WithScope(context.Background(), func(ctx context.Context, s *Scope) error {
		s.Go(func(context.Context) error { panic("kaboom") })
		<-ctx.Done()
		return nil
	})
	if err == nil {
		t.Fatal("a panicking child must fail its scope")
	}
}

package turn_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/turn"
)

func TestTogetherFirstFailureStopsTheOthers(t *testing.T) {
	boom := errors.New("boom")
	err := turn.Together(t.Context(),
		func(ctx context.Context) error { return boom },
		func(ctx context.Context) error { <-ctx.Done(); return nil }, // quits quietly when told
	)
	if !errors.Is(err, boom) {
		t.Fatalf("Together = %v, want the failing branch's error", err)
	}
}

func TestTogetherReportsACancelledParentEvenWhenBranchesQuitQuietly(t *testing.T) {
	stop := errors.New("stopped by the user")
	ctx, cancel := context.WithCancelCause(t.Context())
	started := make(chan struct{})
	go func() { <-started; cancel(stop) }()
	err := turn.Together(ctx,
		func(ctx context.Context) error { close(started); <-ctx.Done(); return nil },
		func(ctx context.Context) error { <-ctx.Done(); return nil },
	)
	if !errors.Is(err, stop) {
		t.Fatalf("Together = %v, want the parent's cause: the branches did not finish", err)
	}
}

func TestTogetherGivesEachBranchItsLane(t *testing.T) {
	type laneKey struct{}
	groups := 0
	ctx := primitive.Lanes.With(t.Context(), func(ctx context.Context) func(int) context.Context {
		groups++
		return func(i int) context.Context { return context.WithValue(ctx, laneKey{}, i) }
	})
	var mu sync.Mutex
	var seen []int
	branch := func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ctx.Value(laneKey{}).(int))
		return nil
	}
	if err := turn.Together(ctx, branch, branch, branch); err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if groups != 1 || !slices.Equal(seen, []int{0, 1, 2}) {
		t.Errorf("%d groups, lanes %v; want one group with lanes 0, 1, 2", groups, seen)
	}
}

package durable_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/durable"
)

// Log lines are numbered apart from the calls: writing one shifts no call's
// id, within a turn, a tool or a branch of a Together.
func TestLogLinesAreNumberedApartFromCalls(t *testing.T) {
	ctx := durable.WithScope(context.Background(), "7")
	got := []string{durable.NextLog(ctx), durable.NextCall(ctx), durable.NextLog(ctx), durable.NextCall(ctx)}
	tool := durable.WithScope(ctx, durable.NextCall(ctx))
	got = append(got, durable.NextLog(tool), durable.NextCall(tool))
	lane := durable.Lanes(ctx)(0)
	got = append(got, durable.NextLog(lane), durable.NextCall(lane), durable.NextCall(ctx))
	want := []string{"7-log1", "7-1", "7-log2", "7-2", "7-3.log1", "7-3.1", "7-4.1.log1", "7-4.1.1", "7-5"}
	if len(got) != len(want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ids %v, want %v", got, want)
		}
	}
}

func TestScopeOf(t *testing.T) {
	for id, want := range map[string]string{
		"7-1": "7", "7-log2": "7", "7-3.1": "7-3", "7-3.log1": "7-3", "7-4.1.2": "7-4.1", "": "",
	} {
		if got := durable.ScopeOf(id); got != want {
			t.Errorf("ScopeOf(%q) = %q, want %q", id, got, want)
		}
	}
}

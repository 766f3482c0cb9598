package chat_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
)

// A flood of progress reports on one question is refused past the burst:
// the refused reports reach neither the pages nor the agent.
func TestAFloodOfProgressReportsIsRefusedPastTheBurst(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, eid := startAsked(t, svc, "showcase", "where am I")
	sub, _, err := svc.Subscribe(t.Context(), "me", conv)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	start := time.Now()
	var refused []error
	for i := 1; i <= inbound.ProgressBurst+5; i++ {
		if err := svc.Progress(t.Context(), "me", conv, eid, elicit.Progress{Stage: fmt.Sprintf("s%d", i)}); err != nil {
			refused = append(refused, err)
		} else if i > inbound.ProgressBurst && time.Since(start) < inbound.ProgressWindow {
			t.Errorf("report %d within %v was taken, want it refused past a burst of %d", i, time.Since(start), inbound.ProgressBurst)
		}
	}
	if time.Since(start) >= inbound.ProgressWindow {
		t.Skipf("the flood took %v, longer than the window it tests", time.Since(start))
	}
	if got, want := len(refused), 5; got != want {
		t.Fatalf("refused %d reports, want %d: %v", got, want, refused)
	}
	for _, err := range refused {
		if apperr.CodeOf(err) != apperr.TooMany || !strings.Contains(err.Error(), "Too many progress reports for this question") {
			t.Errorf("refusal = %v (%s), want TooMany saying why", err, apperr.CodeOf(err))
		}
	}

	// What the pages were told, up to a notice sent after the flood: the
	// reports taken, and nothing of the refused ones.
	svc.Inform("me", conv, "after the flood")
	var stages []string
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for done := false; !done; {
		u, err := sub.Next(ctx)
		changes, resync := u.Changes, u.Resync
		if err != nil {
			t.Fatalf("no notice after the flood: %v (stages so far %v)", err, stages)
		}
		if resync != nil {
			t.Fatal("the flood made the pages start over")
		}
		for _, c := range changes {
			if c.Item != nil && c.Item.Elicit != nil && c.Item.Elicit.Stage != nil {
				stages = append(stages, c.Item.Elicit.Stage.Stage)
			}
			done = done || c.Notice.Text == "after the flood"
		}
	}
	var want []string
	for i := 1; i <= inbound.ProgressBurst; i++ {
		want = append(want, fmt.Sprintf("s%d", i))
	}
	if !slices.Equal(stages, want) {
		t.Errorf("pages were shown stages %v, want %v", stages, want)
	}
	v, err := svc.View(t.Context(), "me", conv)
	if err != nil {
		t.Fatal(err)
	}
	if e := pendingElicit(v); e == nil || e.Stage == nil || e.Stage.Stage != want[len(want)-1] {
		t.Errorf("the question shows %+v, want the last stage taken", e)
	}
}

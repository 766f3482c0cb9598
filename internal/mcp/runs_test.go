package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
)

// runsOf reads conversation id's record as a program does, from its event
// stream: the runs started and completed, in order.
func runsOf(t *testing.T, svc eventstream.Following, owner, id string) ([]eventstream.RunStarted, []eventstream.RunCompleted) {
	t.Helper()
	es, err := eventstream.Open(context.Background(), svc, owner, id, "")
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	var started []eventstream.RunStarted
	var completed []eventstream.RunCompleted
	for _, e := range es.Ready() {
		switch d := e.Data.(type) {
		case eventstream.RunStarted:
			started = append(started, d)
		case eventstream.RunCompleted:
			completed = append(completed, d)
		}
	}
	return started, completed
}

// A conversation recorded before calls were typed holds each call as its
// message's JSON and its outcome as its reply's: such a call, its turn run
// again (a replay after an upgrade), still runs and replies as then.
func TestACallRecordedAsTextStillRuns(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := f.svc.Create(ctx, f.owner, mcp.AssistantName)
	if err != nil {
		t.Fatal(err)
	}
	es, err := eventstream.OpenNew(ctx, f.svc, f.owner, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	if _, err := f.svc.SendMessage(ctx, f.owner, c.ID, inbound.Message{Text: `{"tool":"calc.add","arguments":{"a":2,"b":3}}`}); err != nil {
		t.Fatal(err)
	}
	for {
		evs, err := es.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if d, ok := e.Data.(eventstream.RunCompleted); ok {
				if got, want := d.Text, `{"result":{"sum":5}}`; got != want || d.Outcome != nil {
					t.Errorf("reply = %q, outcome %+v; want %q, as recorded before calls were typed", got, d.Outcome, want)
				}
				return
			}
		}
	}
}

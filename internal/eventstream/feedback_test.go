package eventstream_test

import (
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Feedback on a reply is told as feedback.given in the reply's run, live
// and to a client that reads the record later; a change of mind is told
// again.
func TestFeedbackOnAReplyIsAnEvent(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, chunks, run := streamingEcho(t, svc, model)
	close(chunks)
	done := last(f.until("the run's end", is(eventstream.EventRunCompleted))).Data.(eventstream.RunCompleted)

	if _, err := svc.GiveFeedback(t.Context(), "me", conv, done.Node, inbound.Feedback{Rating: tree.ThumbsDown, Comment: "wrong city"}); err != nil {
		t.Fatal(err)
	}
	given := last(f.until("the feedback", is(eventstream.EventFeedbackGiven))).Data.(eventstream.FeedbackGiven)
	if given.Run != run || given.Reply != done.Node || given.Rating != tree.ThumbsDown || given.Comment != "wrong city" {
		t.Errorf("feedback.given = %+v, want thumbs down on reply %d of run %d with the comment", given, done.Node, run)
	}
	if _, err := svc.GiveFeedback(t.Context(), "me", conv, done.Node, inbound.Feedback{Rating: tree.ThumbsUp}); err != nil {
		t.Fatal(err)
	}
	again := last(f.until("the change of mind", is(eventstream.EventFeedbackGiven))).Data.(eventstream.FeedbackGiven)
	if again.Rating != tree.ThumbsUp || again.Comment != "" || again.Node <= given.Node {
		t.Errorf("the second feedback.given = %+v, want thumbs up, recorded after the first", again)
	}

	// Read from the start, the record tells the same.
	r := follow(t, svc, "me", conv, "")
	evs := r.until("the second feedback", func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.FeedbackGiven)
		return ok && d.Rating == tree.ThumbsUp
	})
	if got, want := types(evs), []string{eventstream.EventRunStarted, eventstream.EventTokenDelta, eventstream.EventRunCompleted, eventstream.EventFeedbackGiven, eventstream.EventFeedbackGiven}; !slices.Equal(got, want) {
		t.Errorf("events read from the record: %v, want %v", got, want)
	}
}

package eventstream

import "github.com/sweatpants-go/sweatpants/internal/tree"

// Feedback. What the user thinks of a reply (thumbs up or down and a
// comment) is recorded beside the reply (tree.Feedback) and told as
// feedback.given, in the run of the reply it rates. A change of mind is
// another feedback.given, the newest counting; rating "none" with no
// comment takes it back.

// EventFeedbackGiven is the type of FeedbackGiven.
const EventFeedbackGiven = "feedback.given" // FeedbackGiven: the user rated a reply

// FeedbackGiven is the data of feedback.given: the user rated Reply (the
// node of its run.completed) Rating, "up", "down" or "none", with
// Comment.
type FeedbackGiven struct {
	Recorded
	Reply   int64       `json:"reply"`
	Rating  tree.Rating `json:"rating"`
	Comment string      `json:"comment,omitempty"`
}

// feedbackGiven is the event of Feedback node n.
func feedbackGiven(rec Recorded, n tree.Node) Event {
	r, _ := tree.Decode[tree.FeedbackRecord](n)
	return Event{Type: EventFeedbackGiven, Data: FeedbackGiven{Recorded: rec, Reply: n.Parent, Rating: r.Rating, Comment: r.Comment}}
}

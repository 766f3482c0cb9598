package tree

import (
	"maps"
	"slices"
	"time"
)

// Rating is what a user thought of a reply.
type Rating string

const (
	// ThumbsUp: the reply was good.
	ThumbsUp Rating = "up"
	// ThumbsDown: the reply was bad.
	ThumbsDown Rating = "down"
	// NoRating: the user took back the rating they gave.
	NoRating Rating = "none"
)

// Valid reports whether r is one of the ratings above.
func (r Rating) Valid() bool { return r == ThumbsUp || r == ThumbsDown || r == NoRating }

// FeedbackRecord is the payload of a Feedback node: the rating and the
// user's comment, if any. A record with NoRating and no comment clears the
// feedback given before it.
type FeedbackRecord struct {
	Rating  Rating `json:"rating"`
	Comment string `json:"comment,omitempty"`
}

// Rates reports whether a node of kind k can be given feedback: a reply
// of the flow or of a side question.
func Rates(k Kind) bool { return k == AssistantMessage || k == SideReply }

// FeedbackOn returns the feedback that counts for node id, the newest
// Feedback node hung from it, and false when none was given (or the
// newest clears it).
func (x *Index) FeedbackOn(id int64) (FeedbackRecord, Node, bool) {
	kids := x.children[id]
	for i := len(kids) - 1; i >= 0; i-- {
		n := x.nodes[kids[i]]
		if n.Kind != Feedback {
			continue
		}
		r, err := Decode[FeedbackRecord](n)
		if err != nil || (r.Rating == NoRating && r.Comment == "") {
			return FeedbackRecord{}, Node{}, false
		}
		return r, n, true
	}
	return FeedbackRecord{}, Node{}, false
}

// Given is the feedback that counts on one reply.
type Given struct {
	Reply   int64     `json:"reply"`
	Current bool      `json:"current"` // the reply is on HEAD's branch
	Rating  Rating    `json:"rating"`
	Comment string    `json:"comment,omitempty"`
	Node    int64     `json:"node"` // the Feedback node that records it
	At      time.Time `json:"at"`
}

// FeedbackGiven returns the feedback that counts on each reply that has
// some, oldest reply first, on path (HEAD's branch) or not.
func (x *Index) FeedbackGiven(path Path) []Given {
	rated := map[int64]bool{}
	for _, n := range x.Nodes() {
		if n.Kind == Feedback {
			rated[n.Parent] = true
		}
	}
	var out []Given
	for _, reply := range slices.Sorted(maps.Keys(rated)) {
		if r, n, ok := x.FeedbackOn(reply); ok {
			out = append(out, Given{Reply: reply, Current: path.Contains(reply), Rating: r.Rating, Comment: r.Comment, Node: n.ID, At: n.At})
		}
	}
	return out
}

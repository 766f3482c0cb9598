package chat

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// MaxFeedbackComment is the longest comment on a reply, in characters.
const MaxFeedbackComment = 2000

// Feedback is what the user thinks of a reply: a rating and a comment.
type Feedback struct {
	Rating  tree.Rating
	Comment string
}

// GiveFeedback records what the user thinks of reply (an assistant's reply,
// or a side question's) as a Feedback node hung aside from it: HEAD stays
// where it is, and the feedback follows the reply's branch. Giving it again
// records a new node, the newest counting; NoRating with no comment clears
// it. Its open pages show it at once.
// Errors: Invalid for an unknown rating or a comment over
// MaxFeedbackComment characters; NotFound when reply is no reply of the
// conversation. Either way nothing is recorded.
func (s *Service) GiveFeedback(ctx context.Context, session, id string, reply int64, f Feedback) (tree.Node, error) {
	f.Comment = strings.TrimSpace(f.Comment)
	if !f.Rating.Valid() {
		return tree.Node{}, apperr.Errorf(apperr.Invalid, "A reply is rated up, down or none, not %q.", f.Rating)
	}
	if !utf8.ValidString(f.Comment) {
		return tree.Node{}, apperr.Errorf(apperr.Invalid, "The comment is not valid text.")
	}
	if n := utf8.RuneCountInString(f.Comment); n > MaxFeedbackComment {
		return tree.Node{}, apperr.Errorf(apperr.Invalid, "The comment is %d characters long; the limit is %d.", n, MaxFeedbackComment)
	}
	var rec tree.Node
	err := s.with(ctx, session, id, func(c *conversation) error {
		r, ok := c.idx.Node(reply)
		if !ok || !tree.Rates(r.Kind) {
			return apperr.Errorf(apperr.NotFound, "There is no reply %d in this conversation.", reply)
		}
		n, err := c.appendLocked(ctx, tree.Node{Parent: r.ID, Kind: tree.Feedback,
			Payload: tree.MustEncode(tree.FeedbackRecord{Rating: f.Rating, Comment: f.Comment})},
			tree.AppendOptions{Fork: true, Aside: true})
		if err != nil {
			return err
		}
		rec = n
		c.page.hub.ResyncLocked()
		return nil
	})
	return rec, err
}

// FeedbackGiven is the feedback that counts on one reply.
type FeedbackGiven struct {
	Reply   int64       `json:"reply"`
	Current bool        `json:"current"` // the reply is on HEAD's branch
	Rating  tree.Rating `json:"rating"`
	Comment string      `json:"comment,omitempty"`
	Node    int64       `json:"node"` // the Feedback node that records it
	At      time.Time   `json:"at"`
}

// FeedbackOf returns the feedback that counts on each reply of the
// conversation that has some, oldest reply first, on HEAD's branch or not.
// Errors: NotFound.
func (s *Service) FeedbackOf(ctx context.Context, session, id string) ([]FeedbackGiven, error) {
	var out []FeedbackGiven
	err := s.with(ctx, session, id, func(c *conversation) error {
		rated := map[int64]bool{}
		for _, n := range c.idx.Nodes() {
			if n.Kind == tree.Feedback {
				rated[n.Parent] = true
			}
		}
		replies := slices.Sorted(maps.Keys(rated))
		for _, reply := range replies {
			if r, n, ok := c.idx.FeedbackOn(reply); ok {
				out = append(out, FeedbackGiven{Reply: reply, Current: c.path.Contains(reply), Rating: r.Rating, Comment: r.Comment, Node: n.ID, At: n.At})
			}
		}
		return nil
	})
	return out, err
}

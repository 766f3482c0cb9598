package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// GiveFeedback records what the user thinks of reply (an assistant's reply,
// or a side question's) as a Feedback node hung aside from it: HEAD stays
// where it is, and the feedback follows the reply's branch. Giving it again
// records a new node, the newest counting; NoRating with no comment clears
// it. Its open pages show it at once.
// Errors: Invalid as inbound.Feedback.Checked says; NotFound when reply is
// no reply of the conversation. Either way nothing is recorded.
func (s *Service) GiveFeedback(ctx context.Context, session, id string, reply int64, f inbound.Feedback) (tree.Node, error) {
	f, err := f.Checked()
	if err != nil {
		return tree.Node{}, err
	}
	var rec tree.Node
	err = s.with(ctx, session, id, func(c *conversation) error {
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

// FeedbackOf returns the feedback that counts on each reply of the
// conversation that has some (tree.Index.FeedbackGiven). Errors: NotFound.
func (s *Service) FeedbackOf(ctx context.Context, session, id string) ([]tree.Given, error) {
	var out []tree.Given
	err := s.with(ctx, session, id, func(c *conversation) error {
		out = c.idx.FeedbackGiven(c.path)
		return nil
	})
	return out, err
}

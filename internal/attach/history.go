package attach

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/history"
)

// History gives msgs' user messages the files sent with them (Message,
// with DefaultBudget), read through open: what a turn's model is given of
// the conversation, live, on replay and in the check before a deploy
// alike, since the files do not change once stored. msgs is not written
// to; messages without files are given as they are.
func History(ctx context.Context, msgs []history.Message, open Opener) ([]history.Message, error) {
	var out []history.Message
	for i, m := range msgs {
		if len(m.Attachments) == 0 {
			continue
		}
		if out == nil {
			out = append([]history.Message(nil), msgs...)
		}
		read, err := Message(ctx, m.Message, m.Attachments, open, DefaultBudget)
		if err != nil {
			return nil, err
		}
		out[i].Message = read
	}
	if out == nil {
		return msgs, nil
	}
	return out, nil
}

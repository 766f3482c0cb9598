package chat

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// What a user does to their conversations as a whole: name one, delete one,
// find one. The store does each (ConversationStore); the service keeps what
// it has in memory in step.

// ConversationStore is what the service needs of the database to manage a
// session's conversations. Each returns an apperr NotFound for a
// conversation the session does not own.
type ConversationStore interface {
	RenameConversation(ctx context.Context, session, id, title string) error
	DeleteConversation(ctx context.Context, session, id string) error
	SearchConversations(ctx context.Context, session, query string) ([]tree.Conversation, error)
}

// Rename gives the conversation the title the user chose; from then on it
// no longer follows the first message. Its open pages show it at once.
// Errors: Invalid (see inbound.CheckTitle), and then nothing changes; NotFound.
func (s *Service) Rename(ctx context.Context, session, id, title string) error {
	title, err := inbound.CheckTitle(title)
	if err != nil {
		return err
	}
	return s.with(ctx, session, id, func(c *conversation) error {
		if err := s.store.RenameConversation(ctx, session, id, title); err != nil {
			return err
		}
		c.conv.Title, c.conv.Named = title, true
		conv := c.conv
		c.page.hub.BroadcastLocked(feed.Change{Title: &conv})
		return nil
	})
}

// Delete deletes the conversation with its whole tree and reflog. A turn
// that works is ended first, recording nothing more. Errors: NotFound.
func (s *Service) Delete(ctx context.Context, session, id string) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		c.parkLocked()
		for q, t := range c.sides {
			t.cancel(errDeleted)
			delete(c.sides, q)
		}
		c.inbox.Take()
		if err := s.store.DeleteConversation(ctx, session, id); err != nil {
			return err
		}
		// Its other open pages say so; whoever asks for it from now on
		// finds it missing, and the pages let go of it when they close.
		c.page.sayLocked(pageview.Notice{Text: "This conversation was deleted."})
		s.mu.Lock()
		unlease := func() {}
		if s.live[id] == c {
			unlease = s.forgetLocked(c)
		}
		s.mu.Unlock()
		unlease()
		return nil
	})
}

// errDeleted is the cause of a turn's cancellation when its conversation
// is deleted.
var errDeleted = apperr.Errorf(apperr.NotFound, "The conversation was deleted.")

// Search lists, newest first, the session's conversations whose title or
// messages contain query (ignoring ASCII case); an empty query lists them
// all. Errors: Invalid for a query longer than inbound.MaxQueryLen.
func (s *Service) Search(ctx context.Context, session, query string) ([]tree.Conversation, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return s.Conversations(ctx, session)
	}
	if n := utf8.RuneCountInString(query); n > inbound.MaxQueryLen {
		return nil, apperr.Errorf(apperr.Invalid, "That search is %d characters long; the limit is %d.", n, inbound.MaxQueryLen)
	}
	return s.store.SearchConversations(ctx, session, query)
}

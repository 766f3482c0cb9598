// Package calls is the calls page's read model: every model call of a
// session's conversations as it was recorded, grouped by turn, with the
// tool calls that followed, the refusals that made a middleware ask again
// and the log lines in between; and, for an open page, what changed since
// it was drawn — the turns that changed, not the whole page again. It is
// also the audit of the session's tool calls (tools.go): each call, who
// decided it and how it went, newest first.
//
// The listing is read from the record, not from the live conversations: a
// calls page looks at records, so it neither loads a conversation nor
// resumes its turn, and it follows every conversation of a session at once
// through the chat service's session feed (sessionfeed.Follower), which
// only says which of them recorded something.
package calls

import (
	"cmp"
	"context"
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Records is what the listing reads of the record (the store). Conversation
// and Load return an apperr NotFound for a conversation the session does
// not own; Nodes and Load return the nodes in id order.
type Records interface {
	// Conversations lists a session's conversations.
	Conversations(ctx context.Context, session string) ([]tree.Conversation, error)
	// Conversation returns a conversation the session owns.
	Conversation(ctx context.Context, session, id string) (tree.Conversation, error)
	// Nodes returns every node of a conversation.
	Nodes(ctx context.Context, conversation string) ([]tree.Node, error)
	// Load returns a conversation the session owns with every node of it,
	// as of one moment.
	Load(ctx context.Context, session, id string) (tree.Conversation, []tree.Node, error)
	// ToolCalls returns the tool call nodes of the session's own
	// conversations, newest first, at most limit (all for 0), narrowed by
	// tool, decision and outcome where each is not empty (tools.go).
	ToolCalls(ctx context.Context, session, tool, decision, outcome string, limit int) ([]tree.Node, error)
}

// Chat is what the calls page needs of the chat service: to be told when a
// conversation of its session records a node, and which model answers now.
type Chat interface {
	Sessions() *sessionfeed.Hub
	// ModelLabel names the model that answers now and where it is served
	// from (llm.Label), which the chat's own pages leave out.
	ModelLabel() string
}

// Service lists the model calls of sessions' conversations, and follows
// them for open pages.
type Service struct {
	records Records
	chat    Chat
}

// New returns a service that reads the record through records and follows
// sessions through the chat service.
func New(records Records, chat Chat) *Service {
	return &Service{records: records, chat: chat}
}

// List lists the model calls of the session's conversations, or of the one
// f names. Errors: NotFound for a conversation the session does not own.
func (s *Service) List(ctx context.Context, session string, f Filter) (Listing, error) {
	return s.list(ctx, session, f, nil)
}

// list is List, with the records decoded before by conversation, if rs is
// not nil; it keeps those it decodes there.
func (s *Service) list(ctx context.Context, session string, f Filter, rs map[string]records) (Listing, error) {
	all, err := s.records.Conversations(ctx, session)
	if err != nil {
		return Listing{}, err
	}
	sortConversations(all)
	l := Listing{Filter: f, All: all, Model: s.chat.ModelLabel()}
	for _, conv := range all {
		if f.Conversation != "" && conv.ID != f.Conversation {
			continue
		}
		nodes, err := s.records.Nodes(ctx, conv.ID)
		if err != nil {
			return Listing{}, err
		}
		var cache records
		if rs != nil {
			cache = records{}
			rs[conv.ID] = cache
		}
		c := read(conv, nodes, f, cache)
		l.Totals.add(c.Totals)
		l.Conversations = append(l.Conversations, c)
	}
	if f.Conversation != "" && len(l.Conversations) == 0 {
		return Listing{}, errNoConversation()
	}
	return l, nil
}

func errNoConversation() error {
	return apperr.Errorf(apperr.NotFound, "There is no such conversation in this browser.")
}

// sortConversations puts the newest first, by when they started: the
// order stays as they are used, so a page can be patched in place.
func sortConversations(cs []tree.Conversation) {
	slices.SortStableFunc(cs, func(a, b tree.Conversation) int {
		return cmp.Or(b.Created.Compare(a.Created), cmp.Compare(a.ID, b.ID))
	})
}

package calls

import (
	"context"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The audit: a session's tool calls across its conversations, newest
// first, each with who decided it (the permission policy's record, on
// tree.ToolRecord) and how it went.

// ToolFilter chooses the tool calls the audit lists: of one tool, with
// one decision, with one outcome, each when not empty.
type ToolFilter struct {
	Tool     string
	Decision string // allow, ask, deny or finalDeny
	Outcome  string // ok, error, denied or cancelled
}

// Decisions are the decisions a filter may name, as the record spells
// them (policy.Action).
func Decisions() []string { return []string{"allow", "ask", "deny", "finalDeny"} }

// Outcomes are the outcomes a filter may name.
func Outcomes() []string { return []string{"ok", "error", "denied", "cancelled"} }

// Check refuses a filter that names a decision or an outcome there is
// not, or a tool name longer than any. Its messages do not repeat what was
// sent: it may be any text.
func (f ToolFilter) Check() error {
	switch {
	case f.Decision != "" && !slices.Contains(Decisions(), f.Decision):
		return apperr.Errorf(apperr.Invalid, "The decision to list is one of allow, ask, deny or finalDeny.")
	case f.Outcome != "" && !slices.Contains(Outcomes(), f.Outcome):
		return apperr.Errorf(apperr.Invalid, "The outcome to list is one of ok, error, denied or cancelled.")
	case utf8.RuneCountInString(f.Tool) > 200:
		return apperr.Errorf(apperr.Invalid, "No tool has a name that long.")
	}
	return nil
}

// ToolCall is one tool call of the audit: the node that recorded it, its
// conversation, and its record with the audit.
type ToolCall struct {
	Node         int64
	Conversation tree.Conversation
	// At is when the call began; for a call recorded before the policy,
	// which kept no start, when it was recorded.
	At     time.Time
	Record tree.ToolRecord
}

// Outcome is how the call went (OutcomeOf).
func (c ToolCall) Outcome() string { return OutcomeOf(c.Record) }

// OutcomeOf is how a recorded tool call went: ok, error, denied or
// cancelled. A call recorded before the policy is ok or error by whether
// it failed.
func OutcomeOf(r tree.ToolRecord) string { return r.Ended() }

// ToolListing is what the audit lists.
type ToolListing struct {
	Filter ToolFilter
	// Calls are the calls listed, newest first.
	Calls []ToolCall
	// More is set when there are more calls than the listing was asked
	// for: the oldest are left out.
	More bool
}

// ToolCalls lists the tool calls of the session's conversations that f
// keeps, newest first, at most limit of them (every one for 0). Another
// session's conversations are never read. Errors: Invalid for a filter
// Check refuses.
func (s *Service) ToolCalls(ctx context.Context, session string, f ToolFilter, limit int) (ToolListing, error) {
	if err := f.Check(); err != nil {
		return ToolListing{}, err
	}
	ask := limit
	if limit > 0 {
		ask = limit + 1 // one more says whether there are more
	}
	nodes, err := s.records.ToolCalls(ctx, session, f.Tool, f.Decision, f.Outcome, ask)
	if err != nil {
		return ToolListing{}, err
	}
	l := ToolListing{Filter: f}
	if limit > 0 && len(nodes) > limit {
		nodes, l.More = nodes[:limit], true
	}
	if len(nodes) == 0 {
		return l, nil
	}
	convs, err := s.records.Conversations(ctx, session)
	if err != nil {
		return ToolListing{}, err
	}
	byID := make(map[string]tree.Conversation, len(convs))
	for _, c := range convs {
		byID[c.ID] = c
	}
	for _, n := range nodes {
		c, ok := byID[n.Conversation]
		if !ok {
			continue // deleted between the two reads
		}
		rec, err := tree.Decode[tree.ToolRecord](n)
		if err != nil {
			rec = tree.ToolRecord{Agent: n.Agent, Error: "The record of this call does not read: " + err.Error()}
		}
		at := n.At
		if rec.Started > 0 {
			at = time.UnixMilli(rec.Started)
		}
		l.Calls = append(l.Calls, ToolCall{Node: n.ID, Conversation: c, At: at, Record: rec})
	}
	return l, nil
}

package sampling

import (
	"context"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/primitive"
)

// Truncation configures TruncateHistory. A zero limit sets no limit of its
// kind.
type Truncation struct {
	// MaxMessages is how many messages a request may hold, the note of
	// omission included.
	MaxMessages int
	// MaxWords is roughly how many tokens a request may hold, counted as
	// the words of its messages' content and tool call arguments.
	MaxWords int
	// KeepTurns is how many of the latest turns are always kept, a turn
	// being a user message and everything after it up to the next; less
	// than one keeps the latest.
	KeepTurns int
}

// TruncateHistory returns a child context in which a request longer than
// t allows has its oldest messages dropped, and a system note "(n earlier
// messages omitted)" put where they were. Kept always are the system
// messages and the latest t.KeepTurns turns. A tool call and its results
// are kept or dropped together: the model's provider refuses a tool result
// whose call is missing, and a call whose results are. When the messages
// that must be kept are already over the limit, they are all that is
// sent. It runs at the input stage with Max priority, beside the
// conversation's compaction (which summarizes the history an agent reads,
// primitive.History): it bounds every request, however an agent built it.
func TruncateHistory(ctx context.Context, t Truncation) context.Context {
	return primitive.SampleInput.Around(ctx, func(next primitive.Handler[primitive.Prompt, primitive.Prompt]) primitive.Handler[primitive.Prompt, primitive.Prompt] {
		return func(ctx context.Context, p primitive.Prompt) (primitive.Prompt, error) {
			p.Request.Messages = t.truncate(p.Request.Messages)
			return next(ctx, p)
		}
	}, primitive.Max)
}

// over reports whether messages of count n and words words break t.
func (t Truncation) over(n, words int) bool {
	return t.MaxMessages > 0 && n > t.MaxMessages || t.MaxWords > 0 && words > t.MaxWords
}

// truncate returns msgs shortened as t says, or msgs itself when they fit.
func (t Truncation) truncate(msgs []llm.Message) []llm.Message {
	words := 0
	for _, m := range msgs {
		words += wordsOf(m)
	}
	if !t.over(len(msgs), words) {
		return msgs
	}
	units := unitsOf(msgs)
	protected := t.protectedFrom(msgs)
	dropped := make([]bool, len(msgs))
	n, count := len(msgs), 0
	for _, u := range units {
		if !t.over(n+1, words+noteWords) {
			break
		}
		if u.keep(msgs, protected) {
			continue
		}
		for _, i := range u.members {
			dropped[i] = true
			words -= wordsOf(msgs[i])
		}
		n -= len(u.members)
		count += len(u.members)
	}
	if count == 0 {
		return msgs
	}
	out := make([]llm.Message, 0, n+1)
	noted := false
	for i, m := range msgs {
		if dropped[i] {
			if !noted {
				out = append(out, llm.Message{Role: llm.System, Content: fmt.Sprintf("(%d earlier %s omitted)", count, plural(count, "message", "messages"))})
				noted = true
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// noteWords is the size of the note of omission, "(n earlier messages
// omitted)", as counted against the limits.
const noteWords = 4

// protectedFrom returns the index of the first message of the latest
// t.KeepTurns turns; 0 when there are no more turns than that, a request
// without a user message being one turn.
func (t Truncation) protectedFrom(msgs []llm.Message) int {
	keep := max(t.KeepTurns, 1)
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.User {
			if seen++; seen == keep {
				return i
			}
		}
	}
	return 0
}

// unit is messages that are kept or dropped together: one message, or an
// assistant message with tool calls and the results of those calls.
type unit struct{ members []int }

// keep reports whether u must be kept: it holds a system message or a
// message of the protected turns.
func (u unit) keep(msgs []llm.Message, protected int) bool {
	for _, i := range u.members {
		if msgs[i].Role == llm.System || i >= protected {
			return true
		}
	}
	return false
}

// unitsOf groups msgs into units, in the order of their first messages. A
// tool result goes with the latest assistant message before it that made
// its call; one whose call is nowhere before it is a unit alone.
func unitsOf(msgs []llm.Message) []unit {
	var units []unit
	callers := map[string]int{} // tool call id → its unit
	for i, m := range msgs {
		if m.Role == llm.Tool {
			if u, ok := callers[m.ToolCallID]; ok {
				units[u].members = append(units[u].members, i)
				continue
			}
		}
		units = append(units, unit{members: []int{i}})
		if m.Role == llm.Assistant {
			for _, c := range m.ToolCalls {
				callers[c.ID] = len(units) - 1
			}
		}
	}
	return units
}

// wordsOf counts the words of m, its tool calls' arguments included: a
// rough count of its tokens.
func wordsOf(m llm.Message) int {
	n := len(strings.Fields(m.Content))
	for _, c := range m.ToolCalls {
		n += len(strings.Fields(c.Arguments)) + 1
	}
	return n
}

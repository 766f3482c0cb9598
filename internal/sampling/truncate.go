package sampling

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/tokens"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Truncation configures TruncateHistory. A zero limit sets no limit of its
// kind.
type Truncation struct {
	// MaxMessages is how many messages a request may hold, the note of
	// omission included.
	MaxMessages int
	// MaxTokens is how many tokens a request may hold: the budget of the
	// model's context window less what its reply needs. Tokens are
	// estimated as the conversation's compaction estimates them, 4 for
	// each message and one for every 4 bytes of its content, tool calls'
	// names and arguments included.
	MaxTokens int
	// MaxWords is roughly how many tokens a request may hold, counted as
	// the words of its messages' content and tool call arguments.
	MaxWords int
	// KeepTurns is how many of the latest turns are always kept, a turn
	// being a user message and everything after it up to the next; less
	// than one keeps the latest.
	KeepTurns int
}

// TruncateHistory returns a child context in which a request longer than
// t allows has messages dropped, and a system note "(n earlier messages
// omitted)" put where the first of them was. Kept always are the system
// messages and the latest t.KeepTurns turns (but for the older tool
// exchanges of a turn that alone is over the limit, a long agent loop,
// whose latest exchange and message stay). Of the rest, what says least
// goes first: the assistant's prose (remarks, figures shown, side
// replies), then the user's messages, then tool exchanges, the oldest
// first within each, until the request fits; then what fits again of what
// went is put back, the most valued first. A tool call and its results
// are kept or dropped together: the model's provider refuses a tool result
// whose call is missing, and a call whose results are. When the messages
// that must be kept are already over the limit, they are all that is
// sent.
//
// It runs at the input stage with Max priority, beside the conversation's
// compaction (which summarizes the history an agent reads,
// turn.History): it bounds every request, however an agent built it.
// A request that fits costs one pass over its messages and no allocation,
// since it runs on every model call of an agent loop.
func TruncateHistory(ctx context.Context, t Truncation) context.Context {
	return middleware.SampleInput.Around(ctx, func(next middleware.Handler[middleware.Prompt, middleware.Prompt]) middleware.Handler[middleware.Prompt, middleware.Prompt] {
		return func(ctx context.Context, p middleware.Prompt) (middleware.Prompt, error) {
			p.Request.Messages = t.truncate(p.Request.Messages)
			return next(ctx, p)
		}
	}, middleware.Max)
}

// size is how much of each limit some messages take.
type size struct{ messages, words, tokens int }

func (s size) plus(o size) size {
	return size{s.messages + o.messages, s.words + o.words, s.tokens + o.tokens}
}

func (s size) minus(o size) size {
	return size{s.messages - o.messages, s.words - o.words, s.tokens - o.tokens}
}

// over reports whether s breaks t.
func (t Truncation) over(s size) bool {
	return t.MaxMessages > 0 && s.messages > t.MaxMessages ||
		t.MaxWords > 0 && s.words > t.MaxWords ||
		t.MaxTokens > 0 && s.tokens > t.MaxTokens
}

// sizeOf measures m by the limits t sets; a measure no limit asks for is
// not counted, so that a request under a token limit is never split into
// words.
func (t Truncation) sizeOf(m llm.Message) size {
	s := size{messages: 1}
	if t.MaxWords > 0 {
		s.words = wordsOf(m)
	}
	if t.MaxTokens > 0 {
		s.tokens = tokens.Estimate(m)
	}
	return s
}

// The size of the note of omission, "(n earlier messages omitted)", as
// counted against the limits, whatever n.
const (
	noteWords  = 4
	noteTokens = 4 + (len("(1000000 earlier messages omitted)")+3)/4
)

// truncate returns msgs shortened as t says, or msgs itself when they fit.
func (t Truncation) truncate(msgs []llm.Message) []llm.Message {
	var total size
	for i := range msgs {
		total = total.plus(t.sizeOf(msgs[i]))
	}
	if !t.over(total) {
		return msgs
	}
	units, unitOf := t.unitsOf(msgs, t.protectedFrom(msgs))
	total = total.plus(size{messages: 1, words: noteWords, tokens: noteTokens})
	gone := make([]int, 0, len(units)) // units, in the order they were dropped
drop:
	for class := chatter; class <= exchange; class++ {
		for u := range units {
			if !t.over(total) {
				break drop
			}
			if units[u].class != class || units[u].keep {
				continue
			}
			total = total.minus(units[u].size)
			gone = append(gone, u)
		}
	}
	if t.over(total) {
		// The latest turns alone are over: one long agent loop, whose
		// every step adds a tool exchange. Its older exchanges go too,
		// the oldest first, but never its message, nor its latest
		// exchange, which the model is acting on.
		latest := -1
		for u := range units {
			if units[u].class == exchange {
				latest = u
			}
		}
		for u := range units {
			if !t.over(total) {
				break
			}
			if units[u].class == exchange && units[u].keep && !units[u].system && u != latest {
				total = total.minus(units[u].size)
				gone = append(gone, u)
			}
		}
	}
	if len(gone) == 0 {
		return msgs
	}
	// A small unit dropped early may fit again beside the large one whose
	// dropping made room: the units are offered back most valued first,
	// the reverse of the order they went in, so that room left is not
	// wasted on what is worth least.
	dropped := make([]bool, len(units))
	count := 0
	for k := len(gone) - 1; k >= 0; k-- {
		u := gone[k]
		if s := total.plus(units[u].size); !t.over(s) {
			total = s
			continue
		}
		dropped[u] = true
		count += units[u].size.messages
	}
	return withNote(msgs, unitOf, dropped, count)
}

// withNote returns the messages of msgs whose unit (unitOf) is not
// dropped, with one note of omission where the first dropped one was, or
// just after: never between a tool call and its results, which the
// provider wants together.
//
// withNote writes one note, not one for each gap. Chatter goes first, so
// the gaps are many and small (a remark between two tool exchanges, a
// loop's every "Let me look that up"): a note in each would cost about as
// many tokens as the remark it stands for, and tell the model little more
// than one note does, which is that the history it reads is incomplete and
// by how much.
func withNote(msgs []llm.Message, unitOf []int, dropped []bool, count int) []llm.Message {
	note := llm.Message{Role: llm.System, Content: fmt.Sprintf("(%d earlier %s omitted)", count, plural(count, "message", "messages"))}
	out := make([]llm.Message, 0, len(msgs)-count+1)
	pending, noted := false, false
	for i, m := range msgs {
		if dropped[unitOf[i]] {
			pending = !noted
			continue
		}
		if pending && m.Role != llm.Tool {
			out = append(out, note)
			pending, noted = false, true
		}
		out = append(out, m)
	}
	if pending {
		out = append(out, note)
	}
	return out
}

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

// class orders what TruncateHistory drops: the lower first.
type class int

const (
	// chatter is the assistant's prose: what it said, not what it did.
	chatter class = iota
	// said is the user's messages.
	said
	// exchange is a tool call with its results: what the assistant did and
	// what came of it, which later prose rests on.
	exchange
)

// unit is messages that are kept or dropped together: one message, or an
// assistant message with tool calls and the results of those calls.
type unit struct {
	size  size
	class class // its first message's
	// keep is whether it must be kept: it holds a system message or a
	// message of the protected turns.
	keep bool
	// system is whether it holds a system message, kept whatever else.
	system bool
}

// classOf returns the class of a unit that starts with m. A tool result
// whose call went missing counts as an exchange: it is a result all the
// same.
func classOf(m llm.Message) class {
	switch {
	case m.Role == llm.User:
		return said
	case m.Role == llm.Tool, len(m.ToolCalls) > 0:
		return exchange
	}
	return chatter
}

// unitsOf groups msgs into units, in the order of their first messages,
// and says which unit each message is in; the messages from protected on
// are kept. A tool result goes with the latest assistant message before it
// that made its call; one whose call is nowhere before it is a unit alone.
func (t Truncation) unitsOf(msgs []llm.Message, protected int) (units []unit, unitOf []int) {
	units = make([]unit, 0, len(msgs))
	unitOf = make([]int, len(msgs))
	callers := map[string]int{} // tool call id → its unit
	for i, m := range msgs {
		keep := m.Role == llm.System || i >= protected
		if m.Role == llm.Tool {
			if u, ok := callers[m.ToolCallID]; ok {
				unitOf[i] = u
				units[u].size = units[u].size.plus(t.sizeOf(m))
				units[u].keep = units[u].keep || keep
				units[u].system = units[u].system || m.Role == llm.System
				continue
			}
		}
		unitOf[i] = len(units)
		units = append(units, unit{size: t.sizeOf(m), class: classOf(m), keep: keep, system: m.Role == llm.System})
		if m.Role == llm.Assistant {
			for _, c := range m.ToolCalls {
				callers[c.ID] = unitOf[i]
			}
		}
	}
	return units, unitOf
}

// wordsOf counts the words of m, its tool calls' arguments included, and
// one for each call: a rough count of its tokens.
func wordsOf(m llm.Message) int {
	n := countWords(m.Content)
	for _, c := range m.ToolCalls {
		n += countWords(c.Arguments) + 1
	}
	return n
}

package calls

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// records are the payload records of a conversation's nodes, decoded, by
// node. A record never changes once written, so an open calls page, which
// reads a conversation again at each change, decodes each only once.
type records map[int64]any

// decodeRecord is tree.Decode, through rs when it is not nil.
func decodeRecord[T any](rs records, n tree.Node) (T, error) {
	if v, ok := rs[n.ID].(T); ok {
		return v, nil
	}
	v, err := tree.Decode[T](n)
	if err == nil && rs != nil {
		rs[n.ID] = v
	}
	return v, err
}

// wholeSample is the record of Sample node n with its whole request
// (tree.Requests), through rs when it is not nil, which keeps whole
// records; node finds the nodes before n, its base among them.
func wholeSample(rs records, reqs *tree.Requests, n tree.Node, node func(int64) (tree.Node, bool)) (tree.SampleRecord, error) {
	if v, ok := rs[n.ID].(tree.SampleRecord); ok {
		reqs.Remember(n.ID, v.Request) // a later call may continue it
		return v, nil
	}
	v, err := reqs.Whole(n, node)
	if err == nil && rs != nil {
		rs[n.ID] = v
	}
	return v, err
}

// read lists the calls and log lines of a conversation's nodes, given in
// id order as the store returns them, decoding their records through rs
// (which may be nil), where it leaves those of the nodes given alone.
func read(conv tree.Conversation, nodes []tree.Node, f Filter, rs records) Conversation {
	byID := make(map[int64]tree.Node, len(nodes))
	turnOf := make(map[int64]int64, len(nodes)) // node → the message that started its turn
	turns := map[int64]*Turn{}
	var order []int64
	calls := map[int64]*Call{} // by node
	var reqs tree.Requests     // the whole requests of the calls read so far
	node := func(id int64) (tree.Node, bool) { n, ok := byID[id]; return n, ok }
	for _, n := range nodes {
		byID[n.ID] = n
		if n.Kind == tree.UserMessage || n.Kind == tree.SideQuestion {
			m, _ := decodeRecord[tree.Message](rs, n)
			turns[n.ID] = &Turn{ID: n.ID, Kind: n.Kind, Text: m.Text, At: n.At}
			order = append(order, n.ID)
			turnOf[n.ID] = n.ID
		} else {
			turnOf[n.ID] = turnOf[n.Parent]
		}
		t := turns[turnOf[n.ID]]
		if t == nil {
			continue // before any message: no turn's
		}
		t.nodes, t.newest = t.nodes+1, n.ID
		// ancestor walks n's turn back from n to the nearest node that
		// matches, the way its code made its calls.
		ancestor := func(match func(tree.Node) bool) (tree.Node, bool) {
			for p, ok := byID[n.Parent]; ok && p.ID != t.ID; p, ok = byID[p.Parent] {
				if match(p) {
					return p, true
				}
			}
			return tree.Node{}, false
		}
		sameScope := func(p tree.Node) bool { return durable.ScopeOf(p.Ref) == durable.ScopeOf(n.Ref) }
		switch n.Kind {
		case tree.Sample:
			rec, err := wholeSample(rs, &reqs, n, node)
			if err != nil {
				rec.Error = "The record of this call does not read: " + err.Error()
			}
			c := &Call{Node: n.ID, Ref: n.Ref, Agent: n.Agent, At: n.At, Record: rec, Attempt: 1}
			// An attempt after a refusal follows it in its own scope.
			if p, ok := ancestor(func(p tree.Node) bool {
				return (p.Kind == tree.Sample || p.Kind == tree.SampleRetry) && sameScope(p)
			}); ok && p.Kind == tree.SampleRetry {
				if note, err := decodeRecord[primitive.RetryNote](rs, p); err == nil {
					c.Attempt, c.After = note.Attempt+1, &note
				}
			}
			if rec.Response != nil {
				for _, tc := range rec.Response.ToolCalls {
					c.Tools = append(c.Tools, Tool{Call: tc})
				}
			}
			calls[n.ID] = c
			t.Totals.Calls++
			t.Totals.LatencyMS += rec.LatencyMS
			if rec.Error != "" {
				t.Totals.Failed++
			}
			if rec.Response != nil {
				t.Totals.TokensIn += rec.Response.Usage.PromptTokens
				t.Totals.TokensOut += rec.Response.Usage.CompletionTokens
			}
			t.Entries = append(t.Entries, Entry{Call: c})
		case tree.SampleRetry:
			// The refused attempt is the model call before it in its scope.
			note, err := decodeRecord[primitive.RetryNote](rs, n)
			p, ok := ancestor(func(p tree.Node) bool { return p.Kind == tree.Sample && sameScope(p) })
			if c := calls[p.ID]; err == nil && ok && c != nil && c.Refused == nil {
				c.Refused = &note
				t.Totals.Refused++
			}
		case tree.ToolCall:
			// The call that asked for it is the nearest before it whose
			// answer holds a call of this tool with these arguments not
			// run yet; failing that, one of this tool: the user may have
			// edited the arguments before allowing the call, or a rule
			// kept a digest in their place.
			rec, err := decodeRecord[tree.ToolRecord](rs, n)
			if err != nil {
				continue
			}
			for _, same := range []bool{true, false} {
				_, found := ancestor(func(p tree.Node) bool {
					c := calls[p.ID]
					if p.Kind != tree.Sample || c == nil {
						return false
					}
					for i := range c.Tools {
						tool := &c.Tools[i]
						if tool.Node == 0 && tool.Call.Name == rec.Tool && (!same || durable.SameJSON(toolArguments(tool.Call), rec.Input)) {
							tool.Node, tool.Output, tool.Error, tool.Record = n.ID, rec.Output, rec.Error, rec
							return true
						}
					}
					return false
				})
				if found {
					break
				}
			}
		case tree.Feedback:
			// Beside the call that made the reply: the nearest above it.
			rec, err := decodeRecord[tree.FeedbackRecord](rs, n)
			p, ok := ancestor(func(p tree.Node) bool { return p.Kind == tree.Sample })
			if c := calls[p.ID]; err == nil && ok && c != nil {
				c.Feedback = &rec
				if rec.Rating == tree.NoRating && rec.Comment == "" {
					c.Feedback = nil // taken back
				}
			}
		case tree.Log:
			rec, err := decodeRecord[tree.LogRecord](rs, n)
			if err != nil {
				continue
			}
			t.Entries = append(t.Entries, Entry{Log: &Log{Node: n.ID, Agent: n.Agent, At: n.At, Record: rec}})
		}
	}
	for id := range rs {
		if _, ok := byID[id]; !ok {
			delete(rs, id) // collected
		}
	}
	c := Conversation{Conversation: conv}
	for _, id := range order {
		t := turns[id]
		c.Totals.add(t.Totals)
		if f.Trouble {
			t.Entries = slices.DeleteFunc(t.Entries, func(e Entry) bool {
				if e.Call != nil {
					return !e.Call.Trouble()
				}
				return e.Log.Record.Level < slog.LevelWarn
			})
		}
		if len(t.Entries) > 0 {
			c.Turns = append(c.Turns, *t)
		}
	}
	return c
}

// toolArguments are the arguments of a model's tool call as the tool got
// them: none is an empty object.
func toolArguments(c llm.ToolCall) json.RawMessage {
	if args := strings.TrimSpace(c.Arguments); args != "" {
		return json.RawMessage(args)
	}
	return json.RawMessage("{}")
}

package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// The debug page: every model call of a session's conversations as it was
// recorded, grouped by turn, with the tool calls that followed, the
// refusals that made a middleware ask again and the log lines in between;
// and the feed that tells each open debug page when a conversation of its
// session recorded something.
//
// The listing is read from the store, not from the live conversations: a
// debug page looks at records, so it neither loads a conversation nor
// resumes its turn, and it can follow every conversation of a session at
// once, which a page's subscription (one conversation, held in memory)
// cannot.

// DebugFilter chooses what a debug page lists.
type DebugFilter struct {
	// Conversation, when set, is the one conversation listed.
	Conversation string
	// Trouble lists only the calls that failed, were refused by a
	// middleware or were made again after a refusal, and the log lines of
	// warning level and above. Totals still count every call.
	Trouble bool
}

// Debug is what a debug page shows.
type Debug struct {
	Filter DebugFilter
	// Conversations are the ones listed, newest first.
	Conversations []DebugConversation
	// All are every conversation of the session, newest first, for
	// choosing one.
	All []tree.Conversation
	// Totals add up the listed conversations.
	Totals DebugTotals
	// Model names the model that answers now and where it is served from
	// (llm.Label), which the chat's pages leave out.
	Model string
}

// DebugTotals add up model calls.
type DebugTotals struct {
	Calls     int
	Failed    int // calls the provider failed
	Refused   int // answers a middleware refused, asking again
	TokensIn  int // prompt tokens, as the providers counted them
	TokensOut int // completion tokens
	LatencyMS float64
}

func (t *DebugTotals) add(o DebugTotals) {
	t.Calls += o.Calls
	t.Failed += o.Failed
	t.Refused += o.Refused
	t.TokensIn += o.TokensIn
	t.TokensOut += o.TokensOut
	t.LatencyMS += o.LatencyMS
}

// DebugConversation is one conversation's turns that have calls or log
// lines to show.
type DebugConversation struct {
	Conversation tree.Conversation
	Turns        []DebugTurn
	// Totals count every call of the conversation, whatever the filter
	// shows.
	Totals DebugTotals
}

// DebugTurn is one turn: the message that started it, and its calls and
// log lines in the order they were recorded, on every branch the turn
// took.
type DebugTurn struct {
	ID      int64     // the node of the message that started the turn
	Kind    tree.Kind // UserMessage, or SideQuestion for a side question
	Text    string
	At      time.Time
	Entries []DebugEntry
	// Totals count every call of the turn, whatever the filter shows.
	Totals DebugTotals

	nodes  int   // how many nodes the turn has: with newest, what it was drawn from
	newest int64 // its newest node
}

// DebugEntry is a model call or a log line.
type DebugEntry struct {
	Call *DebugCall
	Log  *DebugLog
}

// DebugCall is one model call as recorded: its node, the request and the
// answer (or the failure), and what came of it.
type DebugCall struct {
	Node   int64
	Ref    string // its call id
	Agent  string
	At     time.Time
	Record tree.SampleRecord
	// Attempt counts the attempts of one sample from 1; After is the
	// refusal of the attempt before, for an attempt after the first.
	Attempt int
	After   *runtime.RetryNote
	// Refused is the refusal of this attempt's answer by a middleware of
	// the sample pipeline, which asked again.
	Refused *runtime.RetryNote
	// Tools are the calls the answer asked for, in its order, with their
	// results once they ran.
	Tools []DebugTool
}

// Trouble reports whether the call failed, was refused or was made again.
func (c *DebugCall) Trouble() bool {
	return c.Record.Error != "" || c.Refused != nil || c.Attempt > 1
}

// DebugTool is a tool call a model's answer asked for.
type DebugTool struct {
	Call llm.ToolCall
	// Node is the node that recorded the finished call, 0 when none did
	// (it has not finished, or the turn was stopped first, or the tool is
	// not recorded as one, as ask_user is: its question and answer are).
	Node   int64
	Output json.RawMessage
	Error  string
}

// DebugLog is a log line of a turn.
type DebugLog struct {
	Node   int64
	Agent  string
	At     time.Time
	Record tree.LogRecord
}

// Debug lists the model calls of the session's conversations, or of the
// one f names. Errors: NotFound for a conversation the session does not
// own.
func (s *Service) Debug(ctx context.Context, session string, f DebugFilter) (Debug, error) {
	return s.debugList(ctx, session, f, nil)
}

// debugList is Debug, with the records decoded before by conversation, if
// rs is not nil; it keeps those it decodes there.
func (s *Service) debugList(ctx context.Context, session string, f DebugFilter, rs map[string]records) (Debug, error) {
	all, err := s.store.Conversations(ctx, session)
	if err != nil {
		return Debug{}, err
	}
	sortConversations(all)
	d := Debug{Filter: f, All: all, Model: llm.Label(s.model)}
	for _, conv := range all {
		if f.Conversation != "" && conv.ID != f.Conversation {
			continue
		}
		nodes, err := s.store.Nodes(ctx, conv.ID)
		if err != nil {
			return Debug{}, err
		}
		var cache records
		if rs != nil {
			cache = records{}
			rs[conv.ID] = cache
		}
		dc := debugConversation(conv, nodes, f, cache)
		d.Totals.add(dc.Totals)
		d.Conversations = append(d.Conversations, dc)
	}
	if f.Conversation != "" && len(d.Conversations) == 0 {
		return Debug{}, errNoConversation()
	}
	return d, nil
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

// records are the payload records of a conversation's nodes, decoded, by
// node. A record never changes once written, so an open debug page, which
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

// debugConversation lists the calls and log lines of a conversation's
// nodes, given in id order as the store returns them, decoding their
// records through rs (which may be nil), where it leaves those of the
// nodes given alone.
func debugConversation(conv tree.Conversation, nodes []tree.Node, f DebugFilter, rs records) DebugConversation {
	byID := make(map[int64]tree.Node, len(nodes))
	turnOf := make(map[int64]int64, len(nodes)) // node → the message that started its turn
	turns := map[int64]*DebugTurn{}
	var order []int64
	calls := map[int64]*DebugCall{} // by node
	for _, n := range nodes {
		byID[n.ID] = n
		if n.Kind == tree.UserMessage || n.Kind == tree.SideQuestion {
			m, _ := decodeRecord[tree.Message](rs, n)
			turns[n.ID] = &DebugTurn{ID: n.ID, Kind: n.Kind, Text: m.Text, At: n.At}
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
			rec, err := decodeRecord[tree.SampleRecord](rs, n)
			if err != nil {
				rec.Error = "The record of this call does not read: " + err.Error()
			}
			c := &DebugCall{Node: n.ID, Ref: n.Ref, Agent: n.Agent, At: n.At, Record: rec, Attempt: 1}
			// An attempt after a refusal follows it in its own scope.
			if p, ok := ancestor(func(p tree.Node) bool {
				return (p.Kind == tree.Sample || p.Kind == tree.SampleRetry) && sameScope(p)
			}); ok && p.Kind == tree.SampleRetry {
				if note, err := decodeRecord[runtime.RetryNote](rs, p); err == nil {
					c.Attempt, c.After = note.Attempt+1, &note
				}
			}
			if rec.Response != nil {
				for _, tc := range rec.Response.ToolCalls {
					c.Tools = append(c.Tools, DebugTool{Call: tc})
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
			t.Entries = append(t.Entries, DebugEntry{Call: c})
		case tree.SampleRetry:
			// The refused attempt is the model call before it in its scope.
			note, err := decodeRecord[runtime.RetryNote](rs, n)
			p, ok := ancestor(func(p tree.Node) bool { return p.Kind == tree.Sample && sameScope(p) })
			if c := calls[p.ID]; err == nil && ok && c != nil && c.Refused == nil {
				c.Refused = &note
				t.Totals.Refused++
			}
		case tree.ToolCall:
			// The call that asked for it is the nearest before it whose
			// answer holds a call of this tool with these arguments not
			// run yet.
			rec, err := decodeRecord[tree.ToolRecord](rs, n)
			if err != nil {
				continue
			}
			ancestor(func(p tree.Node) bool {
				c := calls[p.ID]
				if p.Kind != tree.Sample || c == nil {
					return false
				}
				for i := range c.Tools {
					tool := &c.Tools[i]
					if tool.Node == 0 && tool.Call.Name == rec.Tool && durable.SameJSON(toolArguments(tool.Call), rec.Input) {
						tool.Node, tool.Output, tool.Error = n.ID, rec.Output, rec.Error
						return true
					}
				}
				return false
			})
		case tree.Log:
			rec, err := decodeRecord[tree.LogRecord](rs, n)
			if err != nil {
				continue
			}
			t.Entries = append(t.Entries, DebugEntry{Log: &DebugLog{Node: n.ID, Agent: n.Agent, At: n.At, Record: rec}})
		}
	}
	for id := range rs {
		if _, ok := byID[id]; !ok {
			delete(rs, id) // collected
		}
	}
	dc := DebugConversation{Conversation: conv}
	for _, id := range order {
		t := turns[id]
		dc.Totals.add(t.Totals)
		if f.Trouble {
			t.Entries = slices.DeleteFunc(t.Entries, func(e DebugEntry) bool {
				if e.Call != nil {
					return !e.Call.Trouble()
				}
				return e.Log.Record.Level < slog.LevelWarn
			})
		}
		if len(t.Entries) > 0 {
			dc.Turns = append(dc.Turns, *t)
		}
	}
	return dc
}

// toolArguments are the arguments of a model's tool call as the tool got
// them: none is an empty object.
func toolArguments(c llm.ToolCall) json.RawMessage {
	if args := strings.TrimSpace(c.Arguments); args != "" {
		return json.RawMessage(args)
	}
	return json.RawMessage("{}")
}

// debugFeeds tells the open debug pages what conversations recorded
// something. The zero value has none open.
type debugFeeds struct {
	open    atomic.Int32 // how many watches there are: none costs a record one load
	mu      sync.Mutex
	watches map[*DebugWatch]struct{}
}

// debugRecorded tells the debug pages of c's session that c recorded a
// node; c.mu is held.
func (s *Service) debugRecorded(c *conversation) {
	if s.debug.open.Load() == 0 {
		return
	}
	s.mu.Lock()
	owner := c.owner
	s.mu.Unlock()
	f := &s.debug
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.watches {
		if w.session != owner || (w.filter.Conversation != "" && w.filter.Conversation != c.conv.ID) {
			continue
		}
		w.dirty[c.conv.ID] = true
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// debugRotated has the debug pages of session prev follow its
// conversations to session next; s.mu is held.
func (s *Service) debugRotated(prev, next string) {
	if s.debug.open.Load() == 0 {
		return
	}
	s.debug.mu.Lock()
	defer s.debug.mu.Unlock()
	for w := range s.debug.watches {
		if w.session == prev {
			w.session = next
		}
	}
}

// DebugWatch follows the model calls of a session's conversations for one
// open debug page. It remembers what the page shows, so that a change is
// sent as the turns that changed, not the whole page again.
type DebugWatch struct {
	svc    *Service
	filter DebugFilter
	wake   chan struct{} // has a value when something may have changed

	// Guarded by svc.debug.mu.
	session string          // follows a rotation of the session
	dirty   map[string]bool // conversations that recorded since the last Changes

	drawn  bool
	order  []string               // the conversations drawn, in order
	shown  map[string][]shownTurn // conversation → its turns as drawn
	totals map[string]DebugTotals // conversation → its totals as drawn
	// records are the records decoded so far, by conversation.
	records map[string]records
}

// shownTurn is a turn as a debug page was shown it.
type shownTurn struct {
	id     int64
	nodes  int
	newest int64
}

// WatchDebug starts following what Debug lists for one open page. Its
// first Changes are the whole listing. Close it when the page goes away.
// Errors: NotFound for a conversation the session does not own.
func (s *Service) WatchDebug(ctx context.Context, session string, f DebugFilter) (*DebugWatch, error) {
	if f.Conversation != "" {
		if _, err := s.store.Conversation(ctx, session, f.Conversation); err != nil {
			return nil, errNoConversation()
		}
	}
	w := &DebugWatch{svc: s, filter: f, wake: make(chan struct{}, 1), session: session, dirty: map[string]bool{}}
	s.debug.mu.Lock()
	if s.debug.watches == nil {
		s.debug.watches = map[*DebugWatch]struct{}{}
	}
	s.debug.watches[w] = struct{}{}
	s.debug.open.Add(1)
	s.debug.mu.Unlock()
	return w, nil
}

// Close stops following.
func (w *DebugWatch) Close() {
	f := &w.svc.debug
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.watches[w]; ok {
		delete(f.watches, w)
		f.open.Add(-1)
	}
}

// Wait waits until a conversation the page follows may have recorded
// something since the last Changes. It returns the context's error.
func (w *DebugWatch) Wait(ctx context.Context) error {
	select {
	case <-w.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DebugChange is what changed on a debug page: the whole of it, or some of
// its conversations.
type DebugChange struct {
	Full *Debug
	// Conversations changed, each as it is now.
	Conversations []DebugConversationChange
	// Totals add up every conversation listed, as they are now, Full or
	// not.
	Totals DebugTotals
}

// Empty reports whether nothing changed.
func (c DebugChange) Empty() bool { return c.Full == nil && len(c.Conversations) == 0 }

// DebugConversationChange is a conversation of a debug page that changed:
// drawn whole again, or some of its turns drawn again and some added after
// the others. Its totals have changed either way.
type DebugConversationChange struct {
	Conversation DebugConversation
	Whole        bool
	Changed      []int // indexes in Conversation.Turns of turns to draw again
	Added        []int // indexes of turns to add, in order
}

// Changes returns what changed since the page was last shown, and takes it
// as shown: the first time, everything. A change it cannot tell as turns
// (a new conversation, turns that are no longer a continuation of those
// shown) is the whole page.
func (w *DebugWatch) Changes(ctx context.Context) (DebugChange, error) {
	f := &w.svc.debug
	f.mu.Lock()
	session, dirty := w.session, w.dirty
	w.dirty = map[string]bool{}
	f.mu.Unlock()
	if !w.drawn {
		return w.full(ctx, session)
	}
	var ch DebugChange
	for _, id := range w.order {
		if !dirty[id] {
			continue
		}
		delete(dirty, id)
		conv, nodes, err := w.svc.store.Load(ctx, session, id)
		if apperr.CodeOf(err) == apperr.NotFound {
			return w.full(ctx, session) // it is no longer the session's
		}
		if err != nil {
			return DebugChange{}, err
		}
		dc := debugConversation(conv, nodes, w.filter, w.records[id])
		cc := DebugConversationChange{Conversation: dc}
		prev := w.shown[id]
		continues := len(prev) > 0 && len(prev) <= len(dc.Turns)
		for i := 0; continues && i < len(prev); i++ {
			continues = prev[i].id == dc.Turns[i].ID
		}
		if !continues {
			cc.Whole = true
		} else {
			for i, t := range dc.Turns {
				switch {
				case i >= len(prev):
					cc.Added = append(cc.Added, i)
				case prev[i].nodes != t.nodes || prev[i].newest != t.newest:
					cc.Changed = append(cc.Changed, i)
				}
			}
		}
		w.remember(dc)
		ch.Conversations = append(ch.Conversations, cc)
	}
	if len(dirty) > 0 {
		return w.full(ctx, session) // a conversation not drawn yet
	}
	for _, id := range w.order {
		ch.Totals.add(w.totals[id])
	}
	return ch, nil
}

// full returns the whole page and takes it as shown.
func (w *DebugWatch) full(ctx context.Context, session string) (DebugChange, error) {
	w.records = map[string]records{}
	d, err := w.svc.debugList(ctx, session, w.filter, w.records)
	if err != nil {
		return DebugChange{}, err
	}
	w.drawn, w.order = true, nil
	w.shown, w.totals = map[string][]shownTurn{}, map[string]DebugTotals{}
	for _, dc := range d.Conversations {
		w.order = append(w.order, dc.Conversation.ID)
		w.remember(dc)
	}
	return DebugChange{Full: &d, Totals: d.Totals}, nil
}

// remember takes dc as shown.
func (w *DebugWatch) remember(dc DebugConversation) {
	turns := make([]shownTurn, len(dc.Turns))
	for i, t := range dc.Turns {
		turns[i] = shownTurn{id: t.ID, nodes: t.nodes, newest: t.newest}
	}
	w.shown[dc.Conversation.ID] = turns
	w.totals[dc.Conversation.ID] = dc.Totals
}

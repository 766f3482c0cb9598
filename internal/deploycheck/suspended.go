package deploycheck

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Finding the suspended turns. Every suspended turn — the open
// turn on a conversation's HEAD, waiting on a question or cut off by a
// restart, and each side question's turn not yet ended — resumes by
// replay when its conversation is next opened. CheckSuspended replays each
// against the code of the program it runs in, without side effects (a dry
// run, dryrun.go), and says which would diverge: those conversations
// would fail on resume after the deploy.

// EveryConversation is what CheckSuspended needs of the store besides
// Store: every conversation in the database, whoever owns it.
type EveryConversation interface {
	EveryConversation(ctx context.Context) ([]tree.Conversation, error)
}

// Divergence is a suspended turn that would not resume under the code that
// runs now.
type Divergence struct {
	Conversation string // the conversation's id
	Title        string // the conversation's title
	Assistant    string // the assistant it talks to
	Turn         int64  // the node of the message (or side question) that started the turn
	Side         bool   // whether it is a side question's turn
	// Call is the call where the replay diverged ("7-2"); empty when the
	// turn cannot run at all (its assistant is gone).
	Call string
	// Recorded says what the record holds there, Made what the code now
	// does instead, both as a NonDeterminismError words them.
	Recorded, Made string
}

// Checked is what CheckSuspended found: how many suspended turns it
// replayed, and those that diverge.
type Checked struct {
	Turns    int
	Diverged []Divergence
}

// CheckSuspended replays every suspended turn of cfg.Store's database
// against cfg.Assistants — the code about to be deployed — and lists
// those that would diverge. It writes nothing, calls no model and runs no
// tool that the record shows finished (see dryrun.go); cfg.Scope is
// applied as for a live turn, so the program's middleware shapes each
// model request as it will. cfg.Store must also be an EveryConversation.
func CheckSuspended(ctx context.Context, cfg chat.Config) (Checked, error) {
	every, ok := cfg.Store.(EveryConversation)
	if !ok {
		return Checked{}, errors.New("check suspended turns: the store cannot list every conversation")
	}
	convs, err := every.EveryConversation(ctx)
	if err != nil {
		return Checked{}, err
	}
	var out Checked
	for _, listed := range convs {
		meta, nodes, err := cfg.Store.Load(ctx, listed.Session, listed.ID)
		if err != nil {
			return out, fmt.Errorf("check conversation %s: %w", listed.ID, err)
		}
		for _, st := range suspendedTurns(meta, nodes) {
			out.Turns++
			if dv := checkTurn(ctx, cfg, meta, st); dv != nil {
				out.Diverged = append(out.Diverged, *dv)
			}
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// suspendedTurn is a turn that resumes when its conversation is opened, as
// resumeLocked and resumeSidesLocked find it.
type suspendedTurn struct {
	id      int64     // its message's node, or its side question's
	path    tree.Path // the path to id
	side    bool
	text    string
	record  durable.Journal
	history []history.Message
	states  *state.Turn   // the agents' state as the turn sees it
	open    attach.Opener // the session's files, when files are kept
}

// suspendedTurns lists the suspended turns of a conversation: the open
// turn on HEAD's branch and the side turns along it without an end.
func suspendedTurns(meta tree.Conversation, nodes []tree.Node) []suspendedTurn {
	idx := tree.NewIndex(nodes)
	path := idx.PathTo(meta.Head)
	var out []suspendedTurn
	if i := path.OpenTurn(); i >= 0 {
		record := durable.NewJournal(idx.Tried(path[i+1:]))
		out = append(out, suspendedTurn{id: path[i].ID, path: path[:i+1], text: path.TurnText(i), record: record, history: history.Of(idx, path, path[i].ID, history.VersionOf(idx, path[i].ID)),
			states: state.NewTurn(state.Of(path[:i+1]), record.OfKind(state.Kinds()...))})
	}
	for _, n := range path {
		for _, q := range idx.SideThread(n.ID) {
			if _, ended := idx.SideEnd(q.ID); ended {
				continue
			}
			m, _ := tree.Decode[tree.Message](q)
			after := idx.PathTo(idx.SideTip(q.ID))[len(idx.PathTo(q.ID)):]
			record := durable.NewJournal(idx.Tried(after))
			out = append(out, suspendedTurn{id: q.ID, path: idx.PathTo(q.ID), side: true, text: m.Text, record: record, history: history.Side(idx, q.ID, history.VersionOf(idx, q.ID)),
				states: state.NewTurn(state.Of(idx.PathTo(q.ID)), record.OfKind(state.Kinds()...))})
		}
	}
	return out
}

// checkTurn replays st, a suspended turn of conversation meta, and returns
// where it diverges, or nil when it would resume.
func checkTurn(ctx context.Context, cfg chat.Config, meta tree.Conversation, st suspendedTurn) *Divergence {
	dv := &Divergence{Conversation: meta.ID, Title: meta.Title, Assistant: meta.Agent, Turn: st.id, Side: st.side}
	a, ok := cfg.Assistants.Get(meta.Agent)
	if !ok {
		dv.Recorded, dv.Made = "a turn of assistant "+meta.Agent, "no assistant of that name"
		return dv
	}
	if cfg.Files != nil { // the files sent, read as the live turn reads them
		st.open = func(ctx context.Context, id string) (io.ReadCloser, error) {
			return cfg.Files.Read(ctx, meta.Session, id)
		}
	}
	d := dryRun(ctx, cfg.Scope, a, st)
	if d == nil {
		return nil
	}
	dv.Call, dv.Recorded, dv.Made = d.Call, d.Recorded, d.Made
	return dv
}

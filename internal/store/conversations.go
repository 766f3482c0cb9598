package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// CreateConversation records a new conversation.
func (db *DB) CreateConversation(ctx context.Context, c tree.Conversation) (tree.Conversation, error) {
	now := db.now()
	c.Created, c.Updated = now, now
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO conversations(id, session_id, agent, title, head, created_at, updated_at)
			VALUES (?, ?, ?, ?, 0, ?, ?)`, c.ID, c.Session, c.Agent, c.Title, now.UnixMilli(), now.UnixMilli())
		return err
	})
	if err != nil {
		return tree.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	return c, nil
}

const conversationCols = `id, session_id, agent, title, named, head, created_at, updated_at`

func scanConversation(row interface{ Scan(...any) error }) (tree.Conversation, error) {
	var c tree.Conversation
	var created, updated int64
	err := row.Scan(&c.ID, &c.Session, &c.Agent, &c.Title, &c.Named, &c.Head, &created, &updated)
	c.Created, c.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return c, err
}

// Conversation returns conversation id if session owns it. Another
// session's conversation is reported exactly like a missing one.
func (db *DB) Conversation(ctx context.Context, session, id string) (tree.Conversation, error) {
	c, err := scanConversation(db.read.QueryRowContext(ctx,
		`SELECT `+conversationCols+` FROM conversations WHERE id = ? AND session_id = ?`, id, session))
	if errors.Is(err, sql.ErrNoRows) {
		return c, apperr.Errorf(apperr.NotFound, "There is no conversation %q.", id)
	}
	if err != nil {
		return c, fmt.Errorf("read conversation: %w", err)
	}
	return c, nil
}

// Conversations lists a session's conversations, newest first.
func (db *DB) Conversations(ctx context.Context, session string) ([]tree.Conversation, error) {
	rows, err := db.read.QueryContext(ctx,
		`SELECT `+conversationCols+` FROM conversations WHERE session_id = ? ORDER BY updated_at DESC, id`, session)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	var out []tree.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("list conversations: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// EveryConversation lists every conversation in the database, whoever owns
// it, oldest first: what a check of the whole database before a deploy
// reads (chat.CheckSuspended).
func (db *DB) EveryConversation(ctx context.Context) ([]tree.Conversation, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+conversationCols+` FROM conversations ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list every conversation: %w", err)
	}
	defer rows.Close()
	var out []tree.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("list every conversation: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Append records n as a child of n.Parent and moves HEAD to it, in one
// transaction; it returns n with its id and time set. Without Fork, n.Parent
// must be HEAD: a caller that has HEAD wrong (0 for a conversation with no
// node yet) gets Conflict, and nothing is written. With Fork, n.Parent is
// any node of the conversation.
func (db *DB) Append(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	n.At = db.now()
	if !opts.Fork && db.eng == enginePostgres {
		chain := []tree.Node{n}
		if err := db.appendChainAlone(ctx, chain, opts.Log); err != nil {
			return tree.Node{}, appendError(err, "append "+string(n.Kind)+" node")
		}
		return chain[0], nil
	}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if !opts.Fork {
			// n.Parent is HEAD, which setHead checks as it moves it.
			if err := db.insert(ctx, tx, &n); err != nil {
				return err
			}
			_, err := db.setHead(ctx, tx, n.Conversation, n.Parent, n.ID, opts.Log)
			return err
		}
		head, err := db.head(ctx, tx, n.Conversation)
		if err != nil {
			return err
		}
		if n.Parent != 0 {
			if err := db.nodeExists(ctx, tx, n.Conversation, n.Parent); err != nil {
				return err
			}
		}
		if err := db.insert(ctx, tx, &n); err != nil {
			return err
		}
		if opts.Aside {
			if opts.Log != nil {
				_, err = db.logMove(ctx, tx, n.Conversation, head, n.ID, *opts.Log)
			}
			return err
		}
		_, err = db.setHead(ctx, tx, n.Conversation, head, n.ID, opts.Log)
		return err
	})
	if err != nil {
		return tree.Node{}, appendError(err, "append "+string(n.Kind)+" node")
	}
	return n, nil
}

// appendError is an append's error: as it is when coded (a Conflict, the
// database unavailable), else with what was appended.
func appendError(err error, what string) error {
	if apperr.CodeOf(err) != apperr.Internal {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// AppendChain records nodes as a chain hung from HEAD, which the first
// node's Parent must be, each the child of the one before, and moves HEAD
// to the last, in one transaction: one commit for what would otherwise take
// one each. It returns the nodes with their ids, parents and times set.
func (db *DB) AppendChain(ctx context.Context, nodes []tree.Node) ([]tree.Node, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	for _, n := range nodes[1:] {
		if n.Conversation != nodes[0].Conversation {
			return nil, fmt.Errorf("append %d nodes: a chain is of one conversation, not of %q and %q", len(nodes), nodes[0].Conversation, n.Conversation)
		}
	}
	at := db.now()
	out := slices.Clone(nodes)
	if db.eng == enginePostgres && len(out) <= pgChainMax {
		for i := range out {
			out[i].At = at
		}
		if err := db.appendChainAlone(ctx, out, nil); err != nil {
			return nil, appendError(err, fmt.Sprintf("append %d nodes", len(nodes)))
		}
		return out, nil
	}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		for i := range out {
			n := &out[i]
			n.At = at
			if i > 0 {
				n.Parent = out[i-1].ID
			}
			if err := db.insert(ctx, tx, n); err != nil {
				return err
			}
		}
		_, err := db.setHead(ctx, tx, out[0].Conversation, out[0].Parent, out[len(out)-1].ID, nil)
		return err
	})
	if err != nil {
		return nil, appendError(err, fmt.Sprintf("append %d nodes", len(nodes)))
	}
	return out, nil
}

// insert adds n to the nodes and sets its id; a node with no ref stores
// NULL.
func (db *DB) insert(ctx context.Context, tx *txn, n *tree.Node) error {
	var ref any
	if n.Ref != "" {
		ref = n.Ref
	}
	id, err := tx.insertID(ctx, db.stmts.insertNode,
		n.Conversation, n.Parent, string(n.Kind), ref, n.Agent, []byte(n.Payload), n.At.UnixMilli())
	if err != nil {
		return err
	}
	n.ID = id
	return nil
}

// MoveHead makes node to the HEAD of the conversation and logs the move.
// A node that is not the conversation's is NotFound.
func (db *DB) MoveHead(ctx context.Context, conversation string, to int64, move tree.Move) (tree.RefEntry, error) {
	var e tree.RefEntry
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := db.nodeExists(ctx, tx, conversation, to); err != nil {
			return err
		}
		head, err := db.head(ctx, tx, conversation)
		if err != nil {
			return err
		}
		e = tree.RefEntry{Conversation: conversation, Head: to, Prev: head, Action: move.Action, Detail: move.Detail, At: db.now()}
		e.ID, err = db.setHead(ctx, tx, conversation, head, to, &move)
		return err
	})
	if err != nil && apperr.CodeOf(err) == apperr.Internal {
		err = fmt.Errorf("move head: %w", err)
	}
	return e, err
}

// head returns the conversation's HEAD.
func (db *DB) head(ctx context.Context, tx *txn, conversation string) (int64, error) {
	var head int64
	err := tx.StmtContext(ctx, db.stmts.head).QueryRowContext(ctx, conversation).Scan(&head)
	return head, err
}

func (db *DB) nodeExists(ctx context.Context, tx *txn, conversation string, id int64) error {
	var n int
	err := tx.StmtContext(ctx, db.stmts.nodeExists).QueryRowContext(ctx, id, conversation).Scan(&n)
	if err == nil && n == 0 {
		err = apperr.Errorf(apperr.NotFound, "There is no node %d in this conversation.", id)
	}
	return err
}

// recencyGrain is how finely a conversation's last update is kept.
const recencyGrain = time.Second

// recency remembers when this process last moved each conversation's
// updated_at, so that a write need not read it back to know whether it is
// due again. A conversation it does not know of is due. It forgets all
// once it knows recencyRemembers conversations, which costs each of them
// one more write of updated_at. A transaction that rolls back after asking
// leaves updated_at behind by at most recencyGrain.
type recency struct {
	mu   sync.Mutex
	last map[string]int64 // conversation → the updated_at written, in ms
}

const recencyRemembers = 10_000

// due reports whether conversation's updated_at is to move to now, and if
// so, remembers that it did.
func (r *recency) due(conversation string, now int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.last[conversation]; ok && now-t < recencyGrain.Milliseconds() {
		return false
	}
	if r.last == nil || len(r.last) >= recencyRemembers {
		r.last = map[string]int64{}
	}
	r.last[conversation] = now
	return true
}

// setHead moves HEAD from prev to head and, when move is set, logs it,
// returning the reflog entry's id. HEAD not at prev is Conflict.
//
// The conversation's updated_at, which orders a session's conversations,
// moves only once it is recencyGrain old: it is in an index, and writing it
// on every node would add a page to every commit.
func (db *DB) setHead(ctx context.Context, tx *txn, conversation string, prev, head int64, move *tree.Move) (int64, error) {
	res, err := tx.StmtContext(ctx, db.stmts.setHead).ExecContext(ctx, head, conversation, prev)
	if err != nil {
		return 0, err
	}
	if moved, err := res.RowsAffected(); err != nil {
		return 0, err
	} else if moved == 0 {
		return 0, apperr.Errorf(apperr.Conflict, "The conversation moved on meanwhile: its HEAD is no longer node %d. Reload to see where it is.", prev)
	}
	if now := db.now().UnixMilli(); db.recent.due(conversation, now) {
		if _, err := tx.StmtContext(ctx, db.stmts.touch).ExecContext(ctx, now, conversation); err != nil {
			return 0, err
		}
	}
	if move == nil {
		return 0, nil
	}
	return db.logMove(ctx, tx, conversation, prev, head, *move)
}

// LogMove records in the reflog a move that did not change the stored HEAD:
// a side branch's return to the flow.
func (db *DB) LogMove(ctx context.Context, conversation string, prev, head int64, move tree.Move) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := db.logMove(ctx, tx, conversation, prev, head, move)
		return err
	})
}

// logMove adds a reflog entry for a move from prev to head.
func (db *DB) logMove(ctx context.Context, tx *txn, conversation string, prev, head int64, move tree.Move) (int64, error) {
	return tx.insertID(ctx, db.stmts.logMove,
		conversation, head, prev, string(move.Action), move.Detail, db.now().UnixMilli())
}

// Collect deletes the given nodes and reflog entries of a conversation, in
// one transaction: garbage collection of branches no one can reach. The
// files only those nodes named go with them (releaseUnnamedUploads).
func (db *DB) Collect(ctx context.Context, conversation string, nodes, entries []int64) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		for _, id := range entries {
			if _, err := tx.ExecContext(ctx, `DELETE FROM reflog WHERE id = ? AND conversation_id = ?`, id, conversation); err != nil {
				return err
			}
		}
		for _, id := range nodes {
			if _, err := tx.ExecContext(ctx, `DELETE FROM nodes WHERE id = ? AND conversation_id = ?`, id, conversation); err != nil {
				return err
			}
		}
		if len(nodes) == 0 {
			return nil
		}
		return db.releaseUnnamedUploads(ctx, tx, conversation)
	})
}

// Reflog returns the conversation's HEAD moves, newest first.
func (db *DB) Reflog(ctx context.Context, conversation string) ([]tree.RefEntry, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, head, prev, action, detail, created_at
		FROM reflog WHERE conversation_id = ? ORDER BY id DESC`, conversation)
	if err != nil {
		return nil, fmt.Errorf("read reflog: %w", err)
	}
	defer rows.Close()
	var out []tree.RefEntry
	for rows.Next() {
		e := tree.RefEntry{Conversation: conversation}
		var action string
		var at int64
		if err := rows.Scan(&e.ID, &e.Head, &e.Prev, &action, &e.Detail, &at); err != nil {
			return nil, fmt.Errorf("read reflog: %w", err)
		}
		e.Action, e.At = tree.Action(action), time.UnixMilli(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// SetTitle sets a conversation's title, unless the user named it
// (RenameConversation).
func (db *DB) SetTitle(ctx context.Context, id, title string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `UPDATE conversations SET title = ? WHERE id = ? AND named = 0`, title, id)
		return err
	})
}

// Nodes returns all nodes of a conversation in the order they were recorded.
func (db *DB) Nodes(ctx context.Context, conversation string) ([]tree.Node, error) {
	return readNodes(ctx, db.read, conversation)
}

// Load returns conversation id, if session owns it, with all its nodes, as
// of one moment: HEAD and the nodes agree even while others write.
func (db *DB) Load(ctx context.Context, session, id string) (tree.Conversation, []tree.Node, error) {
	tx, err := db.read.begin(ctx, db.eng.readOnce())
	if err != nil {
		return tree.Conversation{}, nil, fmt.Errorf("load conversation: %w", err)
	}
	defer tx.Rollback()
	c, err := scanConversation(tx.QueryRowContext(ctx,
		`SELECT `+conversationCols+` FROM conversations WHERE id = ? AND session_id = ?`, id, session))
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil, apperr.Errorf(apperr.NotFound, "There is no conversation %q.", id)
	}
	if err != nil {
		return c, nil, fmt.Errorf("load conversation: %w", err)
	}
	nodes, err := readNodes(ctx, tx, id)
	return c, nodes, err
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*rowSet, error)
}

func readNodes(ctx context.Context, q querier, conversation string) ([]tree.Node, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, conversation_id, parent_id, kind, COALESCE(ref, ''), agent, payload, created_at
		FROM nodes WHERE conversation_id = ? ORDER BY id`, conversation)
	if err != nil {
		return nil, fmt.Errorf("read nodes: %w", err)
	}
	defer rows.Close()
	var out []tree.Node
	for rows.Next() {
		var n tree.Node
		var kind string
		var at int64
		var payload []byte
		if err := rows.Scan(&n.ID, &n.Conversation, &n.Parent, &kind, &n.Ref, &n.Agent, &payload, &at); err != nil {
			return nil, fmt.Errorf("read nodes: %w", err)
		}
		n.Kind, n.Payload, n.At = tree.Kind(kind), payload, time.UnixMilli(at)
		out = append(out, n)
	}
	return out, rows.Err()
}

// stmts are the statements of the write path, prepared once on the write
// connection so that a write does not compile its SQL again: the tree's,
// and the MCP event store's, which every tool call over MCP appends to
// three times (mcpevents.go).
type stmts struct {
	head, nodeExists, insertNode, setHead, touch, logMove *sql.Stmt

	clearEvents, openStream, nextEvent, insertEvent *sql.Stmt

	setTimer, clearTimer *sql.Stmt // timers.go: written several times a firing

	// schedulesOf is read by every open page at each turn's end
	// (schedules.go): prepared on the read pool, once.
	schedulesOf *sql.Stmt
}

// prepare prepares the statements on db.
func (s *stmts) prepare(ctx context.Context, db pool, eng engine) error {
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&s.head, `SELECT head FROM conversations WHERE id = ?` + eng.forUpdate()},
		{&s.nodeExists, `SELECT COUNT(*) FROM nodes WHERE id = ? AND conversation_id = ?`},
		{&s.insertNode, `INSERT INTO nodes(conversation_id, parent_id, kind, ref, agent, payload, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)` + eng.returningID()},
		{&s.setHead, `UPDATE conversations SET head = ? WHERE id = ? AND head = ?`},
		{&s.touch, `UPDATE conversations SET updated_at = ? WHERE id = ?`},
		{&s.logMove, `INSERT INTO reflog(conversation_id, head, prev, action, detail, created_at) VALUES (?, ?, ?, ?, ?, ?)` + eng.returningID()},
		{&s.clearEvents, `DELETE FROM mcp_events WHERE session_id = ? AND stream_id = ?`},
		{&s.openStream, `INSERT INTO mcp_streams(session_id, stream_id, touched_at) VALUES (?, ?, 0)
			ON CONFLICT (session_id, stream_id) DO UPDATE SET first = 0, next = 0, bytes = 0`},
		{&s.nextEvent, `UPDATE mcp_streams SET next = next + 1, bytes = bytes + ?, touched_at = ?
			WHERE session_id = ? AND stream_id = ? RETURNING next - 1, first, bytes`},
		{&s.insertEvent, `INSERT INTO mcp_events(session_id, stream_id, idx, data) VALUES (?, ?, ?, ?)`},
		{&s.setTimer, setTimerSQL},
		{&s.clearTimer, `DELETE FROM timers WHERE conversation_id = ? AND key = ?`},
	} {
		stmt, err := db.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", p.query, err)
		}
		*p.stmt = stmt
	}
	return nil
}

// closeAll closes the statements that were prepared.
func (s *stmts) closeAll() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{s.head, s.nodeExists, s.insertNode, s.setHead, s.touch, s.logMove,
		s.clearEvents, s.openStream, s.nextEvent, s.insertEvent, s.setTimer, s.clearTimer, s.schedulesOf} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errors.Join(errs...)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/operator"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// What the operator page reads (package operator): every account and
// conversation, whoever owns it. Nothing here checks who asks; the
// transport shows the page to operators alone.

var _ operator.Records = (*DB)(nil)

// OperatorAccounts lists up to limit accounts, newest first, each with its
// count of conversations and its newest perAccount conversations.
func (db *DB) OperatorAccounts(ctx context.Context, limit, perAccount int) ([]operator.Account, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT a.id, a.email, a.name, a.created_at, a.disabled_at,
		(SELECT COUNT(*) FROM conversations c WHERE c.session_id = a.id)
		FROM accounts a ORDER BY a.created_at DESC, a.id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	var out []operator.Account
	at := map[string]int{}
	for rows.Next() {
		var a operator.Account
		var created int64
		var disabled sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Email, &a.Name, &created, &disabled, &a.Count); err != nil {
			return nil, fmt.Errorf("list accounts: %w", err)
		}
		a.Created, a.Disabled = time.UnixMilli(created), disabled.Valid
		at[a.ID] = len(out)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	rows.Close()
	convs, err := db.read.QueryContext(ctx, `SELECT id, session_id, agent, title, head, updated_at FROM (
		SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.session_id ORDER BY c.updated_at DESC, c.id) AS n
		FROM conversations c JOIN accounts a ON a.id = c.session_id) ranked
		WHERE n <= ? ORDER BY session_id, n`, perAccount)
	if err != nil {
		return nil, fmt.Errorf("list accounts' conversations: %w", err)
	}
	defer convs.Close()
	for convs.Next() {
		var c operator.Conversation
		var updated int64
		if err := convs.Scan(&c.ID, &c.Owner, &c.Agent, &c.Title, &c.Head, &updated); err != nil {
			return nil, fmt.Errorf("list accounts' conversations: %w", err)
		}
		c.Updated = time.UnixMilli(updated)
		if i, ok := at[c.Owner]; ok {
			c.OwnerEmail = out[i].Email
			out[i].Conversations = append(out[i].Conversations, c)
		}
	}
	return out, convs.Err()
}

// RecentConversations lists the limit most recently updated
// conversations, whoever owns them, with the owner's email when the owner
// is an account.
func (db *DB) RecentConversations(ctx context.Context, limit int) ([]operator.Conversation, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT c.id, c.session_id, COALESCE(a.email, ''), c.agent, c.title, c.head, c.updated_at
		FROM conversations c LEFT JOIN accounts a ON a.id = c.session_id
		ORDER BY c.updated_at DESC, c.id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list recent conversations: %w", err)
	}
	defer rows.Close()
	var out []operator.Conversation
	for rows.Next() {
		var c operator.Conversation
		var updated int64
		if err := rows.Scan(&c.ID, &c.Owner, &c.OwnerEmail, &c.Agent, &c.Title, &c.Head, &updated); err != nil {
			return nil, fmt.Errorf("list recent conversations: %w", err)
		}
		c.Updated = time.UnixMilli(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Outline returns conversation's nodes in id order, the payloads of those
// of the kinds with alone: the shape of its tree, without reading every
// model call it recorded.
func (db *DB) Outline(ctx context.Context, conversation string, with ...tree.Kind) ([]tree.Node, error) {
	kinds := map[tree.Kind]bool{}
	for _, k := range with {
		kinds[k] = true
	}
	rows, err := db.read.QueryContext(ctx, `SELECT id, parent_id, kind, COALESCE(ref, ''), agent, created_at
		FROM nodes WHERE conversation_id = ? ORDER BY id`, conversation)
	if err != nil {
		return nil, fmt.Errorf("read the outline: %w", err)
	}
	defer rows.Close()
	var out []tree.Node
	var wanted []int
	for rows.Next() {
		n := tree.Node{Conversation: conversation}
		var kind string
		var at int64
		if err := rows.Scan(&n.ID, &n.Parent, &kind, &n.Ref, &n.Agent, &at); err != nil {
			return nil, fmt.Errorf("read the outline: %w", err)
		}
		n.Kind, n.At = tree.Kind(kind), time.UnixMilli(at)
		if kinds[n.Kind] {
			wanted = append(wanted, len(out))
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the outline: %w", err)
	}
	rows.Close()
	for _, i := range wanted {
		if err := db.read.QueryRowContext(ctx, `SELECT payload FROM nodes WHERE id = ?`, out[i].ID).Scan(&out[i].Payload); err != nil {
			return nil, fmt.Errorf("read the outline: %w", err)
		}
	}
	return out, nil
}

// NewestFeedback returns up to limit Feedback nodes of any conversation,
// newest first, each with the reply it rates and its conversation.
func (db *DB) NewestFeedback(ctx context.Context, limit int) ([]operator.Rated, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT f.id, f.parent_id, f.payload, f.created_at, r.kind, r.payload, r.created_at,
		c.id, c.session_id, COALESCE(a.email, ''), c.agent, c.title, c.head, c.updated_at
		FROM nodes f JOIN nodes r ON r.id = f.parent_id JOIN conversations c ON c.id = f.conversation_id
		LEFT JOIN accounts a ON a.id = c.session_id
		WHERE f.kind = 'feedback' ORDER BY f.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list feedback: %w", err)
	}
	defer rows.Close()
	var out []operator.Rated
	for rows.Next() {
		var r operator.Rated
		var kind string
		var fAt, rAt, updated int64
		c := &r.Conversation
		if err := rows.Scan(&r.Feedback.ID, &r.Feedback.Parent, &r.Feedback.Payload, &fAt, &kind, &r.Reply.Payload, &rAt,
			&c.ID, &c.Owner, &c.OwnerEmail, &c.Agent, &c.Title, &c.Head, &updated); err != nil {
			return nil, fmt.Errorf("list feedback: %w", err)
		}
		r.Feedback.Kind, r.Feedback.Conversation, r.Feedback.At = tree.Feedback, c.ID, time.UnixMilli(fAt)
		r.Reply.ID, r.Reply.Kind, r.Reply.Conversation, r.Reply.At = r.Feedback.Parent, tree.Kind(kind), c.ID, time.UnixMilli(rAt)
		c.Updated = time.UnixMilli(updated)
		out = append(out, r)
	}
	return out, rows.Err()
}

// EnableAccount lets the disabled account id sign in again (its earlier
// sign-ins stay ended). NotFound for an account there is not.
func (db *DB) EnableAccount(ctx context.Context, id string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET disabled_at = NULL WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("enable the account: %w", err)
		}
		return accountChanged(res)
	})
}

// accountChanged is NotFound when res changed no account.
func accountChanged(res sql.Result) error {
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return apperr.Errorf(apperr.NotFound, "There is no such account.")
	}
	return nil
}

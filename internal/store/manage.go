package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// What a user does to their conversations as a whole: name one, delete one,
// find one.

// RenameConversation gives conversation id, if session owns it, the title
// the user chose; from then on the title no longer follows the first
// message. Another session's conversation is NotFound, as a missing one.
func (db *DB) RenameConversation(ctx context.Context, session, id, title string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET title = ?, named = 1 WHERE id = ? AND session_id = ?`, title, id, session)
		if err != nil {
			return fmt.Errorf("rename conversation: %w", err)
		}
		return mustHaveChanged(res, id)
	})
}

// DeleteConversation deletes conversation id, if session owns it, with its
// whole tree (every node of every branch), its reflog and the files it
// alone used (their bytes too, unless another upload has the same), in one
// transaction. Another session's conversation is NotFound, as a missing
// one.
func (db *DB) DeleteConversation(ctx context.Context, session, id string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM conversations WHERE id = ? AND session_id = ?`, id, session).Scan(&n); err != nil {
			return fmt.Errorf("delete conversation: %w", err)
		}
		if n == 0 {
			return apperr.Errorf(apperr.NotFound, "There is no conversation %q.", id)
		}
		if err := dropConversationUploads(ctx, tx, id); err != nil {
			return fmt.Errorf("delete conversation's files: %w", err)
		}
		for _, q := range []string{
			`DELETE FROM shares WHERE conversation_id = ?`,
			`DELETE FROM reflog WHERE conversation_id = ?`,
			`DELETE FROM schedules WHERE conversation_id = ?`,
			`DELETE FROM timers WHERE conversation_id = ?`,
			`DELETE FROM nodes WHERE conversation_id = ?`,
			`DELETE FROM conversations WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return fmt.Errorf("delete conversation: %w", err)
			}
		}
		return nil
	})
}

// SearchConversations lists, newest first, the session's conversations
// whose title or any message (the user's, the agent's, on any branch,
// asides included) contains query, ignoring ASCII case. The database does
// the looking, so a session with many long conversations costs the server
// one query, not a load of each.
func (db *DB) SearchConversations(ctx context.Context, session, query string) ([]tree.Conversation, error) {
	pattern := "%" + likeEscaper.Replace(query) + "%"
	rows, err := db.read.QueryContext(ctx, `SELECT `+conversationCols+` FROM conversations c
		WHERE session_id = ? AND (title `+db.eng.like()+` ? ESCAPE '\' OR EXISTS (
			SELECT 1 FROM nodes n WHERE n.conversation_id = c.id AND n.kind IN (?, ?, ?, ?)
			AND `+db.eng.jsonText(db.eng.jsonDoc("n.payload"), "text")+` `+db.eng.like()+` ? ESCAPE '\'))
		ORDER BY updated_at DESC, id`,
		session, pattern, tree.UserMessage, tree.AssistantMessage, tree.SideQuestion, tree.SideReply, pattern)
	if err != nil {
		return nil, fmt.Errorf("search conversations: %w", err)
	}
	defer rows.Close()
	var out []tree.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("search conversations: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// likeEscaper makes a LIKE pattern's wildcards literal (with ESCAPE '\').
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// mustHaveChanged is NotFound when res changed no conversation.
func mustHaveChanged(res sql.Result, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.Errorf(apperr.NotFound, "There is no conversation %q.", id)
	}
	return nil
}

-- A share is a read-only link to a conversation's branch as it stood at
-- a node: the root to that node, nothing after. Only a hash of the link's
-- token is kept (SHA-256, hex), so the table does not hold the links; the
-- title is the conversation's when it was shared. A
-- share belongs to its conversation, whose owner lists and revokes it;
-- revoking deletes the row, and one past expires_at is gone as well.
CREATE TABLE shares (
    id              INTEGER PRIMARY KEY,
    token_hash      TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    node            INTEGER NOT NULL,
    title           TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX shares_conversation ON shares(conversation_id);

-- Sessions are browser sessions; each owns its conversations.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE conversations (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    agent      TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    head       INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX conversations_by_session ON conversations(session_id, updated_at);

-- Nodes are the conversation's append-only event log, shaped as a tree.
CREATE TABLE nodes (
    id              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    parent_id       INTEGER NOT NULL DEFAULT 0,
    kind            TEXT NOT NULL,
    ref             TEXT,
    agent           TEXT NOT NULL DEFAULT '',
    payload         BLOB NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX nodes_by_conversation ON nodes(conversation_id, id);
CREATE INDEX nodes_by_ref ON nodes(conversation_id, ref) WHERE ref IS NOT NULL;

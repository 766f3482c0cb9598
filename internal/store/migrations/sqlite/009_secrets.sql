-- Secrets the program keeps across restarts, each made at random the first
-- time it is asked for: the key that signs what a client must hand back
-- unchanged (an MCP call's requestState), the id of a session of its own.
CREATE TABLE secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;

-- A pinned session is never rotated: the session of MCP calls, which a
-- browser may join, keeps its id and its conversations whatever that
-- browser starts.
ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;

-- Secrets the program keeps across restarts, each made at random the first
-- time it is asked for: the key that signs what a client must hand back
-- unchanged (an MCP call's requestState), the id of a session of its own.
CREATE TABLE secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;

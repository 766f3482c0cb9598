-- The MCP sessions the program served, by the id the SDK gave each, with
-- what the client said of itself when it began (its initialize params, as
-- JSON): after a restart, a request in such a session finds it begun
-- again under its id (backend/mcp/revive.go), so the client goes on, its
-- broken streams resumed from mcp_events. seen_at is when the session
-- began or was last begun again (Unix milliseconds); a session goes with
-- its streams' events (ForgetEventSession, ForgetIdleEventSessions) or
-- after as long without them.
CREATE TABLE mcp_sessions (
    id      TEXT PRIMARY KEY,
    init    BLOB NOT NULL,
    seen_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

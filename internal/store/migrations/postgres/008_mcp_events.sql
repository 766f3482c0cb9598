-- An MCP stream's events, kept for a client that resumes with
-- Last-Event-ID (see the SQLite migration).
CREATE TABLE mcp_streams (
    session_id text NOT NULL,
    stream_id  text NOT NULL,
    first      bigint NOT NULL DEFAULT 0,
    next       bigint NOT NULL DEFAULT 0,
    bytes      bigint NOT NULL DEFAULT 0,
    touched_at bigint NOT NULL,
    PRIMARY KEY (session_id, stream_id)
);

CREATE TABLE mcp_events (
    session_id text NOT NULL,
    stream_id  text NOT NULL,
    idx        bigint NOT NULL,
    data       bytea NOT NULL,
    PRIMARY KEY (session_id, stream_id, idx),
    FOREIGN KEY (session_id, stream_id) REFERENCES mcp_streams(session_id, stream_id) ON DELETE CASCADE
);

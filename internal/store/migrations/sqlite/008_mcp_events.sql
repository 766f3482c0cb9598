-- An MCP stream's events, kept so that a client whose stream broke (or
-- whose server restarted) asks again with Last-Event-ID and gets what it
-- missed (the go-sdk's EventStore, backend/mcp/events.go). A stream is one
-- of an MCP session's SSE streams, keyed by the ids the SDK gives them;
-- an event's idx is its place in its stream, from 0, as the SDK numbers
-- the event ids it writes. first is the idx of the oldest event kept (the
-- older ones were dropped to keep the stream under its bound), next the
-- idx the next event gets, bytes the size of the events kept, touched_at
-- when the stream was last opened or appended to (Unix milliseconds).
CREATE TABLE mcp_streams (
    session_id TEXT NOT NULL,
    stream_id  TEXT NOT NULL,
    first      INTEGER NOT NULL DEFAULT 0,
    next       INTEGER NOT NULL DEFAULT 0,
    bytes      INTEGER NOT NULL DEFAULT 0,
    touched_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, stream_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE mcp_events (
    session_id TEXT NOT NULL,
    stream_id  TEXT NOT NULL,
    idx        INTEGER NOT NULL,
    data       BLOB NOT NULL,
    PRIMARY KEY (session_id, stream_id, idx),
    FOREIGN KEY (session_id, stream_id) REFERENCES mcp_streams(session_id, stream_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

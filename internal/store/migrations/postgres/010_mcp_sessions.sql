-- The MCP sessions served, begun again under their id after a restart.
CREATE TABLE mcp_sessions (
    id      text PRIMARY KEY,
    init    bytea NOT NULL,
    seen_at bigint NOT NULL
);

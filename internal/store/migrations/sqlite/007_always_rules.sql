-- An always rule is a user's "Always allow" of an approval: the agent's tool
-- runs without asking, in every conversation of the session, until revoked.
-- One per tool of an agent: allowing it again keeps the first.
CREATE TABLE always_rules (
    id         INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    agent      TEXT NOT NULL,
    tool       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, agent, tool)
) STRICT;

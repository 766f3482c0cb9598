-- The nodes of a cluster sharing this database, and which node holds each
-- live conversation (backend/cluster). The tables are prefixed because the
-- store's own nodes table holds a conversation's tree; they name no store
-- table, so the cluster stays independent of the store's schema.

-- A node is live while its dedicated connection holds the session-level
-- advisory lock lock_key: PostgreSQL drops the lock the moment that
-- connection ends, so a killed node is seen dead at once.
CREATE TABLE cluster_nodes (
    id         text PRIMARY KEY,
    url        text NOT NULL,          -- where other nodes reach it over HTTP
    lock_key   bigint NOT NULL UNIQUE, -- its liveness advisory lock
    started_at bigint NOT NULL,        -- unix ms
    draining   boolean NOT NULL DEFAULT false
);

-- A lease: conversation_id is live on node_id until expires_at (unix ms),
-- renewed by that node while it holds it. token tells one taking of the
-- lease from the next, so a late release never deletes a newer one.
CREATE TABLE cluster_leases (
    conversation_id text PRIMARY KEY,
    node_id         text NOT NULL,
    token           bigint NOT NULL,
    expires_at      bigint NOT NULL,
    taken_at        bigint NOT NULL
);

CREATE INDEX cluster_leases_by_node ON cluster_leases (node_id);

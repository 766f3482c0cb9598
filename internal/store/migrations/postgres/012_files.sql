-- Files people upload: blobs in chunks by SHA-256, uploads of a session,
-- and the conversations that use each upload (see the SQLite migration).
CREATE TABLE blobs (
    hash text NOT NULL,
    seq  bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (hash, seq)
);

CREATE TABLE uploads (
    id         text PRIMARY KEY,
    session_id text NOT NULL,
    name       text NOT NULL,
    type       text NOT NULL,
    size       bigint NOT NULL,
    hash       text NOT NULL,
    created_at bigint NOT NULL
);
CREATE INDEX uploads_by_session ON uploads(session_id);
CREATE INDEX uploads_by_hash ON uploads(hash);

CREATE TABLE upload_uses (
    upload_id       text NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
    conversation_id text NOT NULL,
    attached_at     bigint NOT NULL,
    PRIMARY KEY (upload_id, conversation_id)
);
CREATE INDEX upload_uses_by_conversation ON upload_uses(conversation_id);

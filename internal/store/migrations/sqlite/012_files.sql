-- Files people upload (package files). A blob is a file's bytes, once per
-- content: keyed by their SHA-256 (hex), split into chunks numbered from 0
-- so that no statement carries a whole file. Every blob has a chunk 0,
-- empty for an empty file.
CREATE TABLE blobs (
    hash TEXT NOT NULL,
    seq  INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (hash, seq)
) STRICT;

-- An upload is one file as one session sent it: its name (never a path),
-- the type decided from the allow-list, its size in bytes, its blob, and
-- when it came (Unix milliseconds). It is served to its session alone;
-- RotateSession moves it with the conversations.
CREATE TABLE uploads (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    name       TEXT NOT NULL,
    type       TEXT NOT NULL,
    size       INTEGER NOT NULL,
    hash       TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX uploads_by_session ON uploads(session_id);
CREATE INDEX uploads_by_hash ON uploads(hash);

-- An upload's uses: the conversations whose messages or answers name it
-- (AttachUploads). An upload with none after an age is collected; one
-- whose last conversation is deleted goes with it. A fork that copies a
-- message into another conversation adds a use, so deleting either
-- conversation leaves the other its files. When gc removes nodes
-- (Collect), a use older than an hour that no node left names is dropped:
-- the younger one's message may be on its way to the record.
CREATE TABLE upload_uses (
    upload_id       TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL,
    attached_at     INTEGER NOT NULL,
    PRIMARY KEY (upload_id, conversation_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX upload_uses_by_conversation ON upload_uses(conversation_id);

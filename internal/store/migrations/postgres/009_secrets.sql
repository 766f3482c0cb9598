-- Secrets kept across restarts, each made at random when first asked for.
CREATE TABLE secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);

-- A pinned session is never rotated.
ALTER TABLE sessions ADD COLUMN pinned integer NOT NULL DEFAULT 0;

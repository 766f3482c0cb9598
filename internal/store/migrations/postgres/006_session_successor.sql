-- A rotated session remembers its successor, when, and for which client.
ALTER TABLE sessions ADD COLUMN successor text;
ALTER TABLE sessions ADD COLUMN rotated_at bigint;
ALTER TABLE sessions ADD COLUMN rotated_for text;
CREATE INDEX sessions_rotated ON sessions(rotated_at) WHERE successor IS NOT NULL;

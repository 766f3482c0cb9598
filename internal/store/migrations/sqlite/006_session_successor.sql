-- A rotated session remembers the session that took its conversations over,
-- when, and for which client address: a request of that client already in
-- flight with the old id (a double-click on Send, a second tab starting a
-- chat) lands on the successor for a short while instead of on nothing.
ALTER TABLE sessions ADD COLUMN successor TEXT;
ALTER TABLE sessions ADD COLUMN rotated_at INTEGER;
ALTER TABLE sessions ADD COLUMN rotated_for TEXT;
CREATE INDEX sessions_rotated ON sessions(rotated_at) WHERE successor IS NOT NULL;

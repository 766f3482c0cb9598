-- The reflog: every deliberate move of a conversation's HEAD (a message, an
-- edit, a branch switch, a changed answer, a stop, a recovery), so that any
-- state the conversation was in can be found and made HEAD again.
CREATE TABLE reflog (
    id              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    head            INTEGER NOT NULL,
    prev            INTEGER NOT NULL,
    action          TEXT NOT NULL,
    detail          TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX reflog_by_conversation ON reflog(conversation_id, id);

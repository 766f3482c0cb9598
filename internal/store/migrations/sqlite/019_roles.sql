-- The groups the identity provider said a person is in when a browser
-- signed in (its ID token's groups claim), one per line: whether the
-- sign-in is an operator's is decided from them, and from the account's
-- email, against the operator flags of the running program on every
-- request, so a flag changed at a restart takes effect at once.
ALTER TABLE signins ADD COLUMN groups TEXT NOT NULL DEFAULT '';
-- A look is an operator reading a conversation that is not theirs
-- (its page, tree, calls, tool audit or a file), read-only: who looked
-- (the operator's account, and email as it was), at whose conversation,
-- at what, and when. Looks are never deleted with the conversation.
CREATE TABLE looks (
    id              INTEGER PRIMARY KEY,
    operator_id     TEXT NOT NULL,
    operator_email  TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    owner_id        TEXT NOT NULL,
    what            TEXT NOT NULL,
    at              INTEGER NOT NULL
) STRICT;
CREATE INDEX looks_at ON looks(at);
CREATE INDEX looks_conversation ON looks(conversation_id);

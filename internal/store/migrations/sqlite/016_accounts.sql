-- An account is a person known by their identity provider (issuer and
-- subject). Its id is also a pinned session's: the account owns
-- conversations, files and always rules as a browser's session does.
CREATE TABLE accounts (
    id          TEXT PRIMARY KEY REFERENCES sessions(id),
    issuer      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    email       TEXT NOT NULL DEFAULT '',
    name        TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    disabled_at INTEGER,
    UNIQUE (issuer, subject)
);
-- A sign-in is one browser signed in to an account: its id is the secret
-- the browser's sign-in cookie carries. Sign-out deletes it.
CREATE TABLE signins (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    created_at INTEGER NOT NULL
);
CREATE INDEX signins_by_account ON signins(account_id);

-- An account is a person known by their identity provider; its id is also a
-- pinned session's. A sign-in is one browser signed in to an account.
CREATE TABLE accounts (
    id          text PRIMARY KEY REFERENCES sessions(id),
    issuer      text NOT NULL,
    subject     text NOT NULL,
    email       text NOT NULL DEFAULT '',
    name        text NOT NULL DEFAULT '',
    created_at  bigint NOT NULL,
    disabled_at bigint,
    UNIQUE (issuer, subject)
);
CREATE TABLE signins (
    id         text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id),
    created_at bigint NOT NULL
);
CREATE INDEX signins_by_account ON signins(account_id);

-- A personal MCP token is a bearer token a signed-in person makes on
-- /settings/tokens: a request to /mcp carrying it runs its calls as
-- conversations of that person's account. Only the token's SHA-256 is
-- kept (hex), so the table does not hold what it would let a reader do;
-- the token is shown once, when made. A revoked token is deleted.
CREATE TABLE mcp_tokens (
    id           text PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts(id),
    hash         text NOT NULL UNIQUE,
    label        text NOT NULL DEFAULT '',
    created_at   bigint NOT NULL,
    last_used_at bigint
);
CREATE INDEX mcp_tokens_by_account ON mcp_tokens(account_id);

-- A timer is something due at a time in a conversation: a question that
-- expires, a durable sleep, a turn's deadline, a scheduled message. It is
-- keyed by the conversation and what it fires (key: an elicit's id, or a
-- name of its own); the owner is the conversation's owner key. Every node
-- looks for those due: claimed_until keeps two nodes from firing one at
-- once (a claim lapses, so a node killed mid-firing leaves it to another),
-- and whatever fires does so under the conversation's lease, recording
-- what it did in the tree, so a timer fires once however often it is
-- tried. A timer fired or no longer wanted is deleted.
CREATE TABLE timers (
    conversation_id text NOT NULL,
    key             text NOT NULL,
    owner           text NOT NULL,
    due_at          bigint NOT NULL,
    claimed_until   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (conversation_id, key)
);
CREATE INDEX timers_due ON timers(due_at);
-- A schedule is a message a conversation is sent at a time, or on a
-- recurrence (every so long, or a cron expression), until cancelled. next_at
-- is the occurrence to send next; each occurrence is sent once (its
-- message carries the schedule's id and the occurrence, and a message of
-- that id already in the tree is not sent again).
CREATE TABLE schedules (
    id              text PRIMARY KEY,
    conversation_id text NOT NULL,
    owner           text NOT NULL,
    message         text NOT NULL,
    every_ms        bigint NOT NULL DEFAULT 0,
    cron            text NOT NULL DEFAULT '',
    next_at         bigint NOT NULL,
    created_at      bigint NOT NULL,
    cancelled_at    bigint
);
CREATE INDEX schedules_conversation ON schedules(conversation_id);

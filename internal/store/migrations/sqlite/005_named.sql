-- named is 1 once the user chose the conversation's title: from then on the
-- title is theirs, and no longer follows the first message.
ALTER TABLE conversations ADD COLUMN named INTEGER NOT NULL DEFAULT 0;

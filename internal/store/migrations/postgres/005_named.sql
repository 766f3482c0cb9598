-- named is 1 once the user chose the conversation's title.
ALTER TABLE conversations ADD COLUMN named integer NOT NULL DEFAULT 0;

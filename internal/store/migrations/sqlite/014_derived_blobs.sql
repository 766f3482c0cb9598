-- What is made of a blob for a model (package attach), kept so that it is
-- made once: a picture scaled to what a provider takes. source is the
-- original's hash, name says what was made (and with which settings), hash
-- and size are the blob it was made into, itself in blobs (the original's
-- own, when nothing needed changing). A derived blob lives as long as its
-- source does: collecting the source drops the row, then the blob unless an
-- upload or another row still has it.
CREATE TABLE derived_blobs (
    source TEXT NOT NULL,
    name   TEXT NOT NULL,
    hash   TEXT NOT NULL,
    size   INTEGER NOT NULL,
    PRIMARY KEY (source, name)
) STRICT, WITHOUT ROWID;
CREATE INDEX derived_blobs_by_hash ON derived_blobs(hash);

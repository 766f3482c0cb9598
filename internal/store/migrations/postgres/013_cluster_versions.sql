-- Each node records the build it runs and the newest migration that build
-- knows (backend/cluster), so that nodes of another version are seen: a
-- node warns of them, naming both versions. A node of a build older than
-- this column defaults to '' and 0.
ALTER TABLE cluster_nodes ADD COLUMN version text NOT NULL DEFAULT '';
ALTER TABLE cluster_nodes ADD COLUMN schema_version integer NOT NULL DEFAULT 0;

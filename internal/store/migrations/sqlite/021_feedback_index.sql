-- The operator page lists the newest feedback across every conversation:
-- this index finds it without reading the whole table of nodes.
CREATE INDEX nodes_feedback ON nodes(id) WHERE kind = 'feedback';

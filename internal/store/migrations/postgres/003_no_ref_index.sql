-- Nothing looks nodes up by ref in SQL (see the SQLite migration). The
-- PostgreSQL schema never made the index; the number is kept so that a
-- version means the same schema on both engines.
DROP INDEX IF EXISTS nodes_by_ref;

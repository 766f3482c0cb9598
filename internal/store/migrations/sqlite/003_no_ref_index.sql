-- Nothing looks nodes up by ref in SQL: a conversation is read whole, by
-- nodes_by_conversation, and its refs are indexed in memory. The index cost
-- a page in every commit that recorded a call.
DROP INDEX nodes_by_ref;

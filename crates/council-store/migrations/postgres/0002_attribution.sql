-- agent-council audit store, version 2 (PostgreSQL): who vouches for a pull request's
-- author and branches. The Context Object's `subject` is an unsigned header (anyone who
-- can edit the ledger comment can change it), so it attributes nothing by itself:
--   github: read from GitHub (the pull request list `audit sync` reads, or the run that
--           wrote the object, from its own event);
--   header: the object's header alone (an imported file): unverified.
-- Rows stored before this version took the header: `header`, until a sync reads them.
ALTER TABLE workflow_contexts ADD COLUMN attribution TEXT NOT NULL DEFAULT 'header';

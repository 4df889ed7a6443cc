-- agent-council audit store, version 1 (PostgreSQL). The PostgreSQL file of the same number
-- makes the same tables with the same columns; only types and triggers are spelled per
-- engine. Times are kept as recorded (RFC 3339 text) and as Unix seconds (`*_unix`), so
-- that every question is plain arithmetic in both engines.

-- One row per pull request's Context Object: what the stored timeline derives, and
-- whether everything stored about it verified.
CREATE TABLE workflow_contexts (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repository TEXT NOT NULL,
  context_id TEXT NOT NULL,
  pr_number BIGINT NOT NULL,
  subject_type TEXT NOT NULL,
  source_branch TEXT NOT NULL,
  target_branch TEXT NOT NULL,
  author TEXT NOT NULL,
  head_sha TEXT NOT NULL,
  title TEXT,
  guard_status TEXT NOT NULL,
  review_status TEXT NOT NULL,
  release_status TEXT NOT NULL,
  gates TEXT NOT NULL,
  entries BIGINT NOT NULL,
  first_position BIGINT,
  chain_head_hash TEXT,
  -- verified: one unbroken chain from the first entry, every import agreed;
  -- partial: older entries are missing (a comment that holds only a tail);
  -- failed: an offered object did not verify, or conflicted with stored entries.
  verification TEXT NOT NULL,
  verification_detail TEXT,
  signatures_checked BIGINT NOT NULL,
  last_trigger TEXT,
  -- Unix seconds of the newest stored entry: what `--since` filters on.
  last_unix BIGINT,
  last_timestamp TEXT,
  source TEXT NOT NULL,
  opened_at TEXT,
  opened_unix BIGINT,
  merged_at TEXT,
  merged_unix BIGINT,
  closed_at TEXT,
  pr_state TEXT,
  synced_at TEXT,
  imported_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (repository, context_id)
);
CREATE INDEX workflow_contexts_author ON workflow_contexts (author);

-- Every timeline entry, at its position in the chain (0 = the first entry ever). The
-- columns are the entry's fields, so its canonical form, hash and signature can be
-- checked again from the store alone. Append-only: the triggers below refuse updates
-- and deletes.
CREATE TABLE timeline_entries (
  context BIGINT NOT NULL REFERENCES workflow_contexts (id),
  position BIGINT NOT NULL,
  entry_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  action TEXT NOT NULL,
  result TEXT NOT NULL,
  message TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  at_unix BIGINT,
  run_id TEXT NOT NULL,
  run_attempt BIGINT NOT NULL,
  sha TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  signature TEXT,
  extra TEXT,
  signature_checked BIGINT NOT NULL,
  source TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  PRIMARY KEY (context, position)
);
-- The common questions read entries through these two, never the table, each in its
-- order (no sort): checks by stage, result and rule, then pull request (findings, the
-- failures per agent, rollbacks); a stage's runs, pull request by pull request (guard
-- runs per agent and week).
CREATE INDEX timeline_entries_check ON timeline_entries (agent, result, action, context, at_unix);
CREATE INDEX timeline_entries_run ON timeline_entries (agent, context, run_id, run_attempt, action, result, at_unix);

CREATE FUNCTION timeline_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'timeline_entries is append-only: entries are never changed or deleted';
END;
$$;
CREATE TRIGGER timeline_entries_append_only BEFORE UPDATE OR DELETE ON timeline_entries
  FOR EACH ROW EXECUTE FUNCTION timeline_entries_append_only();
CREATE TRIGGER timeline_entries_no_truncate BEFORE TRUNCATE ON timeline_entries
  FOR EACH STATEMENT EXECUTE FUNCTION timeline_entries_append_only();

-- Every offered object that did not verify, or that conflicted with stored entries:
-- the evidence, kept (the document too, up to a size), never merged.
CREATE TABLE verification_failures (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  context BIGINT REFERENCES workflow_contexts (id),
  repository TEXT NOT NULL,
  context_id TEXT NOT NULL,
  source TEXT NOT NULL,
  position BIGINT,
  entry_id TEXT,
  stored_hash TEXT,
  offered_hash TEXT,
  problem TEXT NOT NULL,
  -- sha256 of source, position, offered hash and problem: a re-sync records a failure once.
  fingerprint TEXT NOT NULL,
  document TEXT,
  found_at TEXT NOT NULL,
  found_unix BIGINT NOT NULL,
  UNIQUE (repository, context_id, fingerprint)
);

-- The Agent Context Report protocol's table, with its columns, plus where each report
-- was read. `total_tokens` is the tokens used, as the protocol's `percentFull` reads it.
CREATE TABLE agent_context_reports (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id TEXT NOT NULL,
  report_timestamp TEXT NOT NULL,
  report_unix BIGINT,
  total_tokens BIGINT NOT NULL,
  available_tokens BIGINT NOT NULL,
  percent_full DOUBLE PRECISION,
  loaded_projects TEXT NOT NULL,
  loaded_tasks TEXT NOT NULL,
  loaded_documents TEXT,
  capabilities TEXT NOT NULL,
  can_start_immediately TEXT,
  conversation_length BIGINT,
  oldest_message_timestamp TEXT,
  repository TEXT NOT NULL,
  registry_issue BIGINT NOT NULL,
  comment_id BIGINT NOT NULL,
  comment_url TEXT NOT NULL,
  author TEXT NOT NULL,
  report TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  UNIQUE (repository, agent_id, report_timestamp, comment_id)
);
CREATE INDEX idx_context_reports_agent ON agent_context_reports (agent_id);
CREATE INDEX idx_context_reports_timestamp ON agent_context_reports (report_timestamp DESC);

-- Where `council audit sync` got to, per repository: the next run lists pull requests
-- updated since then.
CREATE TABLE sync_state (
  repository TEXT PRIMARY KEY,
  listed_until TEXT NOT NULL,
  finished_at TEXT NOT NULL
);

-- Every pull request a sync read (with a Context Object or not), and its `updated_at`
-- then: a sync killed half-way resumes without reading them again.
CREATE TABLE synced_pulls (
  repository TEXT NOT NULL,
  pr_number BIGINT NOT NULL,
  pr_updated_at TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  outcome TEXT NOT NULL,
  PRIMARY KEY (repository, pr_number)
);

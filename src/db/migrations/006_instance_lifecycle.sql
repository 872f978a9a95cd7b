-- Launch intent and lifecycle hardening.
-- A launch writes its row (with the name it will carry at the provider) BEFORE it asks the provider to
-- create anything, so every instance we ever created can be traced back to a row by that name, whatever fails
-- after the provider said yes. The reconciliation workflow relies on it.
-- (Null on rows written before this migration, and on rows not made by a launch.)
ALTER TABLE instances ADD COLUMN provider_name text;
CREATE INDEX instances_provider_name_idx ON instances (account_id, provider, provider_name);

-- Why the service itself ended the instance (budget alert, depleted balance, schedule limit, reconciliation).
ALTER TABLE instances ADD COLUMN end_reason text;
-- A stop or terminate that cannot reach the provider yet (key removed or rejected, provider down): says why,
-- shown in the record's `warnings` until the provider confirms.
ALTER TABLE instances ADD COLUMN lifecycle_warning text;

-- Live rows per account and provider: reconciliation and the provider-key disconnect check read these.
CREATE INDEX instances_live_idx ON instances (account_id, provider) WHERE status NOT IN ('terminated', 'failed');

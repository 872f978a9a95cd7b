-- Which provider key created each instance, and when the provider accepted the create.
-- provider_key_fingerprint: a one-way fingerprint of the key that created (or last saw) the instance, never the
-- key itself (src/domain/provider-key-fingerprint.ts). A "not found" from another key's account does not end the
-- instance. NULL on rows from before this migration: those keep the earlier rule (any key's "not found" counts).
-- key_warning: why the connected key cannot manage the instance (shown in the record's `warnings`).
-- accepted_at: when the provider accepted the create; Lambda bills from here (it reports no start).
ALTER TABLE instances
  ADD COLUMN provider_key_fingerprint text,
  ADD COLUMN key_warning text,
  ADD COLUMN accepted_at timestamptz;

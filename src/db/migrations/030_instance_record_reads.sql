-- The instance record (GET /v1/compute/{id}) reads one instance's events (its timeline); without this each read
-- scans the account's whole event history. Its ledger charges use ledger_entries_account_instance_idx.
CREATE INDEX events_account_instance_idx ON events (account_id, (data->>'instance_id'), created_at);

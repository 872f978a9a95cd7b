-- The fleet view (read model of GET /v1/compute): per account and provider, what the observer's last good
-- round listed at the provider (managed and unmanaged instances alike, as the adapter normalized them), when,
-- and whether the rounds since have failed. One row per (account, provider), replaced whole by each round,
-- so a list never sees half a round.
CREATE TABLE fleet_views (
  account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider       text NOT NULL CHECK (provider IN ('runpod', 'vastai', 'lambda')),
  instances      jsonb NOT NULL DEFAULT '[]',  -- ProviderInstance[] of the last good round
  observed_at    timestamptz,                  -- when the provider answered the last good round (null: never)
  failed_at      timestamptz,                  -- the last round's failure; null once a round succeeds
  error_code     text,
  error_message  text,
  -- Someone listed until about then: the observer keeps its cadence for a viewer even without managed instances.
  viewed_until   timestamptz,
  PRIMARY KEY (account_id, provider)
);

-- API keys as a resource: a name, scopes per resource family and verb, an optional spend cap per
-- day or month, an optional expiry, and when the key was last used (written at most once a minute per key).
-- Existing keys (and the one account:create prints) hold every scope.
ALTER TABLE service_keys
  ADD COLUMN name text NOT NULL DEFAULT 'default',
  ADD COLUMN scopes text[] NOT NULL
    DEFAULT ARRAY['read', 'compute:write', 'schedules:write', 'alerts:write', 'webhooks:write', 'billing:write', 'settings:write', 'keys:admin'],
  ADD COLUMN spend_limit_micros bigint CHECK (spend_limit_micros > 0),
  ADD COLUMN spend_limit_period text CHECK (spend_limit_period IN ('day', 'month')),
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_at timestamptz,
  ADD CONSTRAINT service_keys_spend_limit_check CHECK ((spend_limit_micros IS NULL) = (spend_limit_period IS NULL));

-- The key that launched an instance: its spend counts toward that key's cap.
ALTER TABLE instances ADD COLUMN api_key_id text REFERENCES service_keys (id);
CREATE INDEX instances_api_key_idx ON instances (api_key_id, created_at) WHERE api_key_id IS NOT NULL;

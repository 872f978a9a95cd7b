-- Managed instances (launched through this service) and the events outbox.
CREATE TABLE instances (
  id                     text PRIMARY KEY,               -- the launch workflow's business key
  account_id             text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  request_hash           text NOT NULL,                  -- SHA-256 of the launch body (Idempotency-Key replays)
  provider               text NOT NULL CHECK (provider IN ('runpod', 'vastai', 'lambda')),
  provider_instance_id   text,                           -- set once the provider accepted the create
  name                   text NOT NULL,
  status                 text NOT NULL CHECK (status IN ('provisioning', 'running', 'stopping', 'stopped',
                                                          'terminating', 'terminated', 'failed', 'unknown')),
  provider_status        text,
  gpu_type               text NOT NULL,
  gpu_count              integer NOT NULL CHECK (gpu_count > 0),
  price_per_hour_micros  bigint CHECK (price_per_hour_micros >= 0),  -- the whole instance, per hour
  spot                   boolean NOT NULL DEFAULT false,
  region                 text,
  docker_image           text,
  public_ip              text,
  ssh                    jsonb,
  warnings               jsonb NOT NULL DEFAULT '[]',
  started_at             timestamptz,                    -- first seen running: metering starts here
  metered_through        timestamptz,                    -- instance_charge entries cover [started_at, metered_through)
  ended_at               timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT instances_provider_instance_key UNIQUE (provider, provider_instance_id)
);
CREATE INDEX instances_account_idx ON instances (account_id, created_at DESC);

-- Outbox: written in the same transaction as the state change that causes the event.
CREATE TABLE events (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  type        text NOT NULL,
  data        jsonb NOT NULL,
  dedupe_key  text NOT NULL,                              -- one event per cause, however often a step retries
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_dedupe_key UNIQUE (account_id, dedupe_key)
);
CREATE INDEX events_account_created_idx ON events (account_id, created_at);

-- Jobs: a command run to its end on the cheapest admitted GPU, relaunched after a preemption or a refusal,
-- one budget across its attempts. One row per job and one per attempt (an attempt is one managed instance).
CREATE TABLE jobs (
  id                  text PRIMARY KEY,                 -- job_…; the workflow is job-<id>
  account_id          text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id          text,                             -- the key that made it: every attempt counts toward its cap
  idempotency_key     text NOT NULL,
  request_hash        text NOT NULL,
  name                text NOT NULL,
  spec                jsonb NOT NULL,                   -- the request as parsed, env excluded
  env_sealed          text,                             -- env as one sealed JSON object (src/domain/sealed-text.ts)
  status              text NOT NULL CHECK (status IN ('pending', 'running', 'retrying', 'succeeded', 'failed', 'cancelled')),
  exit_code           integer,
  error               text,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  ended_at            timestamptz,
  CONSTRAINT jobs_idempotency UNIQUE (account_id, idempotency_key)
);
CREATE INDEX jobs_account_created_idx ON jobs (account_id, created_at DESC, id DESC);

CREATE TABLE job_attempts (
  job_id                 text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  n                      integer NOT NULL CHECK (n >= 1),
  account_id             text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  instance_row_id        text NOT NULL,                -- instances.id = the attempt's launch workflow id
  provider               text NOT NULL CHECK (provider IN ('runpod', 'vastai', 'lambda')),
  spot                   boolean NOT NULL,
  price_per_hour_micros  bigint NOT NULL,
  instance_id            text,                         -- the provider's id, as in the ledger
  token_hash             bytea NOT NULL UNIQUE,        -- sha-256 of the attempt's exit token; the token itself is never stored
  reported_at            timestamptz,                  -- the exit report (one per token)
  exit_code              integer,
  output_tail            text,
  started_at             timestamptz,
  ended_at               timestamptz,
  end_reason             text CHECK (end_reason IN ('exited', 'preempted', 'lost', 'boot_failed', 'refused', 'max_cost', 'max_duration', 'cancelled', 'ended')),
  end_detail             text,
  created_at             timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (job_id, n)
);
CREATE UNIQUE INDEX job_attempts_instance_idx ON job_attempts (instance_row_id);

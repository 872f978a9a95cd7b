-- Scheduled GPU jobs: one row per schedule (mirrored by a Temporal Schedule with the same id) and one row per
-- firing (a run). Deleted schedules keep their rows (deleted_at) so their runs' history and charges stay
-- explainable; the API no longer shows them.
CREATE TABLE schedules (
  id                  text PRIMARY KEY,                 -- sched_…, also the Temporal Schedule id
  account_id          text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name                text NOT NULL,
  gpu                 text NOT NULL,
  template            text NOT NULL,
  cron                text NOT NULL,
  max_duration_hours  double precision CHECK (max_duration_hours > 0),
  max_cost_micros     bigint CHECK (max_cost_micros > 0),
  prefer_spot         boolean NOT NULL DEFAULT true,
  docker_image        text,
  startup_script      text,
  status              text NOT NULL CHECK (status IN ('active', 'paused')),
  last_run_at         timestamptz,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  deleted_at          timestamptz
);
CREATE INDEX schedules_account_idx ON schedules (account_id, created_at DESC) WHERE deleted_at IS NULL;

CREATE TABLE schedule_runs (
  id                     text PRIMARY KEY,              -- run_…
  seq                    bigint GENERATED ALWAYS AS IDENTITY UNIQUE,  -- newest first and cursor paging
  schedule_id            text NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
  account_id             text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  workflow_id            text NOT NULL UNIQUE,          -- the run workflow: a retried first step finds its row
  status                 text NOT NULL CHECK (status IN ('launching', 'running', 'succeeded', 'failed',
                           'stopped_max_duration', 'stopped_max_cost', 'preempted', 'skipped', 'cancelled')),
  scheduled_at           timestamptz NOT NULL,
  started_at             timestamptz,                   -- the run's instance reached running (metering starts)
  ended_at               timestamptz,
  provider               text CHECK (provider IN ('runpod', 'vastai', 'lambda')),
  instance_row_id        text,                          -- instances.id = the launch workflow id
  instance_id            text,                          -- the provider's id, as in the instance record and ledger
  price_per_hour_micros  bigint,
  stop_reason            text,
  error                  text,
  created_at             timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX schedule_runs_schedule_seq_idx ON schedule_runs (schedule_id, seq DESC);
-- At most one live run per schedule: the overlap rule, enforced by the database as well.
CREATE UNIQUE INDEX schedule_runs_one_live_idx ON schedule_runs (schedule_id) WHERE status IN ('launching', 'running');
-- A run's cost is the sum of its instance's charges.
CREATE INDEX ledger_entries_account_instance_idx ON ledger_entries (account_id, instance_id) WHERE instance_id IS NOT NULL;

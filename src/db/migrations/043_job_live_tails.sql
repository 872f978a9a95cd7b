-- The tail a job's wrapper ships while its command runs (POST /v1/jobs/tail, every GPUO_TAIL_INTERVAL seconds):
-- the latest one per attempt, bounded in bytes and lines by the API. It is what a Lambda attempt's logs show
-- while it runs (Lambda has no log API); the exit report's tail stays in output_tail.
ALTER TABLE job_attempts
  ADD COLUMN live_tail    text,
  ADD COLUMN live_tail_at timestamptz;

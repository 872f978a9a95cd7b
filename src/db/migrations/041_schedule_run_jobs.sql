-- A schedule's run is a job: the run names the job that carries it out (null for runs made before, for a skipped
-- firing, and for a run that failed before its job was made). Its cost is then the job's (every attempt).
ALTER TABLE schedule_runs ADD COLUMN job_id text REFERENCES jobs (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX schedule_runs_job_idx ON schedule_runs (job_id) WHERE job_id IS NOT NULL;

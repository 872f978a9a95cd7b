-- A schedule's startup_script (often carrying tokens) is sealed at rest with the master key vault
-- (src/domain/startup-script.ts): `sealed:v1:<key id>:<base64>`. The key lives outside the database, so the
-- scripts written in plaintext before are sealed by the API and the worker at start-up and by
-- `npm run db:migrate` (src/db/queries/schedule-scripts.ts). From here on a plaintext script cannot be written:
-- the constraint holds for every row written from now (NOT VALID: the rows from before are sealed in place
-- by those start-ups, which write only sealed text).
ALTER TABLE schedules ADD CONSTRAINT schedules_startup_script_sealed
  CHECK (startup_script IS NULL OR startup_script LIKE 'sealed:v1:%') NOT VALID;

-- Idle stop (beyond the spec, off unless asked): `{"utilization_below_percent": n, "for_minutes": m}`
-- on a launch (kept with its instance, shown in its record) and on a schedule (each run's launch gets it).
-- The launch workflow stops (runpod) or terminates (vastai) an instance whose every GPU stayed below the
-- threshold that long (src/domain/idle-stop.ts). Null: never stopped for idling.
ALTER TABLE instances ADD COLUMN idle_stop jsonb;
ALTER TABLE schedules ADD COLUMN idle_stop jsonb;

-- Boot deadlines are learned from the latest boots of the same provider and GPU (src/db/queries/boot-times.ts),
-- read at every launch. Without this index that read scanned and sorted the whole instances table each time;
-- with it, it reads the newest boots in order and stops after the ones it needs.
CREATE INDEX instances_boots_idx ON instances (provider, gpu_type, created_at DESC) WHERE started_at IS NOT NULL;

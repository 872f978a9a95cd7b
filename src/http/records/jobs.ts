/** The job and attempt records of the API (POST and GET /v1/jobs), and the mapping from their rows. */
import { z } from 'zod';
import { JOB_STATUSES, type AttemptRow, type JobRow } from '../../db/queries/jobs';
import { PROVIDERS } from '../../providers/types';
import { isoTimestamp } from '../schemas';

export const AttemptRecord = z.object({
  n: z.number(),
  provider: z.enum(PROVIDERS),
  spot: z.boolean(),
  instance_id: z.string().nullable(),
  price_per_hour: z.number(),
  started_at: isoTimestamp.nullable(),
  ended_at: isoTimestamp.nullable(),
  end_reason: z.string().nullable(),
  end_detail: z.string().nullable(),
  exit_code: z.number().nullable(),
  output_tail: z.string().nullable(),
  cost: z.number(),
});
export const JobRecord = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(JOB_STATUSES),
  gpu: z.string(),
  gpu_count: z.number(),
  command: z.string(),
  env_keys: z.array(z.string()),
  providers: z.array(z.enum(PROVIDERS)),
  spot_policy: z.string(),
  max_price_per_hour: z.number().nullable(),
  max_cost: z.number().nullable(),
  max_duration_hours: z.number().nullable(),
  exit_code: z.number().nullable(),
  error: z.string().nullable(),
  cost: z.number(),
  created_at: isoTimestamp,
  ended_at: isoTimestamp.nullable(),
  attempts: z.array(AttemptRecord).optional(),
});

const dollars = (micros: number | null) => (micros === null ? null : micros / 1_000_000);

function toAttemptRecord(a: AttemptRow): z.infer<typeof AttemptRecord> {
  return {
    n: a.n,
    provider: a.provider,
    spot: a.spot,
    instance_id: a.instance_id,
    price_per_hour: a.price_per_hour_micros / 1_000_000,
    started_at: a.started_at,
    ended_at: a.ended_at,
    end_reason: a.end_reason,
    end_detail: a.end_detail,
    exit_code: a.reported_at ? a.exit_code : null,
    output_tail: a.output_tail,
    cost: a.cost_micros / 1_000_000,
  };
}

/**
 * `shownCommand`: what the reader may see of the stored command (a schedule run's job stores the schedule's
 * sealed startup script: the route opens it only for a key that may write schedules).
 */
export function toJobRecord(
  j: JobRow,
  attempts?: readonly AttemptRow[],
  shownCommand: (stored: string) => string = (stored) => stored,
): z.infer<typeof JobRecord> {
  const s = j.spec;
  return {
    id: j.id,
    name: j.name,
    status: j.status,
    gpu: s.gpu,
    gpu_count: s.gpu_count,
    command: shownCommand(s.command),
    env_keys: s.env_keys,
    providers: s.providers,
    spot_policy: s.spot_policy,
    max_price_per_hour: dollars(s.max_price_per_hour_micros),
    max_cost: dollars(s.max_cost_micros),
    max_duration_hours: s.max_duration_hours,
    exit_code: j.exit_code,
    error: j.error,
    cost: j.cost_micros / 1_000_000,
    created_at: j.created_at,
    ended_at: j.ended_at,
    ...(attempts ? { attempts: attempts.map(toAttemptRecord) } : {}),
  };
}

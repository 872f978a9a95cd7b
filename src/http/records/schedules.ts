/** The schedule and run records of the API, and the mapping from their rows. */
import { z } from 'zod';
import { RUN_STATUSES, SCHEDULE_STATUSES, type RunRow, type ScheduleRow } from '../../db/queries/schedules';
import { nextFirings } from '../../domain/cron';
import { microsToDollars } from '../../domain/money';
import { PROVIDERS } from '../../providers/types';
import { IdleStopBody } from '../launch-schemas';
import { isoTimestamp } from '../schemas';

export const ScheduleRecord = z.object({
  id: z.string(),
  name: z.string(),
  gpu: z.string(),
  template: z.string(),
  cron: z.string(),
  max_duration_hours: z.number().nullable(),
  max_cost: z.number().nullable().describe('dollars'),
  prefer_spot: z.boolean(),
  docker_image: z.string().nullable(),
  startup_script: z.string().nullable(),
  status: z.enum(SCHEDULE_STATUSES),
  next_run_at: isoTimestamp.nullable().describe('next firing (UTC); null while paused'),
  last_run_at: isoTimestamp.nullable(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  idle_stop: IdleStopBody.optional().describe(
    "beyond the spec: each run's instance is ended once its GPUs idle this long; absent: never",
  ),
});

export const RunRecord = z.object({
  id: z.string(),
  schedule_id: z.string(),
  status: z.enum(RUN_STATUSES),
  scheduled_at: isoTimestamp,
  started_at: isoTimestamp.nullable().describe('the instance reached running'),
  ended_at: isoTimestamp.nullable(),
  provider: z.enum(PROVIDERS).nullable(),
  instance_id: z.string().nullable().describe("the provider's instance id"),
  price_per_hour: z.number().nullable().describe('dollars per hour for the whole instance'),
  cost: z.number().describe("dollars: the sum of the run's instance charges"),
  stop_reason: z.string().nullable(),
  error: z.string().nullable(),
  job_id: z
    .string()
    .nullable()
    .describe('beyond the spec: the job that carries the run out (GET /v1/jobs/{id}); null when none was made'),
  exit_code: z
    .number()
    .int()
    .nullable()
    .describe("beyond the spec: the startup script's exit code, once the run's job ended on one"),
});

export function toScheduleRecord(row: ScheduleRow, now = new Date()): z.infer<typeof ScheduleRecord> {
  return {
    id: row.id,
    name: row.name,
    gpu: row.gpu,
    template: row.template,
    cron: row.cron,
    max_duration_hours: row.max_duration_hours,
    max_cost: row.max_cost_micros === null ? null : microsToDollars(row.max_cost_micros),
    prefer_spot: row.prefer_spot,
    docker_image: row.docker_image,
    startup_script: row.startup_script,
    status: row.status,
    next_run_at: row.status === 'paused' ? null : nextFirings(row.cron, now, 1)[0]!.toISOString(),
    last_run_at: row.last_run_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(row.idle_stop ? { idle_stop: row.idle_stop } : {}),
  };
}

export function toRunRecord(run: RunRow): z.infer<typeof RunRecord> {
  return {
    id: run.id,
    schedule_id: run.schedule_id,
    status: run.status,
    scheduled_at: run.scheduled_at,
    started_at: run.started_at,
    ended_at: run.ended_at,
    provider: run.provider,
    instance_id: run.instance_id,
    price_per_hour: run.price_per_hour_micros === null ? null : microsToDollars(run.price_per_hour_micros),
    cost: microsToDollars(run.cost_micros),
    stop_reason: run.stop_reason,
    error: run.error,
    job_id: run.job_id,
    exit_code: run.exit_code,
  };
}

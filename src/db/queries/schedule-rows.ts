/** The rows of schedules and schedule_runs as the queries read them, and the fields a create or PUT writes. */
import type { IdleStopRule } from '../../domain/idle-stop';
import { z } from 'zod';
import { type ProviderId, PROVIDERS } from '../../providers/types';

export const SCHEDULE_STATUSES = ['active', 'paused'] as const;
export const RUN_STATUSES = [
  'launching',
  'running',
  'succeeded',
  'failed',
  'stopped_max_duration',
  'stopped_max_cost',
  'preempted',
  'skipped',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type FinalRunStatus = Exclude<RunStatus, 'launching' | 'running' | 'skipped'>;
export const LIVE_RUN_STATUSES: readonly RunStatus[] = ['launching', 'running'];

export const ScheduleRow = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  gpu: z.string(),
  template: z.string(),
  cron: z.string(),
  max_duration_hours: z.number().nullable(),
  max_cost_micros: z.number().nullable(),
  prefer_spot: z.boolean(),
  docker_image: z.string().nullable(),
  startup_script: z.string().nullable(),
  status: z.enum(SCHEDULE_STATUSES),
  last_run_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  /**
   * The API key that last created or replaced the schedule: its runs are admitted against that key's spend
   * cap (and refused once it is revoked or expired) and their instances count toward its spend. Null for
   * schedules made before keys were recorded: the balance alone admits them.
   */
  api_key_id: z.string().nullable(),
  /** Each run's launch gets this idle-stop rule (src/domain/idle-stop.ts); null: none. */
  idle_stop: z.object({ utilization_below_percent: z.number(), for_minutes: z.number() }).nullable(),
});
export type ScheduleRow = z.infer<typeof ScheduleRow>;

export const RunRow = z.object({
  id: z.string(),
  seq: z.number(),
  schedule_id: z.string(),
  account_id: z.string(),
  workflow_id: z.string(),
  status: z.enum(RUN_STATUSES),
  scheduled_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  provider: z.enum(PROVIDERS).nullable(),
  instance_row_id: z.string().nullable(),
  instance_id: z.string().nullable(),
  price_per_hour_micros: z.number().nullable(),
  stop_reason: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  /** The run's instance charges so far (micro-dollars, positive). */
  cost_micros: z.number(),
});
export type RunRow = z.infer<typeof RunRow>;

/** Fields a create or PUT sets (server-owned columns excluded). */
export interface ScheduleFields {
  name: string;
  gpu: string;
  template: string;
  cron: string;
  max_duration_hours: number | null;
  max_cost_micros: number | null;
  prefer_spot: boolean;
  docker_image: string | null;
  startup_script: string | null;
  status: (typeof SCHEDULE_STATUSES)[number];
  /** Absent or null: none (an update writes what it is given: the route passes the current rule on). */
  idle_stop?: IdleStopRule | null;
}

export interface RunOffer {
  provider: ProviderId;
  spot: boolean;
  region: string | null;
  pricePerHourMicros: number;
  availability: number;
}

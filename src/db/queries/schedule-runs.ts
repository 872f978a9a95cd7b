/**
 * A schedule's runs as rows: their statuses, the columns read (the run's cost from the ledger), the paging cursor
 * and the data of their events.
 */
import { z } from 'zod';
import { PROVIDERS } from '../../providers/types';
import { sql } from '../sql';

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
  /** The job that carries the run out (null for a skipped firing, a run refused before its job, older runs). */
  job_id: z.string().nullable(),
  /** The job's exit code once it ended on one (the command's own). */
  exit_code: z.number().nullable(),
  /** The run's charges so far (micro-dollars, positive): its job's attempts, or its one instance. */
  cost_micros: z.number(),
});
export type RunRow = z.infer<typeof RunRow>;

export const RUN_COLUMNS = sql.fragment`r.id, r.seq, r.schedule_id, r.account_id, r.workflow_id, r.status,
  r.scheduled_at, r.started_at, r.ended_at, r.provider, r.instance_row_id, r.instance_id, r.price_per_hour_micros,
  r.stop_reason, r.error, r.created_at,
  r.job_id, (SELECT j.exit_code FROM jobs j WHERE j.id = r.job_id) AS exit_code,
  CASE WHEN r.job_id IS NULL THEN
    coalesce((SELECT -sum(l.amount_micros) FROM ledger_entries l
              WHERE l.account_id = r.account_id AND l.instance_id = r.instance_id AND l.type = 'instance_charge'), 0)
  ELSE
    coalesce((SELECT -sum(l.amount_micros) FROM ledger_entries l JOIN job_attempts a
                ON l.account_id = a.account_id AND l.instance_id = a.instance_id
              WHERE a.job_id = r.job_id AND l.type = 'instance_charge'), 0)
  END::bigint AS cost_micros`;

const CURSOR_PREFIX = 'run:';

export function encodeRunCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`).toString('base64url');
}

/** The run sequence number a cursor points below, or null when it is not a cursor we issued. */
export function decodeRunCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(cursor)) return null;
  const match = /^run:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) && encodeRunCursor(seq) === cursor ? seq : null;
}

export function runEventData(run: RunRow): Record<string, unknown> {
  return {
    schedule_id: run.schedule_id,
    run_id: run.id,
    status: run.status,
    provider: run.provider,
    instance_id: run.instance_id,
    price_per_hour: run.price_per_hour_micros === null ? null : run.price_per_hour_micros / 1_000_000,
    cost: run.cost_micros / 1_000_000,
    started_at: run.started_at,
    ended_at: run.ended_at,
    stop_reason: run.stop_reason,
    error: run.error,
    job_id: run.job_id,
    exit_code: run.exit_code,
  };
}

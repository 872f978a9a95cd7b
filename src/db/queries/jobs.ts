/**
 * Jobs and their attempts. Every statement about an account's job filters by `account_id`; the worker's
 * statements are keyed by the job id its workflow carries. A job's and an attempt's cost is read from the
 * ledger (the attempts' instance charges), never kept beside it.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PROVIDERS, type ProviderId } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent } from './events';
import { afterListCursor, newestFirst, page as toPage, type Page, type PageRequest } from './paging';

export const JOB_STATUSES = ['pending', 'running', 'retrying', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export const ATTEMPT_END_REASONS = [
  'exited',
  'preempted',
  'lost',
  'boot_failed',
  'refused',
  'max_cost',
  'max_duration',
  'cancelled',
  'ended',
] as const;
export type AttemptEndReason = (typeof ATTEMPT_END_REASONS)[number];

export const RETRY_EVENTS = ['no_capacity', 'preemption', 'error'] as const;
export type RetryEvent = (typeof RETRY_EVENTS)[number];

/** The job as asked for (env excluded: it is sealed apart and never read back by the API). */
export const JobSpec = z.object({
  gpu: z.string(),
  gpu_count: z.number().int(),
  template: z.string().nullable(),
  docker_image: z.string().nullable(),
  command: z.string(),
  env_keys: z.array(z.string()),
  providers: z.array(z.enum(PROVIDERS)),
  spot_policy: z.enum(['spot', 'on-demand', 'auto']),
  max_price_per_hour_micros: z.number().nullable(),
  max_cost_micros: z.number().nullable(),
  max_duration_hours: z.number().nullable(),
  retry: z.object({
    on: z.array(z.enum(RETRY_EVENTS)),
    max_attempts: z.number().int(),
    within_ms: z.number().int(),
    on_demand_after_preemptions: z.number().int().nullable(),
  }),
  idle_stop: z.object({ utilization_below_percent: z.number(), for_minutes: z.number() }).nullable(),
});
export type JobSpec = z.infer<typeof JobSpec>;

export const JobRow = z.object({
  id: z.string(),
  account_id: z.string(),
  api_key_id: z.string().nullable(),
  request_hash: z.string(),
  name: z.string(),
  spec: JobSpec,
  status: z.enum(JOB_STATUSES),
  exit_code: z.number().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  ended_at: z.string().nullable(),
  /** The attempts' instance charges so far (micro-dollars, positive). */
  cost_micros: z.number(),
});
export type JobRow = z.infer<typeof JobRow>;

export const AttemptRow = z.object({
  job_id: z.string(),
  n: z.number(),
  instance_row_id: z.string(),
  provider: z.enum(PROVIDERS),
  spot: z.boolean(),
  price_per_hour_micros: z.number(),
  instance_id: z.string().nullable(),
  reported_at: z.string().nullable(),
  exit_code: z.number().nullable(),
  output_tail: z.string().nullable(),
  /** The latest tail the wrapper shipped while the command ran (POST /v1/jobs/tail). */
  live_tail: z.string().nullable(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  end_reason: z.enum(ATTEMPT_END_REASONS).nullable(),
  end_detail: z.string().nullable(),
  created_at: z.string(),
  cost_micros: z.number(),
});
export type AttemptRow = z.infer<typeof AttemptRow>;

/**
 * An attempt's provider instance id: the job workflow writes it when the launch tells it, but the instance's row
 * has it from the provider's answer on, which a busy worker's signal may trail (the wrapper can already have
 * shipped output by then).
 */
const ATTEMPT_INSTANCE_ID = sql.fragment`coalesce(a.instance_id,
  (SELECT i.provider_instance_id FROM instances i WHERE i.id = a.instance_row_id))`;

const JOB_COLUMNS = sql.fragment`j.id, j.account_id, j.api_key_id, j.request_hash, j.name, j.spec, j.status,
  j.exit_code, j.error,
  j.created_at, j.ended_at,
  coalesce((SELECT -sum(l.amount_micros) FROM ledger_entries l JOIN job_attempts a
              ON l.account_id = a.account_id AND l.instance_id = ${ATTEMPT_INSTANCE_ID}
            WHERE a.job_id = j.id AND l.type = 'instance_charge'), 0)::bigint AS cost_micros`;

const ATTEMPT_COLUMNS = sql.fragment`a.job_id, a.n, a.instance_row_id, a.provider, a.spot, a.price_per_hour_micros,
  ${ATTEMPT_INSTANCE_ID} AS instance_id, a.reported_at, a.exit_code, a.output_tail, a.live_tail, a.started_at,
  a.ended_at, a.end_reason, a.end_detail, a.created_at,
  coalesce((SELECT -sum(l.amount_micros) FROM ledger_entries l
            WHERE l.account_id = a.account_id AND l.instance_id = ${ATTEMPT_INSTANCE_ID}
              AND l.type = 'instance_charge'), 0)::bigint AS cost_micros`;

export interface NewJob {
  id: string;
  accountId: string;
  apiKeyId: string | null;
  idempotencyKey: string;
  requestHash: string;
  name: string;
  spec: JobSpec;
  envSealed: string | null;
}

/** Why a report with an attempt's token (its exit, or a shipped tail) changed nothing. */
export type TokenRefusal = 'unknown_token' | 'already_reported' | 'attempt_ended';

/** What an exit report did: recorded on its attempt, or why nothing changed. */
export type ExitReportOutcome = { recorded: AttemptRow & { account_id: string } } | { refused: TokenRefusal };

/** What a shipped tail did: kept on its attempt, or why nothing changed (as for an exit report). */
export type LiveTailOutcome = { recorded: { job_id: string; n: number } } | { refused: TokenRefusal };

export function createJobQueries(pool: Pool) {
  const jobById = (conn: CommonQueryMethods, id: string) =>
    conn.maybeOne(sql.type(JobRow)`SELECT ${JOB_COLUMNS} FROM jobs j WHERE j.id = ${id}`);

  /** Why a report with this token hash found no attempt to record on. */
  const refusalOf = async (tokenHash: Buffer): Promise<TokenRefusal> => {
    const found = await pool.maybeOne(sql.type(z.object({ reported: z.boolean() }))`
      SELECT reported_at IS NOT NULL AS reported FROM job_attempts WHERE token_hash = ${sql.binary(tokenHash)}`);
    if (!found) return 'unknown_token';
    return found.reported ? 'already_reported' : 'attempt_ended';
  };

  return {
    /** Inserts the job, or returns the one made earlier with the same Idempotency-Key (`created: false`). */
    async insert(job: NewJob): Promise<{ job: JobRow; created: boolean }> {
      const inserted = await pool.maybeOne(sql.type(z.object({ id: z.string() }))`
        INSERT INTO jobs (id, account_id, api_key_id, idempotency_key, request_hash, name, spec, env_sealed, status)
        VALUES (${job.id}, ${job.accountId}, ${job.apiKeyId}, ${job.idempotencyKey}, ${job.requestHash}, ${job.name},
          ${sql.jsonb(job.spec as never)}, ${job.envSealed}, 'pending')
        ON CONFLICT (account_id, idempotency_key) DO NOTHING
        RETURNING id`);
      if (inserted) return { job: (await jobById(pool, inserted.id))!, created: true };
      const earlier = await pool.one(sql.type(JobRow)`
        SELECT ${JOB_COLUMNS} FROM jobs j WHERE j.account_id = ${job.accountId}
          AND j.idempotency_key = ${job.idempotencyKey}`);
      return { job: earlier, created: false };
    },

    /** Takes back a job whose workflow could not be started (nothing ran). */
    async discard(accountId: string, id: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        DELETE FROM jobs j WHERE j.account_id = ${accountId} AND j.id = ${id}
          AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = j.id)`);
    },

    async find(accountId: string, id: string): Promise<JobRow | null> {
      return pool.maybeOne(
        sql.type(JobRow)`SELECT ${JOB_COLUMNS} FROM jobs j WHERE j.account_id = ${accountId} AND j.id = ${id}`,
      );
    },

    /** The job for its workflow (keyed by the id the workflow carries). */
    async findForWorkflow(id: string): Promise<JobRow | null> {
      return jobById(pool, id);
    },

    /** The sealed env of a job (null: none), for the activity that hands it to an attempt. */
    async sealedEnv(id: string): Promise<string | null> {
      const row = await pool.maybeOne(
        sql.type(z.object({ env_sealed: z.string().nullable() }))`SELECT env_sealed FROM jobs WHERE id = ${id}`,
      );
      return row?.env_sealed ?? null;
    },

    async list(accountId: string, request: PageRequest & { status?: JobStatus }): Promise<Page<JobRow>> {
      const status = request.status === undefined ? sql.fragment`true` : sql.fragment`j.status = ${request.status}`;
      const rows = await pool.any(sql.type(JobRow)`
        SELECT * FROM (SELECT ${JOB_COLUMNS} FROM jobs j WHERE j.account_id = ${accountId} AND ${status}) j
        WHERE ${afterListCursor(request.cursor)}
        ORDER BY ${newestFirst} LIMIT ${request.limit + 1}`);
      return toPage(rows, request.limit);
    },

    async attempts(jobId: string): Promise<readonly AttemptRow[]> {
      return pool.any(
        sql.type(AttemptRow)`SELECT ${ATTEMPT_COLUMNS} FROM job_attempts a WHERE a.job_id = ${jobId} ORDER BY a.n`,
      );
    },

    /** The job attempt an instance of the account ran (its launch row), or null for an instance that is not one. */
    async attemptOfInstance(accountId: string, instanceRowId: string): Promise<AttemptRow | null> {
      return pool.maybeOne(sql.type(AttemptRow)`
        SELECT ${ATTEMPT_COLUMNS} FROM job_attempts a
        WHERE a.account_id = ${accountId} AND a.instance_row_id = ${instanceRowId}`);
    },

    async attempt(jobId: string, n: number): Promise<AttemptRow | null> {
      return pool.maybeOne(
        sql.type(AttemptRow)`SELECT ${ATTEMPT_COLUMNS} FROM job_attempts a WHERE a.job_id = ${jobId} AND a.n = ${n}`,
      );
    },

    /**
     * Records attempt `n` with the hash of its exit token. A retried step replaces the token (the earlier one
     * was never handed to an instance), unless the attempt has reported already.
     */
    async upsertAttempt(a: {
      jobId: string;
      n: number;
      accountId: string;
      instanceRowId: string;
      provider: ProviderId;
      spot: boolean;
      pricePerHourMicros: number;
      tokenHash: Buffer;
    }): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        INSERT INTO job_attempts (job_id, n, account_id, instance_row_id, provider, spot, price_per_hour_micros,
          token_hash)
        VALUES (${a.jobId}, ${a.n}, ${a.accountId}, ${a.instanceRowId}, ${a.provider}, ${a.spot},
          ${a.pricePerHourMicros},
          ${sql.binary(a.tokenHash)})
        ON CONFLICT (job_id, n) DO UPDATE SET token_hash = EXCLUDED.token_hash WHERE job_attempts.reported_at IS NULL`);
    },

    /** The attempt's exit token (its hash), set as its instance is created; never once it has reported. */
    async setAttemptToken(jobId: string, n: number, tokenHash: Buffer): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE job_attempts SET token_hash = ${sql.binary(tokenHash)} WHERE job_id = ${jobId} AND n = ${n}
          AND reported_at IS NULL`);
    },

    async markAttemptLaunched(jobId: string, n: number, instanceId: string, pricePerHourMicros: number): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE job_attempts SET instance_id = ${instanceId}, price_per_hour_micros = ${pricePerHourMicros}
        WHERE job_id = ${jobId} AND n = ${n}`);
    },

    async markAttemptStarted(jobId: string, n: number, startedAt: Date): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE job_attempts SET started_at = coalesce(started_at, ${startedAt.toISOString()}::timestamptz)
        WHERE job_id = ${jobId} AND n = ${n}`);
    },

    /** Ends an attempt once (a retried step keeps the first ending). */
    async finishAttempt(
      jobId: string,
      n: number,
      end: { reason: AttemptEndReason; detail: string | null; endedAt: Date },
    ): Promise<AttemptRow> {
      await pool.query(sql.typeAlias('void')`
        UPDATE job_attempts SET end_reason = ${end.reason}, end_detail = ${end.detail},
          ended_at = ${end.endedAt.toISOString()}
        WHERE job_id = ${jobId} AND n = ${n} AND end_reason IS NULL`);
      return pool.one(
        sql.type(AttemptRow)`SELECT ${ATTEMPT_COLUMNS} FROM job_attempts a WHERE a.job_id = ${jobId} AND a.n = ${n}`,
      );
    },

    /**
     * An exit report: recorded once, on the attempt whose token hash matches, while that attempt has neither
     * reported nor ended. Anything else changes nothing and says why.
     */
    async recordExitReport(tokenHash: Buffer, report: { exitCode: number; tail: string }): Promise<ExitReportOutcome> {
      const updated = await pool.maybeOne(sql.type(AttemptRow.extend({ account_id: z.string() }))`
        UPDATE job_attempts a SET reported_at = clock_timestamp(), exit_code = ${report.exitCode},
          output_tail = ${report.tail}
        WHERE a.token_hash = ${sql.binary(tokenHash)} AND a.reported_at IS NULL AND a.end_reason IS NULL
        RETURNING ${ATTEMPT_COLUMNS}, a.account_id`);
      return updated ? { recorded: updated } : { refused: await refusalOf(tokenHash) };
    },

    /**
     * A tail shipped while the command runs: kept (replacing the one before) on the attempt whose token hash
     * matches, while that attempt has neither reported its exit nor ended. Anything else changes nothing.
     */
    async recordLiveTail(tokenHash: Buffer, tail: string): Promise<LiveTailOutcome> {
      const updated = await pool.maybeOne(sql.type(z.object({ job_id: z.string(), n: z.number() }))`
        UPDATE job_attempts a SET live_tail = ${tail}, live_tail_at = clock_timestamp()
        WHERE a.token_hash = ${sql.binary(tokenHash)} AND a.reported_at IS NULL AND a.end_reason IS NULL
        RETURNING a.job_id, a.n`);
      return updated ? { recorded: updated } : { refused: await refusalOf(tokenHash) };
    },

    /** Moves the job to `status` (final statuses once), writing `event` with it in one transaction. */
    async setStatus(
      jobId: string,
      status: JobStatus,
      change: {
        exitCode?: number | null;
        error?: string | null;
        event?: { type: Parameters<typeof insertEvent>[1]['type']; data: Record<string, unknown>; dedupeKey: string };
      },
    ): Promise<JobRow> {
      return pool.transaction(async (tx) => {
        const final = FINAL_JOB_STATUSES.includes(status);
        const row = await tx.maybeOne(sql.type(z.object({ account_id: z.string() }))`
          UPDATE jobs SET status = ${status},
            exit_code = ${change.exitCode === undefined ? sql.fragment`exit_code` : sql.fragment`${change.exitCode}`},
            error = ${change.error === undefined ? sql.fragment`error` : sql.fragment`${change.error}`},
            ended_at = ${final ? sql.fragment`coalesce(ended_at, clock_timestamp())` : sql.fragment`ended_at`}
          WHERE id = ${jobId} AND status NOT IN ('succeeded', 'failed', 'cancelled')
          RETURNING account_id`);
        if (row && change.event) await insertEvent(tx, { accountId: row.account_id, ...change.event });
        return (await jobById(tx, jobId))!;
      });
    },

    /** Writes an event of the job (deduplicated by its key). */
    async event(
      accountId: string,
      event: { type: Parameters<typeof insertEvent>[1]['type']; data: Record<string, unknown>; dedupeKey: string },
    ): Promise<void> {
      await insertEvent(pool, { accountId, ...event });
    },
  };
}
export type JobQueries = ReturnType<typeof createJobQueries>;

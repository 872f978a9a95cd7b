/**
 * Schedules and their runs. Every statement about an account's resource filters by `account_id`. Writes
 * that change a schedule take its row lock, so a run starting, a PUT and a DELETE serialize.
 */
import type { IdleStopRule } from '../../domain/idle-stop';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { MAX_OFFER_AGE_MS } from '../../domain/pricing';
import { type ProviderId, PROVIDERS } from '../../providers/types';
import { afterListCursor, newestFirst, page as toPage, type Page, type PageRequest } from './paging';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent } from './events';
import { encodeRunCursor, RUN_COLUMNS, RunRow, runEventData, type FinalRunStatus } from './schedule-runs';

export * from './schedule-runs';

export const SCHEDULE_STATUSES = ['active', 'paused'] as const;

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

const COLUMNS = sql.fragment`id, account_id, name, gpu, template, cron, max_duration_hours, max_cost_micros,
  prefer_spot, docker_image, startup_script, status, last_run_at, created_at, updated_at, deleted_at, api_key_id,
  idle_stop`;

export function createScheduleQueries(pool: Pool) {
  async function runById(conn: CommonQueryMethods, id: string): Promise<RunRow> {
    return conn.one(sql.type(RunRow)`SELECT ${RUN_COLUMNS} FROM schedule_runs r WHERE r.id = ${id}`);
  }

  return {
    /** Runs `fn` in one transaction (a schedule change and its Temporal call commit or fail together). */
    transaction<T>(fn: (tx: CommonQueryMethods) => Promise<T>): Promise<T> {
      return pool.transaction(fn);
    },

    /** A new schedule, made by the API key `apiKeyId` (its runs are admitted against that key's cap). */
    async insert(
      conn: CommonQueryMethods,
      accountId: string,
      fields: ScheduleFields,
      apiKeyId: string | null = null,
    ): Promise<ScheduleRow> {
      return conn.one(sql.type(ScheduleRow)`
        INSERT INTO schedules (id, account_id, name, gpu, template, cron, max_duration_hours, max_cost_micros,
          prefer_spot, docker_image, startup_script, status, api_key_id, idle_stop)
        VALUES (${newId('sched')}, ${accountId}, ${fields.name}, ${fields.gpu}, ${fields.template}, ${fields.cron},
          ${fields.max_duration_hours}, ${fields.max_cost_micros}, ${fields.prefer_spot}, ${fields.docker_image},
          ${fields.startup_script}, ${fields.status}, ${apiKeyId},
          ${fields.idle_stop ? sql.jsonb({ ...fields.idle_stop }) : null})
        RETURNING ${COLUMNS}`);
    },

    async find(accountId: string, id: string, conn: CommonQueryMethods = pool): Promise<ScheduleRow | null> {
      return conn.maybeOne(sql.type(ScheduleRow)`
        SELECT ${COLUMNS} FROM schedules WHERE account_id = ${accountId} AND id = ${id} AND deleted_at IS NULL`);
    },

    async findForUpdate(conn: CommonQueryMethods, accountId: string, id: string): Promise<ScheduleRow | null> {
      return conn.maybeOne(sql.type(ScheduleRow)`
        SELECT ${COLUMNS} FROM schedules WHERE account_id = ${accountId} AND id = ${id} AND deleted_at IS NULL
        FOR UPDATE`);
    },

    /** A page of the account's schedules, newest first. */
    async list(accountId: string, request: PageRequest): Promise<Page<ScheduleRow>> {
      const rows = await pool.any(sql.type(ScheduleRow)`
        SELECT ${COLUMNS} FROM schedules
        WHERE account_id = ${accountId} AND deleted_at IS NULL AND ${afterListCursor(request.cursor)}
        ORDER BY ${newestFirst} LIMIT ${request.limit + 1}`);
      return toPage(rows, request.limit);
    },

    /** Replaces the schedule's fields; the key that replaces it becomes the key its runs are admitted against. */
    async update(
      conn: CommonQueryMethods,
      accountId: string,
      id: string,
      fields: ScheduleFields,
      apiKeyId: string | null = null,
    ): Promise<ScheduleRow> {
      return conn.one(sql.type(ScheduleRow)`
        UPDATE schedules SET name = ${fields.name}, gpu = ${fields.gpu}, template = ${fields.template},
          cron = ${fields.cron}, max_duration_hours = ${fields.max_duration_hours},
          max_cost_micros = ${fields.max_cost_micros}, prefer_spot = ${fields.prefer_spot},
          docker_image = ${fields.docker_image}, startup_script = ${fields.startup_script},
          status = ${fields.status}, api_key_id = coalesce(${apiKeyId}, api_key_id),
          idle_stop = ${fields.idle_stop ? sql.jsonb({ ...fields.idle_stop }) : null}, updated_at = clock_timestamp()
        WHERE account_id = ${accountId} AND id = ${id}
        RETURNING ${COLUMNS}`);
    },

    async markDeleted(conn: CommonQueryMethods, accountId: string, id: string): Promise<void> {
      await conn.query(sql.typeAlias('void')`
        UPDATE schedules SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE account_id = ${accountId} AND id = ${id}`);
    },

    /**
     * Takes back a schedule whose Temporal Schedule could not be made (its create failed): the row goes, or,
     * should a firing have slipped in and recorded a run, it is marked deleted like any deleted schedule.
     */
    async discard(conn: CommonQueryMethods, accountId: string, id: string): Promise<void> {
      const removed = await conn.query(sql.typeAlias('void')`
        DELETE FROM schedules s WHERE s.account_id = ${accountId} AND s.id = ${id}
          AND NOT EXISTS (SELECT 1 FROM schedule_runs r WHERE r.schedule_id = s.id)`);
      if (removed.rowCount > 0) return;
      await conn.query(sql.typeAlias('void')`
        UPDATE schedules SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE account_id = ${accountId} AND id = ${id} AND deleted_at IS NULL`);
    },

    /** Every live schedule of every account (the service's reconciliation with Temporal). */
    async listLive(): Promise<readonly ScheduleRow[]> {
      return pool.any(sql.type(ScheduleRow)`SELECT ${COLUMNS} FROM schedules WHERE deleted_at IS NULL ORDER BY id`);
    },

    /** Workflow ids of the schedule's live runs (launching or running). */
    async liveRunWorkflowIds(
      accountId: string,
      scheduleId: string,
      conn: CommonQueryMethods = pool,
    ): Promise<string[]> {
      const rows = await conn.any(sql.type(z.object({ workflow_id: z.string() }))`
        SELECT workflow_id FROM schedule_runs
        WHERE account_id = ${accountId} AND schedule_id = ${scheduleId} AND status IN ('launching', 'running')`);
      return rows.map((r) => r.workflow_id);
    },

    /**
     * The first step of every run, exactly once per workflow id: records `launching`, or `skipped` when
     * another run of the schedule is still live. Returns the schedule as it is now (null once deleted: then
     * nothing is recorded).
     */
    async beginRun(input: {
      workflowId: string;
      scheduleId: string;
      accountId: string;
      scheduledAt: Date;
    }): Promise<{ run: RunRow; schedule: ScheduleRow } | null> {
      return pool.transaction(async (tx) => {
        const schedule = await tx.maybeOne(sql.type(ScheduleRow)`
          SELECT ${COLUMNS} FROM schedules WHERE account_id = ${input.accountId} AND id = ${input.scheduleId}
          FOR UPDATE`);
        if (!schedule || schedule.deleted_at) return null;
        const existing = await tx.maybeOne(sql.type(RunRow)`
          SELECT ${RUN_COLUMNS} FROM schedule_runs r WHERE r.workflow_id = ${input.workflowId}`);
        if (existing) return { run: existing, schedule };
        const live = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
          SELECT id FROM schedule_runs
          WHERE schedule_id = ${schedule.id} AND status IN ('launching', 'running') LIMIT 1`);
        const id = newId('run');
        await tx.query(sql.typeAlias('void')`
          INSERT INTO schedule_runs (id, schedule_id, account_id, workflow_id, status, scheduled_at, ended_at,
            stop_reason)
          VALUES (${id}, ${schedule.id}, ${schedule.account_id}, ${input.workflowId}, ${live ? 'skipped' : 'launching'},
            ${input.scheduledAt.toISOString()}, ${live ? sql.fragment`clock_timestamp()` : null},
            ${live ? `the previous run ${live.id} was still live` : null})`);
        await tx.query(sql.typeAlias('void')`
          UPDATE schedules SET last_run_at = greatest(last_run_at, ${input.scheduledAt.toISOString()}::timestamptz)
          WHERE id = ${schedule.id}`);
        return { run: await runById(tx, id), schedule };
      });
    },

    /** The provider accepted the run's instance. */
    async markRunLaunched(
      runId: string,
      launched: {
        provider: ProviderId;
        instanceRowId: string;
        instanceId: string | null;
        pricePerHourMicros: number | null;
      },
    ): Promise<RunRow> {
      await pool.query(sql.typeAlias('void')`
        UPDATE schedule_runs SET provider = ${launched.provider}, instance_row_id = ${launched.instanceRowId},
          instance_id = ${launched.instanceId}, price_per_hour_micros = ${launched.pricePerHourMicros}
        WHERE id = ${runId}`);
      return runById(pool, runId);
    },

    /** The run is carried out by job `jobId` (set once: a retried step keeps the first). */
    async attachJob(runId: string, jobId: string): Promise<RunRow> {
      await pool.query(sql.typeAlias('void')`
        UPDATE schedule_runs SET job_id = ${jobId} WHERE id = ${runId} AND job_id IS NULL`);
      return runById(pool, runId);
    },

    /** The live run that job `jobId` carries out, if any (a job made through the API has none). */
    async findLiveRunOfJob(jobId: string): Promise<RunRow | null> {
      return pool.maybeOne(sql.type(RunRow)`
        SELECT ${RUN_COLUMNS} FROM schedule_runs r WHERE r.job_id = ${jobId} AND r.status IN ('launching', 'running')`);
    },

    /** The run's instance reached running: `running` and `schedule.run.started`, once. */
    async markRunRunning(runId: string, startedAt: Date): Promise<RunRow> {
      return pool.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`
          UPDATE schedule_runs SET status = 'running', started_at = coalesce(started_at, ${startedAt.toISOString()})
          WHERE id = ${runId} AND status = 'launching'`);
        const run = await runById(tx, runId);
        await insertEvent(tx, {
          accountId: run.account_id,
          type: 'schedule.run.started',
          data: runEventData(run),
          dedupeKey: `schedule.run.started:${runId}`,
        });
        return run;
      });
    },

    /**
     * The run's end, once: final status, reason and `schedule.run.completed` (or `.failed` for `failed` and
     * `preempted`), in one transaction. A second call returns the run as it is.
     */
    async finishRun(
      runId: string,
      status: FinalRunStatus,
      detail: { stopReason?: string | null; error?: string | null; endedAt: Date },
    ): Promise<RunRow> {
      return pool.transaction(async (tx) => {
        const changed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
          UPDATE schedule_runs SET status = ${status}, ended_at = ${detail.endedAt.toISOString()},
            stop_reason = ${detail.stopReason ?? null}, error = ${detail.error ?? null}
          WHERE id = ${runId} AND status IN ('launching', 'running')
          RETURNING id`);
        const run = await runById(tx, runId);
        if (changed) {
          const type = status === 'failed' || status === 'preempted' ? 'schedule.run.failed' : 'schedule.run.completed';
          await insertEvent(tx, {
            accountId: run.account_id,
            type,
            data: runEventData(run),
            dedupeKey: `${type}:${runId}`,
          });
        }
        return run;
      });
    },

    async findRun(runId: string): Promise<RunRow | null> {
      return pool.maybeOne(sql.type(RunRow)`SELECT ${RUN_COLUMNS} FROM schedule_runs r WHERE r.id = ${runId}`);
    },

    /**
     * Runs of one schedule, newest first; `cursor` is a `next_cursor` from an earlier page (validated by the
     * route).
     */
    async listRuns(
      accountId: string,
      scheduleId: string,
      options: { limit: number; before?: number },
    ): Promise<{ runs: RunRow[]; has_more: boolean; next_cursor: string | null }> {
      const rows = await pool.any(sql.type(RunRow)`
        SELECT ${RUN_COLUMNS} FROM schedule_runs r
        WHERE r.account_id = ${accountId} AND r.schedule_id = ${scheduleId}
          ${options.before !== undefined ? sql.fragment`AND r.seq < ${options.before}` : sql.fragment``}
        ORDER BY r.seq DESC LIMIT ${options.limit + 1}`);
      const runs = rows.slice(0, options.limit);
      const hasMore = rows.length > options.limit;
      return { runs, has_more: hasMore, next_cursor: hasMore ? encodeRunCursor(runs[runs.length - 1]!.seq) : null };
    },

    /**
     * Available offers for a GPU from the pricing tables (fresh under an hour, availability > 0) on the given
     * providers: cheapest first, spot before on-demand when `preferSpot`.
     */
    async findRunOffers(
      gpu: string,
      providers: readonly ProviderId[],
      preferSpot: boolean,
      now: Date,
    ): Promise<RunOffer[]> {
      if (providers.length === 0) return [];
      const rows = await pool.any(sql.type(
        z.object({
          provider: z.enum(PROVIDERS),
          spot: z.boolean(),
          region: z.string().nullable(),
          price_per_hour_micros: z.number(),
          availability: z.number(),
        }),
      )`
        SELECT provider, spot, region, price_per_hour_micros, availability FROM pricing_offers
        WHERE gpu_type = ${gpu} AND availability > 0 AND provider = ANY(${sql.array([...providers], 'text')})
          AND fetched_at > ${new Date(now.getTime() - MAX_OFFER_AGE_MS).toISOString()}
          ${preferSpot ? sql.fragment`` : sql.fragment`AND NOT spot`}
        ORDER BY ${preferSpot ? sql.fragment`spot DESC,` : sql.fragment``} price_per_hour_micros, provider`);
      return rows.map((r) => ({
        provider: r.provider,
        spot: r.spot,
        region: r.region,
        pricePerHourMicros: r.price_per_hour_micros,
        availability: r.availability,
      }));
    },
  };
}
export type ScheduleQueries = ReturnType<typeof createScheduleQueries>;

/**
 * Status changes of an instance row: the provider's latest view, the first run (with `instance.started`), a
 * resume, the end (with its events), a failed launch, and the pending-stop warning.
 */
import { z } from 'zod';
import { microsToDollars } from '../../domain/money';
import type { InstanceStatus, ProviderInstance } from '../../providers/types';
import { BILLS_FROM_CREATE } from '../../domain/providers';
import { newId } from '../../domain/ids';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent, type EventType } from './events';
import { INSTANCE_COLUMNS as COLUMNS, InstanceRow, micros } from './instance-row';

export function createInstanceStatusQueries(pool: Pool) {
  return {
    /**
     * Latest provider view of an instance (status, address); never ends a row nor moves an ended one back, and never
     * re-prices it: the price fixed at launch meters its whole life (a stopped pod's price of 0 is not its price).
     */
    async refreshFromProvider(id: string, i: ProviderInstance): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET
          -- Ending moves (stopped, terminated, failed) are the workflow's, written with their charge and event.
          status = CASE WHEN status IN ('stopped', 'terminated', 'failed')
                          OR ${i.status} IN ('stopped', 'terminated', 'failed')
                        THEN status ELSE ${i.status} END,
          provider_status = ${i.providerStatus}, public_ip = coalesce(${i.publicIp}, public_ip),
          ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh),
          price_per_hour_micros = coalesce(price_per_hour_micros, ${micros(i.pricePerHour)}),
          region = coalesce(region, ${i.region}), updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },

    /**
     * What a batched observation learned that is no state change (address, SSH, the provider's own status word):
     * written only when it differs, so a steady fleet costs no writes. Status moves stay the workflow's.
     */
    async refreshObserved(id: string, i: ProviderInstance): Promise<boolean> {
      const result = await pool.query(sql.typeAlias('void')`
        UPDATE instances SET provider_status = ${i.providerStatus}, public_ip = coalesce(${i.publicIp}, public_ip),
          ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh), updated_at = now()
        WHERE id = ${id} AND status NOT IN ('terminated', 'failed')
          AND (provider_status IS DISTINCT FROM ${i.providerStatus}
            OR (${i.publicIp}::text IS NOT NULL AND public_ip IS DISTINCT FROM ${i.publicIp})
            OR (${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb IS NOT NULL
              AND ssh IS DISTINCT FROM ${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb))`);
      return result.rowCount > 0;
    },

    /**
     * First time running: metering starts when the provider says the instance started (where its API says so
     * and the time is plausible: not more than 1 s before the row was written, not after we saw it), else at
     * `observedAt`; a provider that reports no start and bills from the create (Lambda) is metered from when it
     * accepted the create. Moments to the millisecond. `instance.started` is written by the same statement (the row
     * `insertEvent` would write, its `started_at` formatted as the API shows it).
     */
    async markRunning(id: string, observedAt: Date, i: ProviderInstance): Promise<InstanceRow> {
      const reportedMs = i.startedAt === null ? NaN : Date.parse(i.startedAt);
      const seen = sql.fragment`${observedAt.toISOString()}::timestamptz`;
      const billed =
        i.startedAt !== null
          ? sql.fragment`${Number.isFinite(reportedMs) ? new Date(reportedMs).toISOString() : null}::timestamptz`
          : sql.fragment`CASE WHEN provider = ANY(${sql.array([...BILLS_FROM_CREATE], 'text')})
              THEN date_trunc('milliseconds', accepted_at) END`;
      const at = sql.fragment`(SELECT CASE
          WHEN b <= ${seen} AND b >= date_trunc('milliseconds', created_at) - interval '1 second'
          THEN b ELSE ${seen} END
        FROM (SELECT ${billed} AS b) billed)`;
      return pool.one(sql.type(InstanceRow)`
        WITH started AS (
          UPDATE instances SET status = 'running', provider_status = ${i.providerStatus},
            public_ip = coalesce(${i.publicIp}, public_ip),
            ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh),
            started_at = coalesce(started_at, ${at}), metered_through = coalesce(metered_through, ${at}),
            updated_at = now()
          WHERE id = ${id} RETURNING ${COLUMNS}
        ), written AS (
          INSERT INTO events (id, account_id, type, data, dedupe_key)
          SELECT ${newId('evt')}, account_id, ${'instance.started' satisfies EventType},
            jsonb_build_object('instance_id', provider_instance_id, 'provider', provider, 'gpu_type', gpu_type,
              'started_at', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
            ${`instance.started:${id}`} FROM started
          ON CONFLICT (account_id, dedupe_key) DO NOTHING
        )
        SELECT * FROM started`);
    },

    /**
     * Moves to a final or paused state with its event (or events: an idle stop is `instance.idle_stopped` and
     * `instance.stopped`/`terminated`), in one transaction. `extra.reason` is kept as `end_reason`.
     */
    async markEnded(
      id: string,
      status: Extract<InstanceStatus, 'stopped' | 'terminated' | 'failed'>,
      event: EventType | readonly EventType[] | null,
      at: Date,
      extra: Record<string, unknown> = {},
    ): Promise<InstanceRow> {
      const reason = typeof extra.reason === 'string' ? extra.reason : null;
      return pool.transaction(async (tx) => {
        const row = await tx.one(sql.type(InstanceRow)`
          UPDATE instances SET status = ${status}, lifecycle_warning = NULL, start_reserved_until = NULL,
            key_warning = CASE WHEN ${status} = 'stopped' THEN key_warning ELSE NULL END,
            end_reason = coalesce(${reason}, CASE WHEN ${status} = 'stopped' THEN NULL ELSE end_reason END),
            provider_status = CASE WHEN ${status} = 'stopped' THEN provider_status ELSE NULL END,
            ended_at = CASE WHEN ${status} = 'stopped' THEN ended_at ELSE coalesce(ended_at, ${at.toISOString()}) END,
            updated_at = now()
          WHERE id = ${id} RETURNING ${COLUMNS}`);
        const events = event === null ? [] : typeof event === 'string' ? [event] : event;
        // What the instance cost in all (its charges are posted before it ends) and how long since it first ran.
        const costMicros = events.length
          ? await tx.oneFirst(sql.type(z.object({ posted: z.number() }))`
              SELECT coalesce(-sum(amount_micros), 0)::int8 AS posted FROM ledger_entries
              WHERE account_id = ${row.account_id} AND instance_id = ${row.provider_instance_id ?? row.id}`)
          : 0;
        const ranMs = row.started_at ? Math.max(0, at.getTime() - Date.parse(row.started_at)) : 0;
        for (const type of events) {
          await insertEvent(tx, {
            accountId: row.account_id,
            type,
            data: {
              instance_id: row.provider_instance_id,
              provider: row.provider,
              gpu_type: row.gpu_type,
              at: at.toISOString(),
              cost: microsToDollars(costMicros),
              duration_seconds: Math.round(ranMs / 1000),
              ...extra,
            },
            dedupeKey: `${type}:${id}:${status === 'stopped' ? at.getTime() : 'final'}`,
          });
        }
        return row;
      });
    },

    /**
     * A job attempt's instance never seen running whose command reported its exit: the report proves it ran, so
     * metering starts when the provider acknowledged the create (`accepted_at`: the earliest moment the service
     * knows the provider held it, never a time the instance itself reported). The attempt's `started_at` and
     * `instance.started` go with it. Null when there is no report, the instance was seen running already, or it
     * has no acknowledged create; a second call changes nothing.
     */
    async markRanFromAcceptance(id: string): Promise<InstanceRow | null> {
      const at = sql.fragment`date_trunc('milliseconds', accepted_at)`;
      return pool.maybeOne(sql.type(InstanceRow)`
        WITH started AS (
          UPDATE instances SET status = 'running', started_at = ${at},
            metered_through = coalesce(metered_through, ${at}), updated_at = now()
          WHERE id = ${id} AND started_at IS NULL AND accepted_at IS NOT NULL
            AND status NOT IN ('stopped', 'terminated', 'failed')
            AND EXISTS (SELECT 1 FROM job_attempts a WHERE a.instance_row_id = instances.id
              AND a.account_id = instances.account_id AND a.reported_at IS NOT NULL)
          RETURNING ${COLUMNS}
        ), attempt AS (
          UPDATE job_attempts a SET started_at = coalesce(a.started_at, started.started_at)
          FROM started WHERE a.instance_row_id = started.id AND a.account_id = started.account_id
        ), written AS (
          INSERT INTO events (id, account_id, type, data, dedupe_key)
          SELECT ${newId('evt')}, account_id, ${'instance.started' satisfies EventType},
            jsonb_build_object('instance_id', provider_instance_id, 'provider', provider, 'gpu_type', gpu_type,
              'started_at', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
            ${`instance.started:${id}`} FROM started
          ON CONFLICT (account_id, dedupe_key) DO NOTHING
        )
        SELECT * FROM started`);
    },

    /** A stopped instance seen running again (started at the provider): metering resumes from `at`. */
    async markResumed(id: string, at: Date, i: ProviderInstance): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        UPDATE instances SET status = 'running', provider_status = ${i.providerStatus}, ended_at = NULL,
          end_reason = NULL, metered_through = ${at.toISOString()}, start_reserved_until = NULL,
          public_ip = coalesce(${i.publicIp}, public_ip),
          ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh), updated_at = now()
        WHERE id = ${id} AND status = 'stopped' RETURNING ${COLUMNS}`);
    },

    /** Ends a launch that failed; a no-op when its intent was never written. */
    async markLaunchFailed(id: string, reason: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE instances SET status = 'failed', end_reason = ${reason.slice(0, 500)},
          ended_at = coalesce(ended_at, now()), updated_at = now()
        WHERE id = ${id} AND status <> 'terminated'`);
    },

    /** Says why a stop or terminate has not happened yet (null clears it). */
    async setLifecycleWarning(id: string, warning: string | null): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET lifecycle_warning = ${warning}, updated_at = now() WHERE id = ${id} RETURNING ${COLUMNS}`);
    },

    async markStatus(id: string, status: InstanceStatus): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET status = CASE WHEN status = 'terminated' THEN status ELSE ${status} END, updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },
  };
}

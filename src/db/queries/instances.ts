import type { LaunchIntent } from './admission';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { chargeForElapsed, microsToDollars } from '../../domain/money';
import {
  INSTANCE_STATUSES,
  type InstanceStatus,
  type ProviderId,
  type ProviderInstance,
  PROVIDERS,
} from '../../providers/types';
import { LIVE_INSTANCE_STATUSES, limitReachedMessage } from '../../domain/limits';
import { BILLS_FROM_CREATE } from '../../domain/providers';
import { newId } from '../../domain/ids';
import { LimitReachedError } from '../../errors';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent, type EventType } from './events';
import { createLedgerQueries, type LedgerEntry, LedgerEntryRow } from './ledger';
import type { Page, PageRequest } from './paging';

export const InstanceRow = z.object({
  id: z.string(),
  account_id: z.string(),
  request_hash: z.string(),
  provider: z.enum(PROVIDERS),
  provider_instance_id: z.string().nullable(),
  /** The name at the provider, carrying the launch tag; written before the create. */
  provider_name: z.string().nullable(),
  name: z.string(),
  status: z.enum(INSTANCE_STATUSES),
  provider_status: z.string().nullable(),
  gpu_type: z.string(),
  gpu_count: z.number(),
  price_per_hour_micros: z.number().nullable(),
  spot: z.boolean(),
  region: z.string().nullable(),
  docker_image: z.string().nullable(),
  public_ip: z.string().nullable(),
  ssh: z.object({ host: z.string(), port: z.number(), user: z.string() }).nullable(),
  warnings: z.array(z.string()),
  started_at: z.string().nullable(),
  metered_through: z.string().nullable(),
  ended_at: z.string().nullable(),
  end_reason: z.string().nullable(),
  lifecycle_warning: z.string().nullable(),
  created_at: z.string(),
  /** Fingerprint of the provider key that created (or has since seen) the instance; null on older rows. */
  provider_key_fingerprint: z.string().nullable(),
  /** Why the connected key cannot manage the instance (it is not the key that created it); shown in `warnings`. */
  key_warning: z.string().nullable(),
  /** When the provider accepted the create. */
  accepted_at: z.string().nullable(),
  /** The launch's idle-stop rule (src/domain/idle-stop.ts); null: never stopped for idling. */
  idle_stop: z.object({ utilization_below_percent: z.number(), for_minutes: z.number() }).nullable(),
});
export type InstanceRow = z.infer<typeof InstanceRow>;

/** An ended instance with what the ledger charged it in all (micro-dollars, positive). */
export const EndedInstanceRow = InstanceRow.extend({ posted_micros: z.number() });
export type EndedInstanceRow = z.infer<typeof EndedInstanceRow>;

/** Cursor of the ended list: (created_at, row id) of the last instance of a page; row ids carry the launch key. */
export function encodeEndedCursor(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`).toString('base64url');
}
export function decodeEndedCursor(cursor: string): { createdAt: string; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(\S{1,250})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  if (!m || Number.isNaN(Date.parse(m[1]!)) || encodeEndedCursor(m[1]!, m[2]!) !== cursor) return null;
  return { createdAt: m[1]!, id: m[2]! };
}

/** The ledger side of one instance: see `findCosts`. */
export interface InstanceCosts {
  posted_micros: number;
  charge_count: number;
  meter_price_micros: number | null;
  charges: readonly LedgerEntry[];
}

const COLUMNS = sql.fragment`id, account_id, request_hash, provider, provider_instance_id, provider_name, name, status, provider_status,
  gpu_type, gpu_count, price_per_hour_micros, spot, region, docker_image, public_ip, ssh, warnings, started_at, metered_through,
  ended_at, end_reason, lifecycle_warning, created_at, provider_key_fingerprint, key_warning, accepted_at, idle_stop`;

/** Statuses after which nothing runs at the provider on our behalf. */
export const ENDED_STATUSES = ['terminated', 'failed'] as const;

const micros = (dollars: number | null) => (dollars === null ? null : Math.round(dollars * 1_000_000));

/** The launch's intent: what the request asked for (the same record admission reserves). */
type IntentInput = LaunchIntent;

/**
 * What a failed earlier run of the same launch leaves behind and a restart must not inherit (its instance, if
 * any, was terminated): its old provider id above all, or the new run would be told that instance is gone.
 */
const RESET_ON_RESTART = [
  'provider_instance_id',
  'provider_status',
  'public_ip',
  'ssh',
  'ended_at',
  'end_reason',
  'lifecycle_warning',
  'price_per_hour_micros',
  'started_at',
  'metered_through',
  'provider_key_fingerprint',
  'key_warning',
  'accepted_at',
] as const;
const resetWhenFailed = sql.join(
  RESET_ON_RESTART.map(
    (c) =>
      sql.fragment`${sql.identifier([c])} = CASE WHEN instances.status = 'failed' THEN NULL ELSE ${sql.identifier(['instances', c])} END`,
  ),
  sql.fragment`, `,
);

function upsertIntent(conn: CommonQueryMethods, input: IntentInput): Promise<InstanceRow> {
  return conn.one(sql.type(InstanceRow)`
    INSERT INTO instances (id, account_id, request_hash, provider, provider_name, name, status, gpu_type, gpu_count, spot,
      region, docker_image, warnings, api_key_id, idle_stop)
    VALUES (${input.id}, ${input.accountId}, ${input.requestHash}, ${input.provider}, ${input.providerName}, ${input.name},
      'provisioning', ${input.gpuType}, ${input.gpuCount}, ${input.spot}, ${input.region}, ${input.dockerImage},
      ${sql.jsonb(input.warnings)}, ${input.apiKeyId ?? null}, ${input.idleStop ? sql.jsonb({ ...input.idleStop }) : null})
    ON CONFLICT (id) DO UPDATE SET
      -- A failed earlier run left nothing running: start over clean (RESET_ON_RESTART).
      status = CASE WHEN instances.status = 'failed' THEN 'provisioning' ELSE instances.status END,
      ${resetWhenFailed},
      -- Admission's reservation (admit_launch) does not know the rule: until the provider create, the intent's is it.
      idle_stop = CASE WHEN instances.status = 'failed' OR instances.provider_instance_id IS NULL THEN excluded.idle_stop ELSE instances.idle_stop END,
      updated_at = now()
    RETURNING ${COLUMNS}`);
}

export function createInstanceQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);
  return {
    /**
     * The launch's intent, written before the provider is asked to create anything: the row, in
     * `provisioning`, with the name the instance will carry at the provider. A retried launch of the same id
     * finds its row; one whose earlier run failed (nothing of it left running) starts over as `provisioning`.
     * With `maxLive`, a new (or restarted) launch first takes the account row's lock and counts the account's
     * live instances: at `maxLive` it throws {@link LimitReachedError} and writes nothing; two concurrent
     * launches at `maxLive − 1` serialize on the lock, so only one passes.
     */
    async insertIntent(input: IntentInput & { maxLive?: number }): Promise<InstanceRow> {
      const { maxLive } = input;
      if (maxLive === undefined) return upsertIntent(pool, input);
      // Admission (API launches and scheduled runs) has normally written the row already: then this is what the
      // upsert would do to a live row (touch it), in one statement, without the account's lock and count.
      // Admission's reservation does not know the idle-stop rule: until the provider create, the intent's is it.
      const admitted = await pool.maybeOne(sql.type(InstanceRow)`
        UPDATE instances SET updated_at = now(),
          idle_stop = CASE WHEN provider_instance_id IS NULL THEN ${input.idleStop ? sql.jsonb({ ...input.idleStop }) : null}::jsonb ELSE idle_stop END
        WHERE id = ${input.id} AND status <> 'failed' RETURNING ${COLUMNS}`);
      if (admitted) return admitted;
      return pool.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${input.accountId} FOR NO KEY UPDATE`);
        const { live, replay } = await tx.one(sql.type(z.object({ live: z.number(), replay: z.boolean() }))`
          SELECT
            (SELECT count(*) FROM instances WHERE account_id = ${input.accountId} AND id <> ${input.id}
               AND status = ANY(${sql.array([...LIVE_INSTANCE_STATUSES], 'text')}))::int4 AS live,
            EXISTS (SELECT 1 FROM instances WHERE id = ${input.id} AND status <> 'failed') AS replay`);
        // A replay of a launch that already holds its place is never refused.
        if (!replay && live >= maxLive)
          throw new LimitReachedError('live_instances', maxLive, limitReachedMessage('live_instances', maxLive));
        return upsertIntent(tx, input);
      });
    },

    /**
     * Counts an ask to create, committed before the ask is sent: 1 means no earlier ask can have created
     * anything, so the create needs no look for an earlier instance first.
     */
    async countCreateAttempt(id: string): Promise<number> {
      return pool.oneFirst(sql.type(z.object({ create_attempts: z.number() }))`
        UPDATE instances SET create_attempts = create_attempts + 1 WHERE id = ${id} RETURNING create_attempts`);
    },

    /** Asks to create counted for this row (null: no row): unlike the engine's attempt number, it survives workers. */
    async countedCreateAttempts(id: string): Promise<number | null> {
      return pool.maybeOneFirst(
        sql.type(z.object({ create_attempts: z.number() }))`SELECT create_attempts FROM instances WHERE id = ${id}`,
      );
    },
    /**
     * The connected key saw these instances at the provider (same provider account): its "not found" counts
     * from now on, and any key warning is cleared. Writes only rows that differ.
     */
    async bindCreatingKey(ids: readonly string[], keyFingerprint: string): Promise<void> {
      if (!ids.length) return;
      await pool.query(sql.typeAlias('void')`
        UPDATE instances SET provider_key_fingerprint = ${keyFingerprint}, key_warning = NULL, updated_at = now()
        WHERE id = ANY(${sql.array([...ids], 'text')})
          AND (provider_key_fingerprint IS DISTINCT FROM ${keyFingerprint} OR key_warning IS NOT NULL)`);
    },

    /** Says (once) that the connected key is not the one that created the instance; see `keyMismatchWarning`. */
    async setKeyWarning(id: string, warning: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE instances SET key_warning = ${warning}, updated_at = now() WHERE id = ${id} AND key_warning IS DISTINCT FROM ${warning}`);
    },

    /**
     * Records what the provider created for the launch. The price is fixed here, from the provider's own quote
     * at create, and meters the instance for its whole life; `keyFingerprint` names the key that created it.
     */
    async recordCreated(id: string, i: ProviderInstance, keyFingerprint?: string): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET provider_instance_id = ${i.id}, status = ${i.status}, provider_status = ${i.providerStatus},
          price_per_hour_micros = coalesce(price_per_hour_micros, ${micros(i.pricePerHour)}),
          accepted_at = coalesce(accepted_at, now()),
          provider_key_fingerprint = coalesce(${keyFingerprint ?? null}, provider_key_fingerprint),
          region = coalesce(${i.region}, region), docker_image = coalesce(docker_image, ${i.dockerImage}),
          public_ip = ${i.publicIp}, ssh = ${i.ssh ? sql.jsonb(i.ssh) : null}, updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },

    /** Adopts an instance found at the provider with no live workflow: metered from `at`, warned about. */
    async upsertAdopted(input: {
      id: string;
      accountId: string;
      instance: ProviderInstance;
      at: Date;
      warning: string;
    }): Promise<InstanceRow> {
      const i = input.instance;
      return pool.one(sql.type(InstanceRow)`
        INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, provider_name, name, status, provider_status,
          gpu_type, gpu_count, price_per_hour_micros, spot, region, docker_image, public_ip, ssh, warnings, started_at, metered_through)
        VALUES (${input.id}, ${input.accountId}, 'adopted', ${i.provider}, ${i.id}, ${i.name ?? i.id}, ${i.name ?? i.id}, ${i.status},
          ${i.providerStatus}, ${i.gpuType ?? 'unknown'}, ${i.gpuCount}, ${micros(i.pricePerHour)}, ${i.spot}, ${i.region},
          ${i.dockerImage}, ${i.publicIp}, ${i.ssh ? sql.jsonb(i.ssh) : null}, ${sql.jsonb([input.warning])},
          ${i.status === 'running' ? input.at.toISOString() : null}, ${i.status === 'running' ? input.at.toISOString() : null})
        ON CONFLICT (id) DO UPDATE SET updated_at = now()
        RETURNING ${COLUMNS}`);
    },

    /** A row that lost its workflow and is managed again from `at`: what ran unwatched is not charged. */
    async resumeManagement(id: string, at: Date, warning: string): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET
          metered_through = CASE WHEN started_at IS NULL THEN NULL ELSE greatest(metered_through, ${at.toISOString()}) END,
          warnings = CASE WHEN warnings @> ${sql.jsonb([warning])} THEN warnings ELSE warnings || ${sql.jsonb([warning])} END,
          updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },

    async findById(id: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`SELECT ${COLUMNS} FROM instances WHERE id = ${id}`);
    },

    async findByProviderId(accountId: string, providerInstanceId: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId} AND provider_instance_id = ${providerInstanceId}
        ORDER BY created_at DESC LIMIT 1`);
    },

    async findByProviderName(accountId: string, provider: string, providerName: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId} AND provider = ${provider} AND provider_name = ${providerName}
        ORDER BY created_at DESC LIMIT 1`);
    },

    /** Rows of an account and provider that may still run at the provider. */
    async listLive(accountId: string, provider: string): Promise<readonly InstanceRow[]> {
      return pool.any(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances
        WHERE account_id = ${accountId} AND provider = ${provider} AND status NOT IN ('terminated', 'failed')
        ORDER BY created_at`);
    },

    /** Accounts and providers with a connected key or a live row: what reconciliation looks at. */
    async listReconciliationTargets(): Promise<readonly { account_id: string; provider: ProviderId }[]> {
      return pool.any(sql.type(z.object({ account_id: z.string(), provider: z.enum(PROVIDERS) }))`
        SELECT account_id, provider FROM provider_keys
        UNION
        SELECT DISTINCT account_id, provider FROM instances WHERE status NOT IN ('terminated', 'failed')
        ORDER BY account_id, provider`);
    },

    async listForAccount(accountId: string): Promise<readonly InstanceRow[]> {
      return pool.any(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId} ORDER BY created_at DESC`);
    },

    /**
     * What the instance record adds to the row (`GET /v1/compute/{id}`): the ledger's charges for the instance
     * (newest first, at most `limit`; `posted_micros` and `charge_count` are over all of them) and the price its
     * metering uses (the provider's, else the admitted quote, as `chargeThrough` does).
     */
    async findCosts(
      accountId: string,
      row: Pick<InstanceRow, 'id' | 'provider_instance_id'>,
      limit: number,
    ): Promise<InstanceCosts> {
      const instanceId = row.provider_instance_id ?? row.id;
      const totals = await pool.one(sql.type(
        z.object({ posted_micros: z.number(), charge_count: z.number(), meter_price_micros: z.number().nullable() }),
      )`
        SELECT coalesce(-sum(l.amount_micros), 0)::int8 AS posted_micros, count(l.id)::int4 AS charge_count,
          (SELECT coalesce(price_per_hour_micros, quote_per_hour_micros) FROM instances WHERE id = ${row.id}) AS meter_price_micros
        FROM ledger_entries l WHERE l.account_id = ${accountId} AND l.instance_id = ${instanceId}`);
      const charges = await pool.any(sql.type(LedgerEntryRow)`
        SELECT id, seq, account_id, type, amount_micros, balance_after_micros, description, instance_id, idempotency_key, created_at
        FROM ledger_entries WHERE account_id = ${accountId} AND instance_id = ${instanceId} ORDER BY seq DESC LIMIT ${limit}`);
      return { ...totals, charges };
    },

    /**
     * The account's ended instances (terminated, or a launch that failed after the provider created it), newest
     * first by when they were requested, each with what the ledger charged it in all.
     */
    async listEnded(accountId: string, options: PageRequest): Promise<Page<EndedInstanceRow>> {
      const after = options.cursor === undefined ? null : decodeEndedCursor(options.cursor);
      if (options.cursor !== undefined && !after) throw new RangeError('malformed ended-list cursor');
      const rows = await pool.any(sql.type(EndedInstanceRow)`
        SELECT ${COLUMNS},
          (SELECT coalesce(-sum(l.amount_micros), 0) FROM ledger_entries l
            WHERE l.account_id = i.account_id AND l.instance_id = i.provider_instance_id)::int8 AS posted_micros
        FROM instances i
        WHERE i.account_id = ${accountId} AND i.status IN ('terminated', 'failed') AND i.provider_instance_id IS NOT NULL
          AND ${after ? sql.fragment`(date_trunc('milliseconds', i.created_at), i.id) < (${after.createdAt}::timestamptz, ${after.id})` : sql.fragment`true`}
        ORDER BY date_trunc('milliseconds', i.created_at) DESC, i.id DESC LIMIT ${options.limit + 1}`);
      const data = rows.slice(0, options.limit);
      const last = data[data.length - 1];
      const hasMore = rows.length > options.limit;
      return {
        data,
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeEndedCursor(last.created_at, last.id) : null,
      };
    },

    /**
     * Latest provider view of an instance (status, address); never ends a row nor moves an ended one back, and never
     * re-prices it: the price fixed at launch meters its whole life (a stopped pod's price of 0 is not its price).
     */
    async refreshFromProvider(id: string, i: ProviderInstance): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET
          -- Ending moves (stopped, terminated, failed) are the workflow's, written with their charge and event.
          status = CASE WHEN status IN ('stopped', 'terminated', 'failed') OR ${i.status} IN ('stopped', 'terminated', 'failed')
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
            OR (${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb IS NOT NULL AND ssh IS DISTINCT FROM ${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb))`);
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
          : sql.fragment`CASE WHEN provider = ANY(${sql.array([...BILLS_FROM_CREATE], 'text')}) THEN date_trunc('milliseconds', accepted_at) END`;
      const at = sql.fragment`(SELECT CASE WHEN b <= ${seen} AND b >= date_trunc('milliseconds', created_at) - interval '1 second' THEN b ELSE ${seen} END
        FROM (SELECT ${billed} AS b) billed)`;
      return pool.one(sql.type(InstanceRow)`
        WITH started AS (
          UPDATE instances SET status = 'running', provider_status = ${i.providerStatus},
            public_ip = coalesce(${i.publicIp}, public_ip), ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh),
            started_at = coalesce(started_at, ${at}), metered_through = coalesce(metered_through, ${at}), updated_at = now()
          WHERE id = ${id} RETURNING ${COLUMNS}
        ), written AS (
          INSERT INTO events (id, account_id, type, data, dedupe_key)
          SELECT ${newId('evt')}, account_id, ${'instance.started' satisfies EventType}, jsonb_build_object('instance_id', provider_instance_id,
            'provider', provider, 'gpu_type', gpu_type, 'started_at', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
            ${`instance.started:${id}`} FROM started
          ON CONFLICT (account_id, dedupe_key) DO NOTHING
        )
        SELECT * FROM started`);
    },

    /**
     * Charges elapsed time up to `through`, exactly once: the charge for [metered_through, through) is computed
     * from the run's start (so rounding never accumulates), posted with an idempotency key naming the interval,
     * and `metered_through` moves in the same transaction. A call for an interval already charged is a no-op.
     */
    async chargeThrough(id: string, through: Date): Promise<{ chargedMicros: number; row: InstanceRow }> {
      return pool.transaction(async (tx) => {
        const row = await tx.one(sql.type(InstanceRow)`SELECT ${COLUMNS} FROM instances WHERE id = ${id} FOR UPDATE`);
        // Never $0 for want of a price: the launch's admitted quote stands in when the provider gave none.
        const quote = await tx.oneFirst(sql.type(z.object({ quote_per_hour_micros: z.number().nullable() }))`
          SELECT quote_per_hour_micros FROM instances WHERE id = ${id}`);
        const price = row.price_per_hour_micros ?? quote;
        const priceSource =
          row.price_per_hour_micros !== null ? "the provider's price" : 'the launch quote (the provider gave no price)';
        if (!row.started_at || !row.metered_through || price === null) return { chargedMicros: 0, row };
        const start = Date.parse(row.started_at);
        const from = Date.parse(row.metered_through);
        const to = through.getTime();
        if (to <= from) return { chargedMicros: 0, row };
        const amount = chargeForElapsed(price, to - start) - chargeForElapsed(price, from - start);
        // An interval too short to cost a micro-dollar posts no $0 charge; the next one is still computed from
        // the start, so nothing is lost to rounding.
        if (amount > 0)
          await ledger.postEntry(
            {
              accountId: row.account_id,
              type: 'instance_charge',
              amountMicros: -amount,
              description:
                `${row.gpu_count}× ${row.gpu_type} on ${row.provider}, ${new Date(from).toISOString()} – ${through.toISOString()}, ` +
                `at $${(price / 1_000_000).toFixed(6).replace(/0{1,4}$/, '')}/h (${priceSource})`,
              instanceId: row.provider_instance_id ?? row.id,
              idempotencyKey: `charge:${id}:${to}`,
            },
            tx,
          );
        const updated = await tx.one(sql.type(InstanceRow)`
          UPDATE instances SET metered_through = ${through.toISOString()}, updated_at = now() WHERE id = ${id} RETURNING ${COLUMNS}`);
        return { chargedMicros: amount, row: updated };
      });
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
          UPDATE instances SET status = ${status}, lifecycle_warning = NULL,
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

    /** A stopped instance seen running again (started at the provider): metering resumes from `at`. */
    async markResumed(id: string, at: Date, i: ProviderInstance): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        UPDATE instances SET status = 'running', provider_status = ${i.providerStatus}, ended_at = NULL, end_reason = NULL,
          metered_through = ${at.toISOString()}, public_ip = coalesce(${i.publicIp}, public_ip),
          ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh), updated_at = now()
        WHERE id = ${id} AND status = 'stopped' RETURNING ${COLUMNS}`);
    },

    /** Ends a launch that failed; a no-op when its intent was never written. */
    async markLaunchFailed(id: string, reason: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE instances SET status = 'failed', end_reason = ${reason.slice(0, 500)}, ended_at = coalesce(ended_at, now()), updated_at = now()
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
export type InstanceQueries = ReturnType<typeof createInstanceQueries>;

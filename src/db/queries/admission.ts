/**
 * Spend admission: the one place that decides whether an account may start another instance (API launches,
 * scheduled runs, plans and spend-capped keys call it). The decision and the launch's own reservation (its
 * instance row, with the price it was admitted at) happen in one transaction holding the account's balance row
 * lock, the same lock every ledger entry takes: two launches of one account cannot both pass on the same money,
 * and a charge cannot move the balance between the reading and the reservation.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { IdleStopRule } from '../../domain/idle-stop';
import { decideAdmission, type AdmissionFigures, type SpendFigures } from '../../domain/admission';
import { LIVE_INSTANCE_STATUSES, limitReachedMessage } from '../../domain/limits';
import type { ProviderId } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';

/** Statuses in which an instance costs money by the hour (a stopped pod is charged nothing). */
export const BURNING_STATUSES = LIVE_INSTANCE_STATUSES;

/** How long an Idempotency-Key stays bound to the body it was first sent with. */
export const IDEMPOTENCY_BINDING_MS = 24 * 3_600_000;

/** The instance row a launch reserves when admitted: what the request asked for. */
export interface LaunchIntent {
  /** Instance row id = launch workflow id (`launch-<account>-<key>`). */
  id: string;
  accountId: string;
  /** SHA-256 of the request body: the Idempotency-Key is bound to it. */
  requestHash: string;
  provider: ProviderId;
  providerName: string;
  name: string;
  gpuType: string;
  gpuCount: number;
  spot: boolean;
  region: string | null;
  dockerImage: string | null;
  warnings: string[];
  /** The API key that launched it (its spend counts toward the key's cap); null for scheduled runs. */
  apiKeyId?: string | null;
  /** The idle-stop rule the launch asked for (src/domain/idle-stop.ts); absent or null: none. */
  idleStop?: IdleStopRule | null;
}

export interface AdmissionRequest {
  intent: LaunchIntent;
  /** The whole instance's hourly price (per-GPU price × count) in micros; null when nobody quotes one. */
  quotePerHourMicros: number | null;
  /** The admission window (BALANCE_ADMISSION_WINDOW; 1 h). */
  windowMs: number;
  /** False: decide only (a plan), write nothing. Default true: write the reservation when admitted. */
  reserve?: boolean;
  /**
   * The account's live-instance limit (LIMIT_LIVE_INSTANCES): counted under the same lock, so two launches at
   * the limit minus one cannot both pass. Unset: no limit.
   */
  maxLive?: number;
}

/**
 * - `admitted`: the reservation row is written (or, with `reserve: false`, would be);
 * - `replay`: the key's launch exists with this body and did not fail: never refused, nothing checked;
 * - `refused`: the balance cannot cover it; `message` names the numbers (402 insufficient_balance);
 * - `conflict`: the key was first used with another body within 24 h (409).
 */
export type AdmissionDecision =
  | { outcome: 'admitted' | 'refused'; figures: AdmissionFigures; message?: string }
  | { outcome: 'replay' | 'conflict'; figures?: undefined; message?: string }
  | { outcome: 'limited'; figures?: undefined; message: string; max: number };

const Figures = z.object({ burn: z.number(), uncharged: z.number(), live: z.number(), now_ms: z.number() });

/**
 * Burn rate and uncharged usage of an account's live instances, as one row. Uncharged usage is computed as the
 * charge itself computes it (whole milliseconds, from the run's start, rounded half up), so it is what the
 * next charges will post. One aggregate: cheap for any fleet size.
 */
const liveFigures = (accountId: string) => sql.fragment`
  SELECT coalesce(sum(p), 0)::bigint AS burn,
    coalesce(sum(CASE WHEN s IS NULL OR m IS NULL OR n <= m THEN 0
                      ELSE floor(p * (n - s) / 3600000 + 0.5) - floor(p * greatest(m - s, 0) / 3600000 + 0.5) END), 0)::bigint AS uncharged,
    count(*)::int4 AS live,
    trunc(extract(epoch FROM now()) * 1000)::float8 AS now_ms
  FROM (
    SELECT coalesce(price_per_hour_micros, quote_per_hour_micros, 0)::numeric AS p,
      trunc(extract(epoch FROM started_at) * 1000) AS s, trunc(extract(epoch FROM metered_through) * 1000) AS m,
      trunc(extract(epoch FROM now()) * 1000) AS n
    FROM instances WHERE account_id = ${accountId} AND status = ANY(${sql.array([...BURNING_STATUSES], 'text')})) live`;

/** Balance, uncharged usage and burn rate of an account, read on `conn`. */
export async function readSpendFigures(conn: CommonQueryMethods, accountId: string): Promise<SpendFigures & { nowMs: number }> {
  const balance = await conn.maybeOneFirst(sql.type(z.object({ balance_micros: z.number() }))`
    SELECT balance_micros FROM account_balances WHERE account_id = ${accountId}`);
  const f = await conn.one(sql.type(Figures)`${liveFigures(accountId)}`);
  return { balanceMicros: balance ?? 0, unchargedMicros: f.uncharged, burnPerHourMicros: f.burn, nowMs: f.now_ms };
}

const Check = Figures.extend({
  bound_hash: z.string().nullable(),
  existing_hash: z.string().nullable(),
  existing_status: z.string().nullable(),
  existing_age_ms: z.number().nullable(),
});

/**
 * Decides a launch and, when admitted, writes its reservation: the instance row in `provisioning` with the
 * quoted price (a failed earlier launch of the same key starts over as the new request describes it).
 * Three statements under the lock (lock and balance; key, existing row and fleet; reservation), since
 * every admission of an account waits for the one before it (bench:spend).
 */
export async function admitLaunch(pool: Pool, request: AdmissionRequest): Promise<AdmissionDecision> {
  const { intent } = request;
  const reserving = request.reserve !== false;
  return pool.transaction(async (tx) => {
    const lockBalance = () =>
      tx.maybeOneFirst(sql.type(z.object({ balance_micros: z.number() }))`
        SELECT balance_micros FROM account_balances WHERE account_id = ${intent.accountId} FOR UPDATE`);
    let balance = await lockBalance();
    if (balance === null) {
      await tx.query(sql.typeAlias('void')`
        INSERT INTO account_balances (account_id) VALUES (${intent.accountId}) ON CONFLICT (account_id) DO NOTHING`);
      balance = (await lockBalance()) ?? 0;
    }
    const c = await tx.one(sql.type(Check)`
      WITH ${reserving ? sql.fragment`bound AS (${bindKey(intent)}),` : sql.fragment``}
        existing AS (
          SELECT request_hash, status, (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms
          FROM instances WHERE id = ${intent.id} AND account_id = ${intent.accountId}),
        figures AS (${liveFigures(intent.accountId)})
      SELECT ${reserving ? sql.fragment`(SELECT request_hash FROM bound)` : sql.fragment`NULL::text`} AS bound_hash,
        (SELECT request_hash FROM existing) AS existing_hash, (SELECT status FROM existing) AS existing_status,
        (SELECT age_ms FROM existing) AS existing_age_ms, figures.*
      FROM figures`);
    if (reserving && c.bound_hash !== intent.requestHash) {
      return { outcome: 'conflict', message: 'This Idempotency-Key was used with a different request body in the last 24 hours.' };
    }
    if (c.existing_hash !== null) {
      const failed = c.existing_status === 'failed';
      if (c.existing_hash !== intent.requestHash && (!failed || c.existing_age_ms! < IDEMPOTENCY_BINDING_MS)) {
        return { outcome: 'conflict', message: 'This Idempotency-Key was used with a different request body.' };
      }
      if (c.existing_hash === intent.requestHash && !failed) return { outcome: 'replay' };
    }
    // The row of this key, if any, is absent or failed here: `live` counts the account's other live instances.
    if (request.maxLive !== undefined && c.live >= request.maxLive) {
      return { outcome: 'limited', max: request.maxLive, message: limitReachedMessage('live_instances', request.maxLive) };
    }
    const spend: SpendFigures = { balanceMicros: balance, unchargedMicros: c.uncharged, burnPerHourMicros: c.burn };
    const verdict = decideAdmission(spend, request.quotePerHourMicros, request.windowMs);
    if (!verdict.admitted) return { outcome: 'refused', figures: verdict.figures, message: verdict.message };
    if (reserving) await reserve(tx, intent, request.quotePerHourMicros);
    return { outcome: 'admitted', figures: verdict.figures };
  });
}

/**
 * Binds the key (the launch's row id) to this body unless it is bound to another one since less than 24 h;
 * returns the body hash the key is bound to. Committed with the decision, refused or not.
 */
const bindKey = (i: LaunchIntent) => sql.fragment`
  INSERT INTO launch_keys (id, account_id, request_hash) VALUES (${i.id}, ${i.accountId}, ${i.requestHash})
  ON CONFLICT (id) DO UPDATE SET
    request_hash = CASE WHEN launch_keys.created_at < now() - ${IDEMPOTENCY_BINDING_MS / 1000} * interval '1 second'
                        THEN excluded.request_hash ELSE launch_keys.request_hash END,
    created_at = CASE WHEN launch_keys.created_at < now() - ${IDEMPOTENCY_BINDING_MS / 1000} * interval '1 second'
                      THEN now() ELSE launch_keys.created_at END
  RETURNING request_hash`;

/** The reservation: the intent row with its quote. A failed row of the same key is rewritten from scratch. */
async function reserve(tx: CommonQueryMethods, i: LaunchIntent, quote: number | null): Promise<void> {
  await tx.query(sql.typeAlias('void')`
    INSERT INTO instances (id, account_id, request_hash, provider, provider_name, name, status, gpu_type, gpu_count, spot,
      region, docker_image, warnings, quote_per_hour_micros, api_key_id, idle_stop)
    VALUES (${i.id}, ${i.accountId}, ${i.requestHash}, ${i.provider}, ${i.providerName}, ${i.name}, 'provisioning', ${i.gpuType},
      ${i.gpuCount}, ${i.spot}, ${i.region}, ${i.dockerImage}, ${sql.jsonb(i.warnings)}, ${quote}, ${i.apiKeyId ?? null},
      ${i.idleStop ? sql.jsonb({ ...i.idleStop }) : null})
    ON CONFLICT (id) DO UPDATE SET
      request_hash = excluded.request_hash, provider = excluded.provider, provider_name = excluded.provider_name,
      name = excluded.name, status = 'provisioning', gpu_type = excluded.gpu_type, gpu_count = excluded.gpu_count,
      spot = excluded.spot, region = excluded.region, docker_image = excluded.docker_image, warnings = excluded.warnings,
      quote_per_hour_micros = excluded.quote_per_hour_micros, api_key_id = excluded.api_key_id, idle_stop = excluded.idle_stop, provider_instance_id = NULL, provider_status = NULL,
      public_ip = NULL, ssh = NULL, ended_at = NULL, end_reason = NULL, lifecycle_warning = NULL,
      price_per_hour_micros = NULL, started_at = NULL, metered_through = NULL,
      created_at = now(), updated_at = now()
    WHERE instances.status = 'failed'`);
}

/**
 * Gives a reservation back when its launch was refused before its workflow could say so (the engine refused
 * the start, or an earlier run of the same key answered): only a row that never reached a provider.
 */
export async function releaseReservation(pool: Pool, id: string, reason: string): Promise<void> {
  await pool.query(sql.typeAlias('void')`
    UPDATE instances SET status = 'failed', end_reason = ${reason.slice(0, 500)}, ended_at = coalesce(ended_at, now()), updated_at = now()
    WHERE id = ${id} AND status = 'provisioning' AND provider_instance_id IS NULL`);
}

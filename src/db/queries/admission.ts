/**
 * Spend admission: the one place that decides whether an account may start another instance (API launches,
 * scheduled runs, plans and spend-capped keys call it). The decision (the balance rule, the live-instance limit,
 * the launching key's spend cap) and the launch's own reservation (its instance row, with the price it was
 * admitted at and its key) happen in one statement holding the account's balance row lock, the same lock every
 * ledger entry takes: two launches of one account (or of one key) cannot both pass on the same money, and a
 * charge cannot move the balance between the reading and the reservation.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { IdleStopRule } from '../../domain/idle-stop';
import { decideAdmission, type AdmissionFigures, type SpendFigures } from '../../domain/admission';
import { keyCapMessage, unusableKeyMessage, type KeyCapStanding } from '../../domain/key-cap';
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
  /**
   * The API key that launched it (a scheduled run: the key that created its schedule): admission checks the
   * key's spend cap under the account's lock, and the instance's spend counts toward it. Null: the balance only.
   */
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
 * - `conflict`: the key was first used with another body within 24 h (409);
 * - `limited`: the account is at its live-instance limit (422 limit_reached);
 * - `key_refused`: the launching API key's spend cap cannot take it (`keyCap` set: 402 naming the cap), or the
 *   key was revoked or expired since (a schedule's key): `message` says which.
 */
export type AdmissionDecision =
  | { outcome: 'admitted' | 'refused'; figures: AdmissionFigures; message?: string }
  | { outcome: 'replay' | 'conflict'; figures?: undefined; message?: string }
  | { outcome: 'limited'; figures?: undefined; message: string; max: number }
  | { outcome: 'key_refused'; figures?: undefined; message: string; keyCap?: KeyCapStanding };

const Figures = z.object({ burn: z.number(), uncharged: z.number(), live: z.number(), now_ms: z.number() });

/**
 * The storage stopped instances keep (a RunPod pod's volume, migration 032): its hourly price and what has
 * accrued since its last storage charge, as the storage charge computes it (src/db/queries/storage-charges.ts).
 */
const storedFigures = (accountId: string) => sql.fragment`(
  SELECT coalesce(sum(storage_per_hour_micros), 0)::numeric AS burn,
    coalesce(sum(round(storage_per_hour_micros::numeric
      * greatest(extract(epoch FROM now() - greatest(storage_charged_through, metered_through)) * 1000, 0)
      / 3600000)), 0) AS uncharged
  FROM instances WHERE account_id = ${accountId} AND status = 'stopped' AND storage_per_hour_micros > 0
    AND (start_reserved_until IS NULL OR start_reserved_until <= now()))`;

/**
 * Burn rate and uncharged usage of an account's live instances and stopped instances' storage, as one row.
 * Uncharged usage is computed as the charge itself computes it (whole milliseconds, from the run's start,
 * rounded half up), so it is what the next charges will post. One aggregate: cheap for any fleet size.
 */
const liveFigures = (accountId: string) => sql.fragment`
  WITH stored AS ${storedFigures(accountId)}
  SELECT (coalesce(sum(p), 0) + (SELECT burn FROM stored))::bigint AS burn,
    (coalesce(sum(CASE WHEN s IS NULL OR m IS NULL OR n <= m THEN 0
                      ELSE floor(p * (n - s) / 3600000 + 0.5) - floor(p * greatest(m - s, 0) / 3600000 + 0.5) END), 0)
      + (SELECT uncharged FROM stored))::bigint AS uncharged,
    count(*)::int4 AS live,
    trunc(extract(epoch FROM now()) * 1000)::float8 AS now_ms
  FROM (
    SELECT coalesce(price_per_hour_micros, quote_per_hour_micros, 0)::numeric AS p,
      CASE WHEN status = 'stopped' THEN NULL ELSE trunc(extract(epoch FROM started_at) * 1000) END AS s,
      trunc(extract(epoch FROM metered_through) * 1000) AS m,
      trunc(extract(epoch FROM now()) * 1000) AS n
    FROM instances WHERE account_id = ${accountId} AND (status = ANY(${sql.array([...BURNING_STATUSES], 'text')})
      OR (status = 'stopped' AND start_reserved_until > now()))) live`;

/**
 * Every burning instance's uncharged usage (`account_id`, `api_key_id`, `micros`), over all accounts, computed
 * as {@link liveFigures} computes it: with the posted charges, the accrued spend that budgets and key caps
 * act on (the figure GET /v1/billing/summary shows).
 */
export const unchargedByInstance = sql.fragment`
  SELECT account_id, api_key_id,
    (CASE WHEN s IS NULL OR m IS NULL OR n <= m THEN 0
          ELSE floor(p * (n - s) / 3600000 + 0.5) - floor(p * greatest(m - s, 0) / 3600000 + 0.5) END)::int8 AS micros
  FROM (
    SELECT account_id, api_key_id, coalesce(price_per_hour_micros, quote_per_hour_micros, 0)::numeric AS p,
      trunc(extract(epoch FROM started_at) * 1000) AS s, trunc(extract(epoch FROM metered_through) * 1000) AS m,
      trunc(extract(epoch FROM now()) * 1000) AS n
    FROM instances WHERE status = ANY(${sql.array([...BURNING_STATUSES], 'text')})) live`;

/** Balance, uncharged usage and burn rate of an account, read on `conn`. */
export async function readSpendFigures(
  conn: CommonQueryMethods,
  accountId: string,
): Promise<SpendFigures & { nowMs: number }> {
  const balance = await conn.maybeOneFirst(sql.type(z.object({ balance_micros: z.number() }))`
    SELECT balance_micros FROM account_balances WHERE account_id = ${accountId}`);
  const f = await conn.one(sql.type(Figures)`${liveFigures(accountId)}`);
  return { balanceMicros: balance ?? 0, unchargedMicros: f.uncharged, burnPerHourMicros: f.burn, nowMs: f.now_ms };
}

/** What `admit_launch` (migration 018) answers for one launch: the decision and the figures it was made on. */
const Decided = z.object({
  outcome: z.enum([
    'admitted',
    'refused',
    'replay',
    'conflict_bound',
    'conflict_existing',
    'conflict_ran',
    'limited',
    'key_capped',
    'key_unusable',
  ]),
  reason: z.string().nullable().optional(),
  balance: z.number().optional(),
  burn: z.number().optional(),
  uncharged: z.number().optional(),
  live: z.number().optional(),
  key: z
    .object({
      name: z.string().optional(),
      prefix: z.string().optional(),
      limit: z.number().optional(),
      period: z.enum(['day', 'month']).optional(),
      charged: z.number().optional(),
      live_hourly: z.number().optional(),
      revoked: z.boolean().optional(),
      family: z.boolean().optional(),
    })
    .nullable()
    .optional(),
});
type Decided = z.infer<typeof Decided>;

/** One request as `admit_launches` reads it. */
function statementArgs(request: AdmissionRequest) {
  const i = request.intent;
  return {
    account: i.accountId,
    id: i.id,
    hash: i.requestHash,
    reserve: request.reserve !== false,
    quote: request.quotePerHourMicros,
    window_ms: request.windowMs,
    max_live: request.maxLive ?? null,
    binding_ms: IDEMPOTENCY_BINDING_MS,
    key_id: i.apiKeyId ?? null,
    provider: i.provider,
    provider_name: i.providerName,
    name: i.name,
    gpu_type: i.gpuType,
    gpu_count: i.gpuCount,
    spot: i.spot,
    region: i.region,
    docker_image: i.dockerImage,
    warnings: i.warnings,
  };
}

/** The caller's decision from the statement's: the words and numbers of the decision it made. */
function toDecision(request: AdmissionRequest, d: Decided): AdmissionDecision {
  switch (d.outcome) {
    case 'conflict_bound':
      return {
        outcome: 'conflict',
        message: 'This Idempotency-Key was used with a different request body in the last 24 hours.',
      };
    case 'conflict_existing':
      return { outcome: 'conflict', message: 'This Idempotency-Key was used with a different request body.' };
    case 'conflict_ran':
      return {
        outcome: 'conflict',
        message:
          `This Idempotency-Key's launch created an instance that then failed${d.reason ? ` (${d.reason})` : ''}; ` +
          'send the launch again with a new Idempotency-Key.',
      };
    case 'replay':
      return { outcome: 'replay' };
    case 'limited':
      return {
        outcome: 'limited',
        max: request.maxLive!,
        message: limitReachedMessage('live_instances', request.maxLive!),
      };
    case 'key_unusable':
      return {
        outcome: 'key_refused',
        message: unusableKeyMessage({ name: d.key?.name, prefix: d.key?.prefix, revoked: d.key?.revoked ?? true }),
      };
    case 'key_capped': {
      const k = d.key!;
      const standing = {
        name: k.name!,
        prefix: k.prefix!,
        limitMicros: k.limit!,
        period: k.period!,
        chargedMicros: k.charged!,
        liveHourlyMicros: k.live_hourly!,
        ...(k.family ? { family: true } : {}),
      };
      return { outcome: 'key_refused', message: keyCapMessage(standing, request.quotePerHourMicros), keyCap: standing };
    }
    default: {
      const spend: SpendFigures = {
        balanceMicros: d.balance!,
        unchargedMicros: d.uncharged!,
        burnPerHourMicros: d.burn!,
      };
      // The same arithmetic as the statement's, for the figures and the refusal's words.
      const verdict = decideAdmission(spend, request.quotePerHourMicros, request.windowMs);
      if (d.outcome === 'admitted') return { outcome: 'admitted', figures: verdict.figures };
      return {
        outcome: 'refused',
        figures: verdict.figures,
        message: verdict.admitted ? 'The balance cannot cover this launch.' : verdict.message,
      };
    }
  }
}

interface Waiting {
  request: AdmissionRequest;
  resolve: (d: AdmissionDecision) => void;
  reject: (err: unknown) => void;
}

/** The most admissions decided in one statement. */
const MAX_BATCH = 32;
/** Per pool and account: the admissions waiting while one statement of that account is under way. */
const waitingByPool = new WeakMap<Pool, Map<string, Waiting[]>>();

/** Decides `batch` in one statement, in order; a failed statement (rolled back whole) is retried one by one. */
async function decideBatch(pool: Pool, batch: Waiting[]): Promise<void> {
  try {
    const decided = await pool.oneFirst(sql.type(z.object({ admissions: z.array(Decided) }))`
      SELECT admit_launches(${sql.jsonb(batch.map((w) => statementArgs(w.request)))}) AS admissions`);
    batch.forEach((w, n) => w.resolve(toDecision(w.request, decided[n]!)));
  } catch (err) {
    if (batch.length === 1) batch[0]!.reject(err);
    else for (const w of batch) await decideBatch(pool, [w]);
  }
}

/**
 * Decides a launch and, when admitted, writes its reservation: the instance row in `provisioning` with the
 * quoted price and the launching key (a failed earlier launch of the same key starts over as the new request
 * describes it). One statement (`admit_launch`, migration 018) takes the account's balance-row lock, binds the
 * Idempotency-Key, finds a replay, counts the fleet, checks the launching API key (`intent.apiKeyId`: its spend
 * cap, and that it is neither revoked nor expired) and the balance rule, and writes the reservation: the lock is
 * held for one round trip and its commit. Every admission of an account waits for the one before it, so the
 * admissions of an account that arrive while one is under way in this process are sent together when it ends
 * (`admit_launches`: each decided alone, in arrival order, on what the earlier ones left; one commit for all).
 */
export function admitLaunch(pool: Pool, request: AdmissionRequest): Promise<AdmissionDecision> {
  return new Promise((resolve, reject) => {
    let byAccount = waitingByPool.get(pool);
    if (!byAccount) waitingByPool.set(pool, (byAccount = new Map()));
    const accountId = request.intent.accountId;
    const queued = byAccount.get(accountId);
    if (queued) {
      queued.push({ request, resolve, reject });
      return;
    }
    const waiting: Waiting[] = [];
    byAccount.set(accountId, waiting);
    void (async () => {
      let batch: Waiting[] = [{ request, resolve, reject }];
      while (batch.length > 0) {
        await decideBatch(pool, batch);
        batch = waiting.splice(0, MAX_BATCH);
      }
      byAccount.delete(accountId);
    })();
  });
}

/**
 * Gives a reservation back when its launch was refused before its workflow could say so (the engine refused
 * the start, or an earlier run of the same key answered): only a row that never reached a provider.
 */
export async function releaseReservation(pool: Pool, id: string, reason: string): Promise<void> {
  await pool.query(sql.typeAlias('void')`
    UPDATE instances SET status = 'failed', end_reason = ${reason.slice(0, 500)}, ended_at = coalesce(ended_at, now()),
      updated_at = now()
    WHERE id = ${id} AND status = 'provisioning' AND provider_instance_id IS NULL`);
}

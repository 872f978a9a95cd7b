/**
 * Alerts: the account-scoped CRUD the API serves, and the set-based evaluation the alert monitor runs over
 * all accounts at once (never a query per alert).
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { microsToDollars } from '../../domain/money';
import { MAX_OFFER_AGE_MS } from '../../domain/pricing';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { unchargedByInstance } from './admission';

export const ALERT_TYPES = ['price_drop', 'budget_limit'] as const;
export const ALERT_ACTIONS = ['notify', 'stop_instances'] as const;
export const ALERT_STATUSES = ['active', 'triggered'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export type AlertAction = (typeof ALERT_ACTIONS)[number];
export type AlertStatus = (typeof ALERT_STATUSES)[number];

const AlertRow = z.object({
  id: z.string(),
  seq: z.number(),
  account_id: z.string(),
  type: z.enum(ALERT_TYPES),
  action: z.enum(ALERT_ACTIONS),
  status: z.enum(ALERT_STATUSES),
  gpu_type: z.string().nullable(),
  threshold_micros: z.number(),
  triggered_at: z.string().nullable(),
  created_at: z.string(),
});
export type AlertRow = z.infer<typeof AlertRow>;

/** A row with the value its threshold is compared against right now (null: no available offer for the GPU). */
const AlertWithValueRow = AlertRow.extend({ current_value_micros: z.number().nullable() });
export type AlertWithValue = z.infer<typeof AlertWithValueRow>;

/** The Alert record of the API (decisions.md "Alerts"): dollars at the edge, type-specific fields only. */
export const AlertRecord = z.object({
  id: z.string(),
  type: z.enum(ALERT_TYPES),
  action: z.enum(ALERT_ACTIONS),
  status: z.enum(ALERT_STATUSES),
  gpu_type: z.string().optional().describe('price_drop only'),
  threshold_price: z.number().optional().describe('price_drop only: dollars per GPU per hour'),
  threshold_dollars: z.number().optional().describe('budget_limit only: month-to-date spend in dollars'),
  current_value: z
    .number()
    .nullable()
    .describe(
      'price_drop: the lowest available price for the GPU now (null when no provider offers it); ' +
        'budget_limit: the accrued spend of the current UTC calendar month ' +
        '(charges posted plus what live instances have run since their last charge)',
    ),
  triggered_at: z.string().nullable().describe('ISO 8601 UTC timestamp; null while active'),
  created_at: z.string().describe('ISO 8601 UTC timestamp'),
});
export type AlertRecord = z.infer<typeof AlertRecord>;

export function toAlertRecord(row: AlertRow, currentValueMicros: number | null): AlertRecord {
  const threshold = microsToDollars(row.threshold_micros);
  return {
    id: row.id,
    type: row.type,
    action: row.action,
    status: row.status,
    ...(row.type === 'price_drop'
      ? { gpu_type: row.gpu_type!, threshold_price: threshold }
      : { threshold_dollars: threshold }),
    current_value: currentValueMicros === null ? null : microsToDollars(currentValueMicros),
    triggered_at: row.triggered_at,
    created_at: row.created_at,
  };
}

export type NewAlert =
  | { type: 'price_drop'; action: 'notify'; gpuType: string; thresholdMicros: number }
  | { type: 'budget_limit'; action: AlertAction; thresholdMicros: number };

export interface AlertPage {
  alerts: AlertWithValue[];
  has_more: boolean;
  next_cursor: string | null;
}

/** What one evaluation did. */
export interface EvaluationResult {
  priceTriggered: number;
  budgetTriggered: number;
  /** Stop requests this evaluation wrote. */
  stopRequests: number;
  /** Stop requests not yet delivered, this evaluation's and any earlier ones. */
  pendingStopRequests: number;
}

export interface StopRequest {
  alert_id: string;
  instance_id: string;
  action: 'stop' | 'terminate';
  reason: string;
}

const StopRequestRow = z.object({
  alert_id: z.string(),
  instance_id: z.string(),
  action: z.enum(['stop', 'terminate']),
  reason: z.string(),
});

const CURSOR_PREFIX = 'alert:';

function encodeCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`).toString('base64url');
}

/** The sequence number a cursor points below, or null when the text is not a cursor we issued. */
export function decodeAlertCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return null;
  const match = /^alert:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) && encodeCursor(seq) === cursor ? seq : null;
}

const COLUMNS = sql.fragment`id, seq, account_id, type, action, status, gpu_type, threshold_micros, triggered_at,
  created_at`;
const A_COLUMNS = sql.fragment`a.id, a.seq, a.account_id, a.type, a.action, a.status, a.gpu_type, a.threshold_micros,
  a.triggered_at, a.created_at`;

/** Serializes evaluations (two workers, a retried activity): the second one then finds nothing left to move. */
const EVALUATION_LOCK = 724_113_909;

/** The lowest available offer per GPU, as the pricing snapshot sees it (fresh within the hour, availability > 0). */
const bestOffers = sql.fragment`
  SELECT DISTINCT ON (gpu_type) gpu_type, provider, price_per_hour_micros, spot, region
  FROM pricing_offers
  WHERE availability > 0 AND fetched_at > now() - make_interval(secs => ${MAX_OFFER_AGE_MS / 1000})
  ORDER BY gpu_type, price_per_hour_micros, provider, spot, region NULLS FIRST`;

/** The start of the current UTC calendar month. */
const monthStart = sql.fragment`date_trunc('month', now(), 'UTC')`;

/** Instance statuses a stop_instances alert ends: everything that runs or is about to. */
const ENDABLE_STATUSES = ['provisioning', 'running', 'unknown'];

const EvaluationRow = z.object({
  price_triggered: z.number(),
  budget_triggered: z.number(),
  events: z.number(),
  stop_requests: z.number(),
  pending_stop_requests: z.number(),
});

/** Micro-dollars as a JSON number of dollars, the same double JavaScript's `micros / 1e6` gives. */
const dollarsOf = (micros: ReturnType<typeof sql.fragment>) => sql.fragment`to_jsonb(${micros}::float8 / 1000000)`;
const isoOf = (column: ReturnType<typeof sql.fragment>) =>
  sql.fragment`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The alert record ({@link toAlertRecord}) as it was when it triggered, built in SQL for the event of a hit
 * row `h`; `current_value` is the value that triggered it.
 */
const eventAlertRecord = sql.fragment`
  jsonb_build_object('id', h.id, 'type', h.type, 'action', h.action, 'status', h.status,
    'current_value', ${dollarsOf(sql.fragment`h.value_micros`)},
    'triggered_at', ${isoOf(sql.fragment`h.triggered_at`)}, 'created_at', ${isoOf(sql.fragment`h.created_at`)})
  || CASE WHEN h.type = 'price_drop'
       THEN jsonb_build_object('gpu_type', h.gpu_type,
         'threshold_price', ${dollarsOf(sql.fragment`h.threshold_micros`)})
       ELSE jsonb_build_object('threshold_dollars', ${dollarsOf(sql.fragment`h.threshold_micros`)}) END`;

/** The ids of key `k` (a `service_keys` row's alias) and of every key made under it. */
const familyOf = (k: ReturnType<typeof sql.fragment>) => sql.fragment`
  SELECT d.id FROM service_keys d
  WHERE d.account_id = ${k}.account_id AND (d.id = ${k}.id OR ${k}.id = ANY(d.ancestor_ids))`;

/**
 * Spend-capped API keys at their cap end their instances like a budget stop: one stop request per endable
 * instance the key launched, once the key's accrued spend in its period (UTC day or month) reaches the cap:
 * the charges of its instances posted in the period plus what its live instances have run since their last
 * charge (the statement's `uncharged` CTE). The request's `alert_id` names the key and the period
 * (`keycap:<key>:<period start>`), so a key is stopped once per period however often this runs. Revoked keys
 * too: revoking a key does not lift its cap. A cap covers the keys made under its key (migration 029): their
 * spend counts toward it, and their instances are ended with the key's own.
 */
const keyCapStops = (budget: boolean) => sql.fragment`
  key_spend AS (
    SELECT k.id, k.name, k.key_prefix, k.spend_limit_micros, k.spend_limit_period, p.start,
      sum(x.micros)::int8 AS micros
    FROM service_keys k
    CROSS JOIN LATERAL (SELECT date_trunc(k.spend_limit_period, now(), 'UTC') AS start) p
    JOIN LATERAL (
      SELECT -l.amount_micros AS micros
      FROM instances i JOIN ledger_entries l ON l.account_id = k.account_id
        AND l.type IN ('instance_charge', 'instance_storage_charge')
        AND l.instance_id = coalesce(i.provider_instance_id, i.id) AND l.created_at >= p.start
      WHERE i.api_key_id IN (${familyOf(sql.fragment`k`)})
      UNION ALL
      SELECT u.micros FROM uncharged u WHERE u.api_key_id IN (${familyOf(sql.fragment`k`)})) x ON true
    WHERE ${budget}::boolean AND k.spend_limit_micros IS NOT NULL
    GROUP BY k.id, p.start
    HAVING sum(x.micros) >= k.spend_limit_micros),
  key_cap_stops AS (
    INSERT INTO alert_stop_requests (alert_id, instance_id, account_id, action, reason)
    SELECT 'keycap:' || s.id || ':' || to_char(s.start AT TIME ZONE 'UTC', 'YYYY-MM-DD'), i.id, i.account_id,
      CASE WHEN i.provider = 'runpod' THEN 'stop' ELSE 'terminate' END,
      'API key "' || s.name || '" (' || s.key_prefix || '…) reached its spend cap: $' ||
      to_char(s.micros / 1e6, 'FM999999999990.00') ||
      ' spent this ' || s.spend_limit_period || ' (UTC), cap $' ||
      to_char(s.spend_limit_micros / 1e6, 'FM999999999990.00')
    FROM key_spend s JOIN service_keys sk ON sk.id = s.id
    JOIN instances i ON i.api_key_id IN (${familyOf(sql.fragment`sk`)})
      AND i.status = ANY(${sql.array(ENDABLE_STATUSES, 'text')})
    ON CONFLICT DO NOTHING
    RETURNING 1)`;

export function createAlertQueries(pool: Pool) {
  /**
   * The account's alerts newest first, each with its current value: the lowest available price of its GPU
   * or the account's accrued spend this UTC month, posted charges plus uncharged usage (computed per page, so
   * never stale).
   */
  async function listAlerts(
    accountId: string,
    options: { status?: AlertStatus; limit: number; cursor?: string; id?: string },
  ): Promise<AlertPage> {
    const before = options.cursor === undefined ? null : decodeAlertCursor(options.cursor);
    if (options.cursor !== undefined && before === null) throw new RangeError('malformed alert cursor');
    const rows = await pool.any(sql.type(AlertWithValueRow)`
      WITH best AS (${bestOffers}),
      spend AS (
        SELECT (coalesce((SELECT sum(-amount_micros) FROM ledger_entries
                          WHERE account_id = ${accountId} AND type IN ('instance_charge', 'instance_storage_charge')
                            AND created_at >= ${monthStart}), 0)
          + coalesce((SELECT sum(u.micros) FROM (${unchargedByInstance}) u WHERE u.account_id = ${accountId}), 0)
          )::int8 AS micros)
      SELECT ${A_COLUMNS},
        CASE WHEN a.type = 'price_drop' THEN b.price_per_hour_micros ELSE s.micros END AS current_value_micros
      FROM alerts a LEFT JOIN best b ON b.gpu_type = a.gpu_type CROSS JOIN spend s
      WHERE a.account_id = ${accountId}
        ${options.status ? sql.fragment`AND a.status = ${options.status}` : sql.fragment``}
        ${options.id ? sql.fragment`AND a.id = ${options.id}` : sql.fragment``}
        ${before !== null ? sql.fragment`AND a.seq < ${before}` : sql.fragment``}
      ORDER BY a.seq DESC
      LIMIT ${options.limit + 1}`);
    const alerts = rows.slice(0, options.limit);
    const hasMore = rows.length > options.limit;
    return { alerts, has_more: hasMore, next_cursor: hasMore ? encodeCursor(alerts[alerts.length - 1]!.seq) : null };
  }

  return {
    listAlerts,

    async insertAlert(accountId: string, alert: NewAlert, conn: CommonQueryMethods = pool): Promise<AlertRow> {
      return conn.one(sql.type(AlertRow)`
        INSERT INTO alerts (id, account_id, type, action, gpu_type, threshold_micros)
        VALUES (${newId('alert')}, ${accountId}, ${alert.type}, ${alert.action},
                ${alert.type === 'price_drop' ? alert.gpuType : null}, ${alert.thresholdMicros})
        RETURNING ${COLUMNS}`);
    },

    /** One alert of the account with its current value, or null (also for another account's alert). */
    async findAlert(accountId: string, id: string): Promise<AlertWithValue | null> {
      const page = await listAlerts(accountId, { id, limit: 1 });
      return page.alerts[0] ?? null;
    },

    /** Deletes an alert of the account; false when it has none by that id. A deleted alert never triggers. */
    async deleteAlert(accountId: string, id: string): Promise<boolean> {
      const deleted = await pool.maybeOne(sql.type(z.object({ id: z.string() }))`
        DELETE FROM alerts WHERE account_id = ${accountId} AND id = ${id} RETURNING id`);
      return deleted !== null;
    },

    /**
     * Evaluates the active alerts of every account in one statement (so one transaction): price_drop against
     * the lowest available offer per GPU, budget_limit against each account's accrued spend this UTC month (the
     * charges posted plus what its live instances have run since their last charge). Each
     * alert moves `active → triggered` through a conditional UPDATE (`WHERE status = 'active'`), so it moves
     * once however many evaluations race (the second waits for the first's row locks, then finds them
     * triggered). Its `alert.triggered` event (deduplicated per alert) and, for `stop_instances`, one stop
     * request per running instance of the account are written by the same statement. Everything stays in
     * Postgres: no row travels to Node and back, so the cost grows with the alerts triggered, not those watched.
     */
    async evaluate(kinds: { price: boolean; budget: boolean }): Promise<EvaluationResult> {
      return pool
        .transaction(async (tx) => {
          await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${EVALUATION_LOCK})`);
          const statement = sql.fragment`
          WITH best AS (${bestOffers}),
          uncharged AS (SELECT * FROM (${unchargedByInstance}) u WHERE ${kinds.budget}::boolean),
          spend AS (
            SELECT account_id, sum(micros)::int8 AS micros FROM (
              SELECT account_id, -amount_micros AS micros FROM ledger_entries
              WHERE ${kinds.budget}::boolean AND type IN ('instance_charge', 'instance_storage_charge')
                AND created_at >= ${monthStart}
              UNION ALL
              SELECT account_id, micros FROM uncharged) posted_and_uncharged
            GROUP BY account_id),
          price_hits AS (
            UPDATE alerts a SET status = 'triggered', triggered_at = now()
            FROM best b
            WHERE ${kinds.price}::boolean AND a.status = 'active' AND a.type = 'price_drop' AND a.gpu_type = b.gpu_type
              AND a.threshold_micros >= b.price_per_hour_micros
            RETURNING ${A_COLUMNS}, b.price_per_hour_micros AS value_micros,
              jsonb_build_object('provider', b.provider, 'gpu_type', b.gpu_type,
                'price_per_hour', ${dollarsOf(sql.fragment`b.price_per_hour_micros`)},
                'spot', b.spot, 'region', b.region) AS offer),
          budget_hits AS (
            UPDATE alerts a SET status = 'triggered', triggered_at = now()
            FROM spend s
            WHERE a.status = 'active' AND a.type = 'budget_limit' AND a.account_id = s.account_id
              AND s.micros >= a.threshold_micros
            RETURNING ${A_COLUMNS}, s.micros AS value_micros, NULL::jsonb AS offer),
          hits AS (SELECT * FROM price_hits UNION ALL SELECT * FROM budget_hits),
          written_events AS (
            INSERT INTO events (id, account_id, type, data, dedupe_key)
            SELECT alert_event_id(h.id), h.account_id, 'alert.triggered',
              jsonb_build_object('alert', ${eventAlertRecord}, 'value', ${dollarsOf(sql.fragment`h.value_micros`)})
                || CASE WHEN h.offer IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('offer', h.offer) END,
              'alert.triggered:' || h.id
            FROM hits h
            ON CONFLICT (account_id, dedupe_key) DO NOTHING
            RETURNING 1),
          stops AS (
            INSERT INTO alert_stop_requests (alert_id, instance_id, account_id, action, reason)
            SELECT h.id, i.id, i.account_id, CASE WHEN i.provider = 'runpod' THEN 'stop' ELSE 'terminate' END,
              'budget alert ' || h.id || ' reached: $' || to_char(h.value_micros / 1e6, 'FM999999999990.00') ||
              ' spent this month, limit $' || to_char(h.threshold_micros / 1e6, 'FM999999999990.00')
            FROM hits h JOIN instances i ON i.account_id = h.account_id
              AND i.status = ANY(${sql.array(ENDABLE_STATUSES, 'text')})
            WHERE h.action = 'stop_instances'
            ON CONFLICT DO NOTHING
            RETURNING 1),
          ${keyCapStops(kinds.budget)}
          SELECT
            (SELECT count(*) FROM price_hits)::int8 AS price_triggered,
            (SELECT count(*) FROM budget_hits)::int8 AS budget_triggered,
            (SELECT count(*) FROM written_events)::int8 AS events,
            ((SELECT count(*) FROM stops) + (SELECT count(*) FROM key_cap_stops))::int8 AS stop_requests,
            -- The statement's snapshot does not see its own inserts: earlier pending ones plus this one's.
            ((SELECT count(*) FROM alert_stop_requests WHERE delivered_at IS NULL) + (SELECT count(*) FROM stops)
              + (SELECT count(*) FROM key_cap_stops))::int8 AS pending_stop_requests`;
          return tx.one(sql.type(EvaluationRow)`${statement}`);
        })
        .then((r) => ({
          priceTriggered: r.price_triggered,
          budgetTriggered: r.budget_triggered,
          stopRequests: r.stop_requests,
          pendingStopRequests: r.pending_stop_requests,
        }));
    },

    /**
     * Whether a charge of the account can trigger anything at an evaluation: it has an active `budget_limit` alert
     * or a key with a spend cap (revoked keys too: revoking does not lift a cap).
     */
    async spendWatched(accountId: string): Promise<boolean> {
      return pool.oneFirst(sql.type(z.object({ watched: z.boolean() }))`
        SELECT EXISTS (SELECT FROM alerts WHERE account_id = ${accountId} AND status = 'active'
                         AND type = 'budget_limit')
            OR EXISTS (SELECT FROM service_keys WHERE account_id = ${accountId} AND spend_limit_micros IS NOT NULL)
          AS watched`);
    },

    /** The oldest stop requests not yet delivered to their instance's workflow. */
    async findPendingStopRequests(limit: number): Promise<readonly StopRequest[]> {
      return pool.any(sql.type(StopRequestRow)`
        SELECT alert_id, instance_id, action, reason FROM alert_stop_requests
        WHERE delivered_at IS NULL ORDER BY created_at, alert_id, instance_id LIMIT ${limit}`);
    },

    async markStopRequestsDelivered(requests: readonly Pick<StopRequest, 'alert_id' | 'instance_id'>[]): Promise<void> {
      if (requests.length === 0) return;
      await pool.query(sql.typeAlias('void')`
        UPDATE alert_stop_requests r SET delivered_at = now()
        FROM ${sql.unnest(
          requests.map((r) => [r.alert_id, r.instance_id]),
          ['text', 'text'],
        )} AS d(alert_id, instance_id)
        WHERE r.alert_id = d.alert_id AND r.instance_id = d.instance_id AND r.delivered_at IS NULL`);
    },
  };
}
export type AlertQueries = ReturnType<typeof createAlertQueries>;

/**
 * The `webhook_deliveries` and `webhook_attempts` tables: the outbox cursor (fan-out of events to deliveries),
 * the delivery log and its attempts. Every query of an account's resource filters by account_id; the
 * dispatcher's queries work across accounts by design (they serve the whole outbox).
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { KeyVault } from '../../domain/key-vault';
import { openText } from '../../domain/sealed-text';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { EventRow } from './events';
import { decodePageCursor, page, type Page } from './paging';
import { WEBHOOK_SECRET_AAD } from './webhook-endpoints';

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed', 'cancelled']);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const AttemptRow = z.object({
  delivery_id: z.string(),
  attempted_at: z.string(),
  status_code: z.number().nullable(),
  latency_ms: z.number(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  success: z.boolean(),
});
export type AttemptRow = z.infer<typeof AttemptRow>;

export const DeliveryRow = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  event_id: z.string(),
  status: DeliveryStatus,
  attempt_count: z.number(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DeliveryRow = z.infer<typeof DeliveryRow>;
const DELIVERY_COLUMNS = sql.fragment`d.id, d.endpoint_id, d.event_id, d.status, d.attempt_count, d.next_attempt_at,
  d.created_at, d.updated_at`;

/** Everything one attempt needs: where, with which secret, what. */
export const DeliveryWork = z.object({
  delivery_id: z.string(),
  status: DeliveryStatus,
  attempt_count: z.number(),
  url: z.string(),
  secret: z.string(),
  active: z.boolean(),
  event_id: z.string(),
  type: z.string(),
  data: z.record(z.unknown()),
  event_created_at: z.string(),
});
export type DeliveryWork = z.infer<typeof DeliveryWork>;

/** `vault` opens the endpoints' sealed signing secrets into the delivery work (webhook-endpoints.ts). */
export function createWebhookDeliveryQueries(pool: Pool, vault: Pick<KeyVault, 'open'>) {
  const opened = <T extends { secret: string }>(work: T): T => ({
    ...work,
    secret: openText(vault, work.secret, WEBHOOK_SECRET_AAD),
  });
  return {
    /** Deliveries of an endpoint still waiting for a retry (their workflows are told when it changes). */
    async listPendingDeliveryIds(accountId: string, endpointId: string): Promise<string[]> {
      const rows = await pool.any(sql.type(z.object({ id: z.string() }))`
        SELECT id FROM webhook_deliveries
        WHERE account_id = ${accountId} AND endpoint_id = ${endpointId} AND status = 'pending' AND owner = 'workflow'
        LIMIT 10000`);
      return rows.map((r) => r.id);
    },

    async listDeliveries(
      accountId: string,
      endpointId: string,
      options: { status?: DeliveryStatus; limit: number; cursor?: string },
    ): Promise<Page<DeliveryRow & { event: EventRow; attempts: AttemptRow[] }>> {
      const rows = await pool.any(sql.type(DeliveryRow)`
        SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
        WHERE d.account_id = ${accountId} AND d.endpoint_id = ${endpointId}
          AND ${options.status ? sql.fragment`d.status = ${options.status}` : sql.fragment`true`}
          AND ${
            options.cursor === undefined
              ? sql.fragment`true`
              : sql.fragment`(d.created_at,
            d.id) < (${decodePageCursor(options.cursor)!.createdAt}::timestamptz,
              ${decodePageCursor(options.cursor)!.id})`
          }
        ORDER BY d.created_at DESC, d.id DESC LIMIT ${options.limit + 1}`);
      const p = page(rows, options.limit);
      const ids = p.data.map((d) => d.id);
      const eventIds = p.data.map((d) => d.event_id);
      const [events, attempts] = await Promise.all([
        pool.any(sql.type(EventRow)`
          SELECT id, account_id, type, data, created_at FROM events
          WHERE account_id = ${accountId} AND id = ANY(${sql.array(eventIds, 'text')})`),
        pool.any(sql.type(AttemptRow)`
          SELECT delivery_id, attempted_at, status_code, latency_ms, response_body, error, success FROM webhook_attempts
          WHERE delivery_id = ANY(${sql.array(ids, 'text')}) ORDER BY id`),
      ]);
      const eventById = new Map(events.map((e) => [e.id, e]));
      return {
        ...p,
        data: p.data.map((d) => ({
          ...d,
          event: eventById.get(d.event_id)!,
          attempts: attempts.filter((a) => a.delivery_id === d.id),
        })),
      };
    },

    async findDelivery(accountId: string, endpointId: string, id: string): Promise<DeliveryRow | null> {
      return pool.maybeOne(sql.type(DeliveryRow)`
        SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
        WHERE d.account_id = ${accountId} AND d.endpoint_id = ${endpointId} AND d.id = ${id}`);
    },

    // ---- the dispatcher (across accounts) ----

    /**
     * Claims up to `limit` undispatched events (oldest first, skipping rows another dispatcher holds) and, in
     * the same transaction, marks them dispatched and creates one pending delivery per (event, active
     * subscribed endpoint), leased to the caller for `leaseMs`. Returns how many events were claimed and the
     * work for each new delivery's first attempt.
     */
    async claimOutboxBatch(limit: number, leaseMs: number): Promise<{ claimed: number; work: DeliveryWork[] }> {
      // One statement (one round trip, atomic): claim, mark dispatched, create deliveries, return their work.
      const ClaimRow = z.object({
        event_id: z.string(),
        type: z.string(),
        data: z.record(z.unknown()),
        event_created_at: z.string(),
        delivery_id: z.string().nullable(),
        url: z.string().nullable(),
        secret: z.string().nullable(),
      });
      const rows = await pool.any(sql.type(ClaimRow)`
        WITH batch AS (
          SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at, id
            LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ),
        claimed AS (
          UPDATE events e SET dispatched_at = now() FROM batch WHERE e.id = batch.id
          RETURNING e.id, e.account_id, e.type, e.data, e.created_at, e.endpoint_id
        ),
        targets AS (
          SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', '') AS delivery_id, c.id AS event_id, c.account_id,
                 w.id AS endpoint_id, w.url, w.secret
          FROM claimed c JOIN webhook_endpoints w ON w.account_id = c.account_id AND w.active
            AND (w.id = c.endpoint_id OR (c.endpoint_id IS NULL AND c.type = ANY(w.events)))
        ),
        created AS (
          INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, status, lease_until)
          SELECT delivery_id, account_id, endpoint_id, event_id, 'pending', now()
            + ${leaseMs} * interval '1 millisecond' FROM targets
          ON CONFLICT (event_id, endpoint_id) DO NOTHING
          RETURNING id
        )
        SELECT c.id AS event_id, c.type, c.data, c.created_at AS event_created_at, t.delivery_id, t.url, t.secret
        FROM claimed c
          LEFT JOIN (targets t JOIN created d ON d.id = t.delivery_id) ON t.event_id = c.id
        ORDER BY c.created_at, c.id`);
      const claimed = new Set(rows.map((r) => r.event_id)).size;
      const work: DeliveryWork[] = rows
        .filter((r) => r.delivery_id !== null)
        .map((r) =>
          opened({
            ...r,
            delivery_id: r.delivery_id!,
            url: r.url!,
            secret: r.secret!,
            status: 'pending' as const,
            attempt_count: 0,
            active: true,
          }),
        );
      return { claimed, work };
    },

    /**
     * Deliveries whose first attempt was claimed but never handed on (the process died in between): their
     * lease is renewed and their ids returned, so the caller starts their retry workflows.
     */
    async sweepOrphanedDeliveries(limit: number, leaseMs: number): Promise<string[]> {
      const rows = await pool.any(sql.type(z.object({ id: z.string() }))`
        UPDATE webhook_deliveries SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
        WHERE id IN (
          SELECT id FROM webhook_deliveries
          WHERE status = 'pending' AND owner = 'dispatcher' AND lease_until < now()
          ORDER BY lease_until LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id`);
      return rows.map((r) => r.id);
    },

    /** The retry workflow takes a delivery over; returns its work, or null when the delivery is gone. */
    async adoptDelivery(id: string): Promise<(DeliveryWork & { next_attempt_at: string | null }) | null> {
      const work = await pool.maybeOne(sql.type(DeliveryWork.extend({ next_attempt_at: z.string().nullable() }))`
        WITH adopted AS (
          UPDATE webhook_deliveries SET owner = 'workflow', updated_at = now() WHERE id = ${id}
          RETURNING id, status, attempt_count, next_attempt_at, endpoint_id, event_id
        )
        SELECT a.id AS delivery_id, a.status, a.attempt_count, a.next_attempt_at, w.url, w.secret, w.active,
               e.id AS event_id, e.type, e.data, e.created_at AS event_created_at
        FROM adopted a JOIN webhook_endpoints w ON w.id = a.endpoint_id JOIN events e ON e.id = a.event_id`);
      return work && opened(work);
    },

    async cancelDelivery(id: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
        WHERE id = ${id} AND status = 'pending'`);
    },

    /**
     * Records one attempt and its consequences in one transaction: the delivery's status and next attempt,
     * and the endpoint's failure streak (an endpoint failing for `disableAfterMs` without a success is
     * deactivated). `nextAttemptInMs` null means no retry follows a failure.
     */
    async recordAttempt(
      id: string,
      attempt: {
        attemptedAt: Date;
        statusCode: number | null;
        latencyMs: number;
        responseBody: string | null;
        error: string | null;
        success: boolean;
      },
      onFailure: { nextAttemptInMs: number | null; disableAfterMs: number },
      conn: CommonQueryMethods = pool,
    ): Promise<{
      status: DeliveryStatus;
      attemptCount: number;
      nextAttemptAt: string | null;
      endpointDeactivated: boolean;
    } | null> {
      const run = async (tx: CommonQueryMethods) => {
        const delivery = await tx.maybeOne(sql.type(z.object({ endpoint_id: z.string() }))`
          SELECT endpoint_id FROM webhook_deliveries WHERE id = ${id} FOR UPDATE`);
        if (!delivery) return null;
        await tx.query(sql.typeAlias('void')`
          INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_body, error,
            success)
          VALUES (${id}, ${attempt.attemptedAt.toISOString()}, ${attempt.statusCode}, ${attempt.latencyMs},
                  ${attempt.responseBody?.replaceAll('\u0000', '') ?? null}, ${attempt.error?.slice(0, 500) ?? null},
                    ${attempt.success})`);
        const status: DeliveryStatus = attempt.success
          ? 'succeeded'
          : onFailure.nextAttemptInMs === null
            ? 'failed'
            : 'pending';
        const updated = await tx.one(sql.type(
          z.object({ attempt_count: z.number(), next_attempt_at: z.string().nullable() }),
        )`
          UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, status = ${status},
            next_attempt_at = ${
              status === 'pending'
                ? sql.fragment`now()
              + ${onFailure.nextAttemptInMs} * interval '1 millisecond'`
                : sql.fragment`NULL`
            },
            updated_at = now()
          WHERE id = ${id} RETURNING attempt_count, next_attempt_at`);
        let endpointDeactivated = false;
        if (attempt.success) {
          await tx.query(sql.typeAlias('void')`
            UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${delivery.endpoint_id}
              AND failing_since IS NOT NULL`);
        } else {
          const ep = await tx.maybeOne(sql.type(z.object({ active: z.boolean() }))`
            UPDATE webhook_endpoints SET
              failing_since = coalesce(failing_since, ${attempt.attemptedAt.toISOString()}::timestamptz),
              -- The streak's length as the attempts' own times say it (what the deliveries list shows), not the
              -- moment this failure is recorded, which a busy worker reaches later.
              active = active AND coalesce(failing_since, ${attempt.attemptedAt.toISOString()}::timestamptz)
                                  > ${attempt.attemptedAt.toISOString()}::timestamptz
                                    - ${onFailure.disableAfterMs} * interval '1 millisecond',
              updated_at = CASE WHEN active THEN now() ELSE updated_at END
            WHERE id = ${delivery.endpoint_id} RETURNING active`);
          endpointDeactivated = ep !== null && !ep.active;
        }
        return {
          status,
          attemptCount: updated.attempt_count,
          nextAttemptAt: updated.next_attempt_at,
          endpointDeactivated,
        };
      };
      return conn === pool ? pool.transaction(run) : run(conn);
    },

    /**
     * Records many successful attempts at once (the dispatcher's happy path): one transaction for a whole
     * batch instead of one per message. Deliveries already finished or gone are left as they are.
     */
    async recordSuccesses(
      attempts: {
        deliveryId: string;
        attemptedAt: Date;
        statusCode: number;
        latencyMs: number;
        responseBody: string | null;
      }[],
    ): Promise<void> {
      if (attempts.length === 0) return;
      // One statement (one round trip, atomic) for the whole batch.
      await pool.query(sql.typeAlias('void')`
        WITH input AS (
          SELECT * FROM unnest(
            ${sql.array(
              attempts.map((r) => r.deliveryId),
              'text',
            )},
            ${sql.array(
              attempts.map((r) => r.attemptedAt.toISOString()),
              'timestamptz',
            )},
            ${sql.array(
              attempts.map((r) => r.statusCode),
              'int4',
            )},
            ${sql.array(
              attempts.map((r) => r.latencyMs),
              'int4',
            )},
            ${sql.array(
              attempts.map((r) => r.responseBody?.replaceAll('\u0000', '') ?? null),
              'text',
            )}
          ) AS i(delivery_id, attempted_at, status_code, latency_ms, response_body)
        ),
        updated AS (
          UPDATE webhook_deliveries d SET attempt_count = attempt_count + 1, status = 'succeeded',
            next_attempt_at = NULL, updated_at = now()
          FROM input i WHERE d.id = i.delivery_id AND d.status = 'pending'
          RETURNING d.id, d.endpoint_id
        ),
        logged AS (
          INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_body, success)
          SELECT i.delivery_id, i.attempted_at, i.status_code, i.latency_ms, i.response_body, true
          FROM input i JOIN updated u ON u.id = i.delivery_id
        ),
        healthy AS (
          UPDATE webhook_endpoints SET failing_since = NULL
          WHERE id IN (SELECT endpoint_id FROM updated) AND failing_since IS NOT NULL
        )
        SELECT`);
    },

    async findWork(id: string): Promise<DeliveryWork | null> {
      const work = await pool.maybeOne(sql.type(DeliveryWork)`
        SELECT d.id AS delivery_id, d.status, d.attempt_count, w.url, w.secret, w.active,
               e.id AS event_id, e.type, e.data, e.created_at AS event_created_at
        FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id
        WHERE d.id = ${id}`);
      return work && opened(work);
    },
  };
}

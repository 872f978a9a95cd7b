/**
 * Per-account limits, counted where the rows are. A create checks its limit and inserts in one transaction
 * that holds the account row's lock, so two concurrent creates at N−1 serialize: the second counts the
 * first's row and is refused. Counting (not a counter column) keeps the numbers right after deletes with no
 * bookkeeping; every count is bounded by the limit itself, so it stays cheap.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import {
  LIMIT_NAMES,
  LIVE_INSTANCE_STATUSES,
  limitReachedMessage,
  type AccountLimits,
  type LimitName,
} from '../../domain/limits';
import { LimitReachedError } from '../../errors';
import type { Pool } from '../pool';
import { sql } from '../sql';

/** One limit to check before a create; `webhook_urls` needs the URL (it counts only when the URL is new). */
export type LimitCheck =
  { name: Exclude<LimitName, 'webhook_urls'> } | { name: 'webhook_urls'; url: string; exceptEndpointId?: string };

const UsageRow = z.object(
  Object.fromEntries(LIMIT_NAMES.map((n) => [n, z.number()])) as Record<LimitName, z.ZodNumber>,
);
const Count = z.object({ used: z.number(), present: z.boolean() });

const liveStatuses = sql.array([...LIVE_INSTANCE_STATUSES], 'text');

/** The current use of one limit, and whether the new item is already counted (a URL the account already uses). */
function countOf(accountId: string, check: LimitCheck) {
  switch (check.name) {
    case 'alerts':
      return sql.type(
        Count,
      )`SELECT count(*)::int4 AS used, false AS present FROM alerts WHERE account_id = ${accountId}`;
    case 'schedules':
      return sql.type(
        Count,
      )`SELECT count(*)::int4 AS used, false AS present FROM schedules WHERE account_id = ${accountId}
        AND deleted_at IS NULL`;
    case 'webhooks':
      return sql.type(
        Count,
      )`SELECT count(*)::int4 AS used, false AS present FROM webhook_endpoints WHERE account_id = ${accountId}`;
    case 'ssh_keys':
      return sql.type(
        Count,
      )`SELECT count(*)::int4 AS used, false AS present FROM ssh_keys WHERE account_id = ${accountId}`;
    case 'api_keys':
      return sql.type(
        Count,
      )`SELECT count(*)::int4 AS used, false AS present FROM service_keys WHERE account_id = ${accountId}
        AND revoked_at IS NULL`;
    case 'live_instances':
      return sql.type(Count)`
        SELECT count(*)::int4 AS used, false AS present FROM instances WHERE account_id = ${accountId} AND
          status = ANY(${liveStatuses})`;
    case 'webhook_urls':
      return sql.type(Count)`
        SELECT count(DISTINCT url)::int4 AS used, coalesce(bool_or(url = ${check.url}), false) AS present
        FROM webhook_endpoints WHERE account_id = ${accountId} AND id <> ${check.exceptEndpointId ?? ''}`;
  }
}

export function createLimitQueries(pool: Pool, limits: AccountLimits) {
  /**
   * Takes the account row's lock (held to the end of `conn`'s transaction), then throws 422 `limit_reached`
   * when one more item would exceed a limit. Call it inside the transaction that inserts the item.
   */
  async function assertWithinLimits(
    conn: CommonQueryMethods,
    accountId: string,
    checks: readonly LimitCheck[],
  ): Promise<void> {
    await conn.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`);
    for (const check of checks) {
      const max = limits[check.name];
      const { used, present } = await conn.one(countOf(accountId, check));
      if (!present && used + 1 > max)
        throw new LimitReachedError(check.name, max, limitReachedMessage(check.name, max));
    }
  }

  return {
    limits,
    assertWithinLimits,

    /** Runs `create` in one transaction after {@link assertWithinLimits}: refused creates leave nothing behind. */
    async createWithinLimits<T>(
      accountId: string,
      checks: readonly LimitCheck[],
      create: (tx: CommonQueryMethods) => Promise<T>,
    ): Promise<T> {
      return pool.transaction(async (tx) => {
        await assertWithinLimits(tx, accountId, checks);
        return create(tx);
      });
    },

    /** Every limit with the account's current use, in one statement. */
    async usage(accountId: string): Promise<Record<LimitName, number>> {
      return pool.one(sql.type(UsageRow)`
        SELECT
          (SELECT count(*) FROM alerts WHERE account_id = ${accountId})::int4 AS alerts,
          (SELECT count(*) FROM schedules WHERE account_id = ${accountId} AND deleted_at IS NULL)::int4 AS schedules,
          (SELECT count(*) FROM webhook_endpoints WHERE account_id = ${accountId})::int4 AS webhooks,
          (SELECT count(DISTINCT url) FROM webhook_endpoints WHERE account_id = ${accountId})::int4 AS webhook_urls,
          (SELECT count(*) FROM ssh_keys WHERE account_id = ${accountId})::int4 AS ssh_keys,
          (SELECT count(*) FROM instances WHERE account_id = ${accountId} AND
            status = ANY(${liveStatuses}))::int4 AS live_instances,
          (SELECT count(*) FROM service_keys WHERE account_id = ${accountId}
            AND revoked_at IS NULL)::int4 AS api_keys`);
    },
  };
}
export type LimitQueries = ReturnType<typeof createLimitQueries>;

/**
 * API keys (table `service_keys`): scopes, spend cap, expiry, last use. Only the SHA-256 of a key is stored;
 * every query of a key filters by its account. Every create and revoke writes its event in the same transaction.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { generateServiceKey } from '../../domain/service-keys';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent } from './events';

export const ApiKeyRow = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  scopes: z.array(z.string()),
  spend_limit_micros: z.number().nullable(),
  spend_limit_period: z.enum(['day', 'month']).nullable(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type ApiKeyRow = z.infer<typeof ApiKeyRow>;

const COLUMNS = sql.fragment`id, account_id, name, key_prefix, scopes, spend_limit_micros, spend_limit_period,
  expires_at,
  last_used_at, created_at, revoked_at`;

/** `last_used_at` moves at most this often per key: a read per request, not a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface NewApiKey {
  name: string;
  scopes: readonly string[];
  spendLimit?: { micros: number; period: 'day' | 'month' };
  expiresAt?: string;
}

/** The start of the key's spend period (UTC day or month) containing `now`. */
export function spendPeriodStart(period: 'day' | 'month', now = new Date()): Date {
  return period === 'day'
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The event data of a key: its record, never the secret or its hash. */
function eventData(row: ApiKeyRow): Record<string, unknown> {
  return { id: row.id, name: row.name, key_prefix: row.key_prefix, scopes: row.scopes };
}

export function createApiKeyQueries(pool: Pool) {
  /** Charged spend of the key's instances since `from`, plus the next hour of its live instances (micros). */
  async function spendOf(conn: CommonQueryMethods, accountId: string, keyId: string, from: Date) {
    const row = await conn.one(sql.type(z.object({ charged: z.number(), live_hourly: z.number() }))`
      SELECT
        (SELECT COALESCE(-SUM(l.amount_micros), 0)::bigint FROM ledger_entries l
           JOIN instances i ON i.account_id = l.account_id AND COALESCE(i.provider_instance_id, i.id) = l.instance_id
          WHERE l.account_id = ${accountId} AND l.type IN ('instance_charge', 'instance_storage_charge')
            AND i.api_key_id = ${keyId}
            AND l.created_at >= ${from.toISOString()}) AS charged,
        (SELECT COALESCE(SUM(price_per_hour_micros), 0)::bigint FROM instances
          WHERE account_id = ${accountId} AND api_key_id = ${keyId} AND status NOT IN ('terminated', 'failed',
            'stopped')) AS live_hourly`);
    return { chargedMicros: Number(row.charged), liveHourlyMicros: Number(row.live_hourly) };
  }

  return {
    /**
     * Creates a key; the key text is returned once and never stored. `check` runs first in the same
     * transaction (the account's key limit, holding the account's lock).
     */
    async insertApiKey(
      accountId: string,
      key: NewApiKey,
      check?: (tx: CommonQueryMethods) => Promise<void>,
    ): Promise<{ row: ApiKeyRow; apiKey: string }> {
      const secret = generateServiceKey();
      return pool.transaction(async (tx) => {
        if (check) await check(tx);
        const row = await tx.one(sql.type(ApiKeyRow)`
          INSERT INTO service_keys (id, account_id, key_hash, key_prefix, name, scopes, spend_limit_micros,
            spend_limit_period, expires_at)
          VALUES (${newId('key')}, ${accountId}, ${secret.hash}, ${secret.displayPrefix}, ${key.name},
                  ${sql.array([...key.scopes], 'text')}, ${key.spendLimit?.micros ?? null},
                    ${key.spendLimit?.period ?? null},
                  ${key.expiresAt ?? null})
          RETURNING ${COLUMNS}`);
        await insertEvent(tx, {
          accountId,
          type: 'api_key.created',
          data: eventData(row),
          dedupeKey: `api_key.created:${row.id}`,
        });
        return { row, apiKey: secret.apiKey };
      });
    },

    /** The account's keys that are not revoked, newest first. */
    async listApiKeys(accountId: string): Promise<readonly ApiKeyRow[]> {
      return pool.any(sql.type(ApiKeyRow)`
        SELECT ${COLUMNS} FROM service_keys WHERE account_id = ${accountId} AND revoked_at IS NULL
          ORDER BY created_at DESC, id DESC`);
    },

    /** Revokes a live key of the account (its next request is 401, in every API process); null when none. */
    async revokeApiKey(accountId: string, id: string): Promise<ApiKeyRow | null> {
      return pool.transaction(async (tx) => {
        const row = await tx.maybeOne(sql.type(ApiKeyRow)`
          UPDATE service_keys SET revoked_at = now()
          WHERE account_id = ${accountId} AND id = ${id} AND revoked_at IS NULL RETURNING ${COLUMNS}`);
        if (row)
          await insertEvent(tx, {
            accountId,
            type: 'api_key.revoked',
            data: eventData(row),
            dedupeKey: `api_key.revoked:${row.id}`,
          });
        return row;
      });
    },

    /** The unrevoked key with this hash (expired ones too: the caller says why it refuses), or null. */
    async findKeyByHash(hash: string): Promise<ApiKeyRow | null> {
      return pool.maybeOne(
        sql.type(ApiKeyRow)`SELECT ${COLUMNS} FROM service_keys WHERE key_hash = ${hash} AND revoked_at IS NULL`,
      );
    },

    /** Moves `last_used_at` to now unless it moved within {@link LAST_USED_RESOLUTION_MS}. */
    async touchLastUsed(id: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE service_keys SET last_used_at = now()
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now()
          - make_interval(secs => ${LAST_USED_RESOLUTION_MS / 1000}))`);
    },

    /** The key's charged spend in its current period and the hourly price of its live instances (micros). */
    async spendInPeriod(key: Pick<ApiKeyRow, 'id' | 'account_id' | 'spend_limit_period'>, now = new Date()) {
      return spendOf(pool, key.account_id, key.id, spendPeriodStart(key.spend_limit_period ?? 'month', now));
    },

    /**
     * Charged spend in its current period (UTC day or month) of each of the account's capped keys `keyIds`, in
     * one statement however many keys the account has (micros by key id; a key without charges is 0).
     */
    async chargedInPeriodByKey(accountId: string, keyIds: readonly string[]): Promise<Map<string, number>> {
      if (keyIds.length === 0) return new Map();
      const rows = await pool.any(sql.type(z.object({ id: z.string(), charged: z.number() }))`
        SELECT k.id, coalesce(-sum(l.amount_micros), 0)::int8 AS charged
        FROM service_keys k
        LEFT JOIN instances i ON i.account_id = k.account_id AND i.api_key_id = k.id
        LEFT JOIN ledger_entries l ON l.account_id = k.account_id AND l.type = 'instance_charge'
          AND l.instance_id = coalesce(i.provider_instance_id, i.id)
          AND l.created_at >= date_trunc(coalesce(k.spend_limit_period, 'month'), now(), 'UTC')
        WHERE k.account_id = ${accountId} AND k.id = ANY(${sql.array([...keyIds], 'text')})
        GROUP BY k.id`);
      return new Map(rows.map((r) => [r.id, r.charged]));
    },
  };
}
export type ApiKeyQueries = ReturnType<typeof createApiKeyQueries>;

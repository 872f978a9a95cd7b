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
  /** The key that made this one (null: the account's first key, or made before key families were recorded). */
  parent_key_id: z.string().nullable(),
  /** Every key above this one, the first key first: their caps cover this key's spend too. */
  ancestor_ids: z.array(z.string()),
});
export type ApiKeyRow = z.infer<typeof ApiKeyRow>;

const COLUMNS = sql.fragment`id, account_id, name, key_prefix, scopes, spend_limit_micros, spend_limit_period,
  expires_at, last_used_at, created_at, revoked_at, parent_key_id, ancestor_ids`;

/** `last_used_at` moves at most this often per key: a read per request, not a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface NewApiKey {
  /** The key making it: the new key joins its family (its caps and the caps above it cover the new key's spend). */
  maker?: Pick<ApiKeyRow, 'id' | 'ancestor_ids'>;
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

/**
 * For each key of `keyIds`, the spend its cap is measured against: what the instances of the key and of every
 * key made under it were charged in the key's current period (UTC day or month; compute and storage), and the
 * next hour of their live instances (a stopped instance: its storage). One statement for any number of keys.
 */
export async function readFamilySpend(
  conn: CommonQueryMethods,
  accountId: string,
  keyIds: readonly string[],
): Promise<Map<string, { chargedMicros: number; liveHourlyMicros: number }>> {
  if (keyIds.length === 0) return new Map<string, { chargedMicros: number; liveHourlyMicros: number }>();
  const rows = await conn.any(sql.type(z.object({ id: z.string(), charged: z.number(), live_hourly: z.number() }))`
    SELECT k.id, coalesce(c.charged, 0)::int8 AS charged, coalesce(h.live_hourly, 0)::int8 AS live_hourly
    FROM service_keys k
    LEFT JOIN LATERAL (
      SELECT -sum(l.amount_micros) AS charged
      FROM service_keys d
      JOIN instances i ON i.account_id = d.account_id AND i.api_key_id = d.id
      JOIN ledger_entries l ON l.account_id = i.account_id AND l.instance_id = coalesce(i.provider_instance_id, i.id)
        AND l.type IN ('instance_charge', 'instance_storage_charge')
        AND l.created_at >= date_trunc(coalesce(k.spend_limit_period, 'month'), now(), 'UTC')
      WHERE d.account_id = k.account_id AND (d.id = k.id OR k.id = ANY(d.ancestor_ids))) c ON true
    LEFT JOIN LATERAL (
      SELECT sum(CASE WHEN i.status = 'stopped' THEN coalesce(i.storage_per_hour_micros, 0)
                      ELSE coalesce(i.price_per_hour_micros, i.quote_per_hour_micros, 0) END) AS live_hourly
      FROM service_keys d JOIN instances i ON i.account_id = d.account_id AND i.api_key_id = d.id
      WHERE d.account_id = k.account_id AND (d.id = k.id OR k.id = ANY(d.ancestor_ids))
        AND i.status IN ('provisioning', 'running', 'stopping', 'terminating', 'unknown', 'stopped')) h ON true
    WHERE k.account_id = ${accountId} AND k.id = ANY(${sql.array([...keyIds], 'text')})`);
  return new Map(rows.map((r) => [r.id, { chargedMicros: r.charged, liveHourlyMicros: r.live_hourly }]));
}

export function createApiKeyQueries(pool: Pool) {
  const familySpend = readFamilySpend;

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
            spend_limit_period, expires_at, parent_key_id, ancestor_ids)
          VALUES (${newId('key')}, ${accountId}, ${secret.hash}, ${secret.displayPrefix}, ${key.name},
                  ${sql.array([...key.scopes], 'text')}, ${key.spendLimit?.micros ?? null},
                  ${key.spendLimit?.period ?? null},
                  ${key.expiresAt ?? null}, ${key.maker?.id ?? null},
                  ${sql.array(key.maker ? [...key.maker.ancestor_ids, key.maker.id] : [], 'text')})
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
        WHERE id = ${id}
          AND (last_used_at IS NULL
            OR last_used_at < now() - make_interval(secs => ${LAST_USED_RESOLUTION_MS / 1000}))`);
    },

    /**
     * The spend the key's cap is measured against (its own and its family's: see `familySpend`): charged in its
     * current period and the hourly price of their live instances (micros).
     */
    async spendInPeriod(key: Pick<ApiKeyRow, 'id' | 'account_id'>) {
      return (
        (await familySpend(pool, key.account_id, [key.id])).get(key.id) ?? { chargedMicros: 0, liveHourlyMicros: 0 }
      );
    },

    /**
     * The spend of each of the account's keys `keyIds` in its current period, in one statement however many
     * keys the account has (by key id; see `familySpend`).
     */
    async spendInPeriodByKey(accountId: string, keyIds: readonly string[]) {
      return familySpend(pool, accountId, keyIds);
    },

    /**
     * What the caps over `key` leave this period: for the key and every capped key above it, its cap less the
     * family's charged spend and the next hour of its live instances; the least of them (micros), with the key
     * it belongs to. Null when no cap covers the key.
     */
    async capRoom(key: Pick<ApiKeyRow, 'id' | 'account_id' | 'ancestor_ids'>) {
      const caps = await pool.any(sql.type(z.object({ id: z.string(), name: z.string(), limit: z.number() }))`
        SELECT id, name, spend_limit_micros AS limit FROM service_keys
        WHERE account_id = ${key.account_id} AND spend_limit_micros IS NOT NULL
          AND (id = ${key.id} OR id = ANY(${sql.array([...key.ancestor_ids], 'text')}))`);
      const spend = await familySpend(
        pool,
        key.account_id,
        caps.map((c) => c.id),
      );
      let least: { keyId: string; name: string; roomMicros: number } | null = null;
      for (const c of caps) {
        const s = spend.get(c.id) ?? { chargedMicros: 0, liveHourlyMicros: 0 };
        const roomMicros = c.limit - s.chargedMicros - s.liveHourlyMicros;
        if (!least || roomMicros < least.roomMicros) least = { keyId: c.id, name: c.name, roomMicros };
      }
      return least;
    },
  };
}
export type ApiKeyQueries = ReturnType<typeof createApiKeyQueries>;

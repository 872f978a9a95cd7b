/**
 * Reads of instance rows: one instance by our id, the provider's id or its tagged name; an account's live,
 * all and ended instances; and the ledger side of one instance for its record.
 */
import { z } from 'zod';
import { PROVIDERS, type ProviderId } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { INSTANCE_COLUMNS as COLUMNS, EndedInstanceRow, InstanceRow } from './instance-row';
import { type LedgerEntry, LedgerEntryRow } from './ledger';
import type { Page, PageRequest } from './paging';

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

export function createInstanceReadQueries(pool: Pool) {
  return {
    async findById(id: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`SELECT ${COLUMNS} FROM instances WHERE id = ${id}`);
    },

    async findByProviderId(accountId: string, providerInstanceId: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId}
          AND provider_instance_id = ${providerInstanceId}
        ORDER BY created_at DESC LIMIT 1`);
    },

    async findByProviderName(accountId: string, provider: string, providerName: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId} AND provider = ${provider}
          AND provider_name = ${providerName}
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
          (SELECT coalesce(price_per_hour_micros, quote_per_hour_micros) FROM instances WHERE
            id = ${row.id}) AS meter_price_micros
        FROM ledger_entries l WHERE l.account_id = ${accountId} AND l.instance_id = ${instanceId}`);
      const charges = await pool.any(sql.type(LedgerEntryRow)`
        SELECT id, seq, account_id, type, amount_micros, balance_after_micros, description, instance_id,
          idempotency_key, created_at
        FROM ledger_entries WHERE account_id = ${accountId} AND instance_id = ${instanceId} ORDER BY seq DESC
          LIMIT ${limit}`);
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
        WHERE i.account_id = ${accountId} AND i.status IN ('terminated', 'failed')
          AND i.provider_instance_id IS NOT NULL
          AND ${
            after
              ? sql.fragment`(date_trunc('milliseconds', i.created_at),
            i.id) < (${after.createdAt}::timestamptz, ${after.id})`
              : sql.fragment`true`
          }
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
  };
}

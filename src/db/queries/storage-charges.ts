/**
 * The storage a stopped instance keeps at its provider (a RunPod pod's volume), charged by the hour as
 * `instance_storage_charge` while the instance is `stopped`: from the moment it stopped (its `metered_through`)
 * or the last storage charge, whichever is later, so a start and a later stop never charge the running time twice.
 */
import { z } from 'zod';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { createLedgerQueries } from './ledger';

/** Hours in a storage month: providers' GB-month prices are billed per hour at 1/730 of the month. */
export const HOURS_PER_STORAGE_MONTH = 730;

/** The hourly price, in micro-dollars, of keeping `gb` GB at `perGbMonthMicros` a GB-month. */
export function storagePerHourMicros(gb: number, perGbMonthMicros: number): number {
  return Math.round((gb * perGbMonthMicros) / HOURS_PER_STORAGE_MONTH);
}

const StoppedRow = z.object({
  account_id: z.string(),
  status: z.string(),
  provider: z.string(),
  provider_instance_id: z.string().nullable(),
  metered_through_ms: z.number().nullable(),
  storage_charged_through_ms: z.number().nullable(),
});

const ms = (column: string) => sql.fragment`trunc(extract(epoch FROM ${sql.identifier([column])}) * 1000)::float8`;

export function createStorageChargeQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);
  return {
    /**
     * Charges a stopped instance's storage up to `through` at `perHourMicros` (kept on the row: it counts in the
     * burn while the instance stays stopped), exactly once per interval (the ledger key names it). Does nothing
     * to an instance that is neither `stopped` nor being terminated from a stop.
     */
    async chargeStoredThrough(
      id: string,
      through: Date,
      perHourMicros: number,
    ): Promise<{ chargedMicros: number; accountId: string | null }> {
      return pool.transaction(async (tx) => {
        const row = await tx.maybeOne(sql.type(StoppedRow)`
          SELECT account_id, status, provider, provider_instance_id,
            ${ms('metered_through')} AS metered_through_ms,
              ${ms('storage_charged_through')} AS storage_charged_through_ms
          FROM instances WHERE id = ${id} FOR UPDATE`);
        // Stopped, or being terminated after a stop (its storage has been charged since the stop, which a start
        // would have moved `metered_through` past).
        const keeping =
          row &&
          (row.status === 'stopped' ||
            (row.status === 'terminating' &&
              row.storage_charged_through_ms !== null &&
              row.metered_through_ms !== null &&
              row.storage_charged_through_ms >= row.metered_through_ms));
        if (!row || !keeping) return { chargedMicros: 0, accountId: row?.account_id ?? null };
        const to = through.getTime();
        const from = Math.max(row.metered_through_ms ?? to, row.storage_charged_through_ms ?? 0);
        const amount = to > from ? Math.round((perHourMicros * (to - from)) / 3_600_000) : 0;
        if (amount > 0) {
          await ledger.postEntry(
            {
              accountId: row.account_id,
              type: 'instance_storage_charge',
              amountMicros: -amount,
              description:
                `storage of the stopped ${row.provider} instance, ` +
                `${new Date(from).toISOString()} – ${through.toISOString()}, ` +
                `at $${(perHourMicros / 1_000_000).toFixed(6)}/h`,
              instanceId: row.provider_instance_id ?? id,
              idempotencyKey: `storage:${id}:${to}`,
            },
            tx,
          );
        }
        await tx.query(sql.typeAlias('void')`
          UPDATE instances SET storage_per_hour_micros = ${perHourMicros},
            storage_charged_through = greatest(coalesce(storage_charged_through, ${through.toISOString()}),
              ${through.toISOString()}),
            updated_at = now()
          WHERE id = ${id}`);
        return { chargedMicros: amount, accountId: row.account_id };
      });
    },
  };
}
export type StorageChargeQueries = ReturnType<typeof createStorageChargeQueries>;

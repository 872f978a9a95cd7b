/** Charging a running instance's elapsed time to the account's ledger. */
import { z } from 'zod';
import { chargeForElapsed } from '../../domain/money';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { INSTANCE_COLUMNS as COLUMNS, InstanceRow } from './instance-row';
import { createLedgerQueries } from './ledger';

export function createInstanceChargeQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);
  return {
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
                `${row.gpu_count}× ${row.gpu_type} on ${row.provider}, ` +
                `${new Date(from).toISOString()} – ${through.toISOString()}, ` +
                `at $${(price / 1_000_000).toFixed(6).replace(/0{1,4}$/, '')}/h (${priceSource})`,
              instanceId: row.provider_instance_id ?? row.id,
              idempotencyKey: `charge:${id}:${to}`,
            },
            tx,
          );
        const updated = await tx.one(sql.type(InstanceRow)`
          UPDATE instances SET metered_through = ${through.toISOString()}, updated_at = now() WHERE id = ${id}
            RETURNING ${COLUMNS}`);
        return { chargedMicros: amount, row: updated };
      });
    },
  };
}

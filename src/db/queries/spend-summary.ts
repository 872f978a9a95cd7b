/**
 * `GET /v1/billing/summary`: where the money stands and where it goes, read in one snapshot so every figure
 * agrees with the ledger to the micro-dollar (balance = the last entry's balance_after; month to date = the
 * sum of this month's instance charges; uncharged = what the next charges will post).
 */
import { z } from 'zod';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { readSpendFigures } from './admission';

export interface SpendSummary {
  balanceMicros: number;
  unchargedMicros: number;
  availableMicros: number;
  burnPerHourMicros: number;
  /** available / burn, hours; null with nothing burning. */
  runwayHours: number | null;
  /** When available reaches zero at the current burn; null with nothing burning. */
  depletesAt: string | null;
  /** Instance charges posted since the start of this UTC month. */
  monthToDateSpendMicros: number;
  /** Month to date + uncharged + burn until the end of the month. */
  forecastMonthSpendMicros: number;
  liveInstances: number;
}

export async function readSpendSummary(pool: Pool, accountId: string): Promise<SpendSummary> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    const spend = await readSpendFigures(tx, accountId);
    const month = await tx.one(sql.type(z.object({ spent: z.number(), month_end: z.string(), live: z.number() }))`
      SELECT
        (SELECT coalesce(-sum(amount_micros), 0)::bigint FROM ledger_entries
          WHERE account_id = ${accountId} AND type IN ('instance_charge', 'instance_storage_charge')
            AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS spent,
        ((date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC')::text AS month_end,
        (SELECT count(*)::int FROM instances
          WHERE account_id = ${accountId} AND status IN ('provisioning', 'running', 'stopping', 'terminating',
            'unknown')) AS live`);
    const availableMicros = spend.balanceMicros - spend.unchargedMicros;
    const burn = spend.burnPerHourMicros;
    const hoursLeftInMonth = Math.max(0, Date.parse(month.month_end) - spend.nowMs) / 3_600_000;
    const runwayHours = burn > 0 ? Math.max(0, availableMicros) / burn : null;
    return {
      balanceMicros: spend.balanceMicros,
      unchargedMicros: spend.unchargedMicros,
      availableMicros,
      burnPerHourMicros: burn,
      runwayHours: runwayHours === null ? null : Math.floor(runwayHours * 100) / 100,
      depletesAt: runwayHours === null ? null : new Date(spend.nowMs + runwayHours * 3_600_000).toISOString(),
      monthToDateSpendMicros: month.spent,
      forecastMonthSpendMicros: month.spent + spend.unchargedMicros + Math.round(burn * hoursLeftInMonth),
      liveInstances: month.live,
    };
  });
}

/**
 * The spend workflow's one look at an account ("depletion is a moment"): balance, uncharged
 * usage and the burn of what accrues now, and the episode bookkeeping that makes each balance event happen once.
 * Everything happens in one transaction holding the account's balance row lock (the lock every ledger entry
 * takes), so a charge or a credit cannot slip between the reading and the decision.
 *
 * - A depletion episode opens when `available = balance − uncharged` is at or below zero: `depleted_at` is set
 *   and `billing.balance_depleted` written (unless a ledger entry crossing zero opened it first, see
 *   `ledger.ts`); it closes when a credit lifts `available` above zero. The grace period runs from `depleted_at`.
 * - `billing.balance_low` once when the runway (available / burn) is under the low-runway setting (24 h);
 *   again only after it recovered above it (or nothing burned any more); never after a depletion of the episode.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { microsToDollars } from '../../domain/money';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { BURNING_STATUSES, readSpendFigures } from './admission';
import { insertEvent } from './events';

export interface SpendReview {
  balanceMicros: number;
  unchargedMicros: number;
  /** balance − uncharged: reaches zero at the depletion moment. */
  availableMicros: number;
  /**
   * Hourly price of the live instances that accrue usage now (started, in a burning status): the rate at which
   * `available` falls. Instances still provisioning start accruing when they start (which signals the workflow).
   */
  accruingBurnMicros: number;
  /** Managed instances in a live status (provisioning, running, stopping, terminating, unknown). */
  liveInstances: number;
  /** How long ago the open depletion episode began (the grace runs from there); null when none is open. */
  depletedForMs: number | null;
  /** `billing.balance_low` was written for the current low-runway episode. */
  lowNotified: boolean;
}

const Lock = z.object({ depleted_ms: z.number().nullable(), low_notified: z.boolean(), now_ms: z.number() });
const Accrual = z.object({ accruing: z.number(), live: z.number() });

const burning = () => sql.array([...BURNING_STATUSES], 'text');

/** Milliseconds from a moment until the available balance reaches zero at `burn`; null when nothing burns. */
export function msUntilDepleted(availableMicros: number, burnPerHourMicros: number): number | null {
  if (burnPerHourMicros <= 0) return null;
  if (availableMicros <= 0) return 0;
  return Math.ceil((availableMicros * 3_600_000) / burnPerHourMicros);
}

async function lockAccount(tx: CommonQueryMethods, accountId: string) {
  await tx.query(sql.typeAlias('void')`
    INSERT INTO account_balances (account_id) VALUES (${accountId}) ON CONFLICT (account_id) DO NOTHING`);
  return tx.one(sql.type(Lock)`
    SELECT trunc(extract(epoch FROM depleted_at) * 1000)::float8 AS depleted_ms,
      low_balance_notified_at IS NOT NULL AS low_notified,
      trunc(extract(epoch FROM now()) * 1000)::float8 AS now_ms
    FROM account_balances WHERE account_id = ${accountId} FOR UPDATE`);
}

/**
 * Reads the account's spend and opens or closes its depletion and low-runway episodes, writing each event once.
 * `graceMs` only words the event (`grace_ends_at`); `lowRunwayMs` is BALANCE_LOW_RUNWAY.
 */
export async function reviewAccountSpend(
  pool: Pool,
  accountId: string,
  settings: { graceMs: number; lowRunwayMs: number },
): Promise<SpendReview> {
  return pool.transaction(async (tx) => {
    const lock = await lockAccount(tx, accountId);
    const spend = await readSpendFigures(tx, accountId);
    const accrual = await tx.one(sql.type(Accrual)`
      SELECT coalesce(sum(coalesce(price_per_hour_micros, quote_per_hour_micros, 0))
               FILTER (WHERE started_at IS NOT NULL AND metered_through IS NOT NULL), 0)::bigint
        + (SELECT coalesce(sum(storage_per_hour_micros), 0) FROM instances WHERE account_id = ${accountId} AND
          status = 'stopped')::bigint AS accruing,
        count(*)::int4 AS live
      FROM instances WHERE account_id = ${accountId} AND status = ANY(${burning()})`);
    const nowMs = lock.now_ms;
    const availableMicros = spend.balanceMicros - spend.unchargedMicros;
    const burn = accrual.accruing;
    const figures = {
      balance: microsToDollars(spend.balanceMicros),
      available: microsToDollars(availableMicros),
      uncharged: microsToDollars(spend.unchargedMicros),
      burn_rate_per_hour: microsToDollars(burn),
    };

    const untilZero = msUntilDepleted(availableMicros, burn);
    let lowNotified = lock.low_notified;
    if (untilZero !== null && untilZero < settings.lowRunwayMs && !lowNotified) {
      lowNotified = true;
      await tx.query(
        sql.typeAlias(
          'void',
        )`UPDATE account_balances SET low_balance_notified_at = now() WHERE account_id = ${accountId}`,
      );
      // Already depleted (a ledger entry crossing zero noticed first): a low warning after it would say less, late.
      if (lock.depleted_ms === null) {
        await insertEvent(tx, {
          accountId,
          type: 'billing.balance_low',
          data: {
            ...figures,
            hours_left: Math.floor((untilZero / 3_600_000) * 100) / 100,
            depletes_at: new Date(nowMs + untilZero).toISOString(),
          },
          dedupeKey: `billing.balance_low:episode:${nowMs}`,
        });
      }
    } else if ((untilZero === null || untilZero >= settings.lowRunwayMs) && lowNotified) {
      lowNotified = false;
      await tx.query(
        sql.typeAlias(
          'void',
        )`UPDATE account_balances SET low_balance_notified_at = NULL WHERE account_id = ${accountId}`,
      );
    }

    let depletedMs = lock.depleted_ms;
    if (availableMicros <= 0 && depletedMs === null) {
      depletedMs = nowMs;
      await tx.query(
        sql.typeAlias('void')`UPDATE account_balances SET depleted_at = now() WHERE account_id = ${accountId}`,
      );
      await insertEvent(tx, {
        accountId,
        type: 'billing.balance_depleted',
        data: {
          ...figures,
          depleted_at: new Date(nowMs).toISOString(),
          grace_ends_at: new Date(nowMs + settings.graceMs).toISOString(),
        },
        dedupeKey: `billing.balance_depleted:episode:${nowMs}`,
      });
    } else if (availableMicros > 0 && depletedMs !== null) {
      depletedMs = null;
      await tx.query(
        sql.typeAlias('void')`UPDATE account_balances SET depleted_at = NULL WHERE account_id = ${accountId}`,
      );
    }

    return {
      balanceMicros: spend.balanceMicros,
      unchargedMicros: spend.unchargedMicros,
      availableMicros,
      accruingBurnMicros: burn,
      liveInstances: accrual.live,
      depletedForMs: depletedMs === null ? null : Math.max(0, nowMs - depletedMs),
      lowNotified,
    };
  });
}

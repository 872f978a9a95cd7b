/**
 * The spend workflow's side effects: its look at the account (which writes `billing.balance_low` and
 * `billing.balance_depleted` once per episode), the live instances it ends, and the hook every point that moves
 * an account's burn or balance calls to tell it (instance started or ended, charge posted).
 */
import { z } from 'zod';
import { reviewAccountSpend, type SpendReview } from '../src/db/queries/depletion';
import { createStorageChargeQueries, storagePerHourMicros } from '../src/db/queries/storage-charges';
import { sql } from '../src/db/sql';
import { type ProviderId, PROVIDERS } from '../src/providers/types';
import type { SpendChange } from '../workflows/contracts/billing';
import { announceChargesToAlertMonitor } from './alerts';
import type { ActivityDeps } from './deps';

/** RunPod's price for a stopped pod's volume when the deps name none: $0.20 a GB-month. */
export const DEFAULT_RUNPOD_STOPPED_STORAGE_PER_GB_MONTH_MICROS = 200_000;

const LiveInstance = z.object({ id: z.string(), provider: z.enum(PROVIDERS) });

export function createBillingActivities(deps: ActivityDeps) {
  const storage = createStorageChargeQueries(deps.pool);
  const spend = createSpendWatch(deps);
  return {
    /**
     * Charges a stopped pod's kept storage (`volumeGb`) up to `throughMs` at RunPod's stopped-storage price; the
     * first call at the stop moment charges nothing and starts its storage counting in the burn. Does nothing
     * to an instance that is no longer stopped.
     */
    async chargeStoppedStorage(id: string, throughMs: number, volumeGb: number): Promise<{ chargedMicros: number }> {
      const perGbMonth =
        deps.stoppedStorage?.runpodPerGbMonthMicros ?? DEFAULT_RUNPOD_STOPPED_STORAGE_PER_GB_MONTH_MICROS;
      const { chargedMicros, accountId } = await storage.chargeStoredThrough(
        id,
        new Date(throughMs),
        storagePerHourMicros(volumeGb, perGbMonth),
      );
      if (chargedMicros > 0) await announceChargesToAlertMonitor(deps, accountId);
      if (accountId) await spend.changed(accountId, 'charge');
      return { chargedMicros };
    },

    /** Balance, uncharged usage, burn and the account's depletion and low-runway episodes (see `depletion.ts`). */
    async reviewAccountSpend(
      accountId: string,
      settings: { graceMs: number; lowRunwayMs: number },
    ): Promise<SpendReview> {
      return reviewAccountSpend(deps.pool, accountId, settings);
    },

    /**
     * The account's ledger balance: what runs of `balanceDepletion` started before the spend watcher read
     * (workflows/balance-depletion.ts `graceOnlyRun`). Kept while any such run may be open.
     */
    async getBalanceMicros(accountId: string): Promise<number> {
      return deps.queries.ledger.getBalance(accountId);
    },

    /** The account's managed instances that are (or are about to be) running: these cost money. */
    async listLiveManagedInstances(accountId: string): Promise<{ id: string; provider: ProviderId }[]> {
      const rows = await deps.pool.any(sql.type(LiveInstance)`
        SELECT id, provider FROM instances
        WHERE account_id = ${accountId} AND status IN ('provisioning', 'running', 'unknown')
        ORDER BY created_at`);
      return [...rows];
    },
  };
}

/**
 * Tells the account's spend workflow that its burn or balance moved (starting it when it is not running).
 * Idempotent, so a retried activity calls it again safely; a failure fails the calling activity, which Temporal
 * retries. Without that port in the deps (tests that give the worker no Temporal client) it does nothing.
 */
export function createSpendWatch(deps: ActivityDeps) {
  return {
    async changed(accountId: string, cause: SpendChange['cause']): Promise<void> {
      await deps.workflows.watchAccountSpend?.(accountId, { cause });
    },
  };
}

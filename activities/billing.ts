/**
 * Balance enforcement's side effects: what the depletion workflow reads (balance, live instances) and the
 * hook metering calls after every charge, which starts that workflow when the balance is at or below zero.
 */
import { z } from 'zod';
import { createLedgerQueries } from '../src/db/queries/ledger';
import { sql } from '../src/db/sql';
import type { ProviderId } from '../src/providers/types';
import { createBillingClient } from '../src/workflow-clients/billing';
import type { ActivityDeps } from './index';

/** Default grace period between a depleted balance and ending the account's instances. */
export const DEFAULT_BALANCE_GRACE_MS = 30 * 60_000;

const LiveInstance = z.object({ id: z.string(), provider: z.enum(['runpod', 'vastai', 'lambda']) });

export function createBillingActivities(deps: ActivityDeps) {
  const ledger = createLedgerQueries(deps.pool);
  return {
    async getBalanceMicros(accountId: string): Promise<number> {
      return ledger.getBalance(accountId);
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
 * Called by metering after each charge (`chargeInstance`): when the balance is at or below zero, the
 * account's depletion workflow is started, or signalled if it already runs. Idempotent, so a retried charge
 * activity calls it again safely. Without a Temporal client in the deps (some tests) it does nothing.
 */
export function createBalanceWatch(deps: ActivityDeps) {
  const ledger = createLedgerQueries(deps.pool);
  return {
    async afterCharge(accountId: string): Promise<void> {
      if (!deps.temporal) return;
      if ((await ledger.getBalance(accountId)) > 0) return;
      await createBillingClient(deps.temporal).watchDepletedBalance(accountId, deps.balanceGraceMs ?? DEFAULT_BALANCE_GRACE_MS);
    },
  };
}

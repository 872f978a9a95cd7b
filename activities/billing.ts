/**
 * Balance enforcement's side effects: what the depletion workflow reads (balance, live instances) and the
 * hook metering calls after every charge, which starts that workflow when the balance is at or below zero.
 */
import { z } from 'zod';
import { sql } from '../src/db/sql';
import { type ProviderId, PROVIDERS } from '../src/providers/types';
import type { ActivityDeps } from './deps';

const LiveInstance = z.object({ id: z.string(), provider: z.enum(PROVIDERS) });

export function createBillingActivities(deps: ActivityDeps) {
  const { ledger } = deps.queries;
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
 * activity calls it again safely. Without that port in the deps (some tests) it does nothing.
 */
export function createBalanceWatch(deps: ActivityDeps) {
  const { ledger } = deps.queries;
  return {
    async afterCharge(accountId: string): Promise<void> {
      if (!deps.workflows.watchDepletedBalance) return;
      if ((await ledger.getBalance(accountId)) > 0) return;
      await deps.workflows.watchDepletedBalance(accountId);
    },
  };
}

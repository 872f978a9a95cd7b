/**
 * Side effects of the alert monitor: the set-based evaluation, delivering stop requests to the instances'
 * launch workflows, and signalling the monitor from other workflows' activities (through the deps' ports).
 */
import { Context } from '@temporalio/activity';
import type { EvaluationResult } from '../src/db/queries/alerts';
import type { AlertsDue } from '../workflows/contracts/alerts';
import type { ActivityDeps } from './deps';

const DELIVERY_BATCH = 200;
const DELIVERY_PARALLELISM = 16;

/**
 * Tells the monitor that charges of `accountId` landed, from inside the charge activity, when the account has
 * something a charge can trigger: an active `budget_limit` alert or a spend-capped key. Other accounts' charges
 * trigger nothing, so they cost no evaluation (an evaluation reads every account's month). Best effort on purpose:
 * a failure here must never hold up metering or a stop (the monitor evaluates budgets every observation
 * interval anyway, which also covers a budget made just after this look).
 */
export async function announceChargesToAlertMonitor(deps: ActivityDeps, accountId: string | null): Promise<void> {
  try {
    // Unknown account, or the look failed: told anyway (an evaluation too many costs less than one missed).
    const watched = accountId === null || (await deps.queries.alerts.spendWatched(accountId).catch(() => true));
    if (!watched) return;
    await deps.workflows.notifyAlertMonitor({ budget: true });
  } catch (err) {
    deps.logger.warn('could not signal the alert monitor; budgets are evaluated at its next tick', { err });
  }
}

export function createAlertActivities(deps: ActivityDeps) {
  const { alerts } = deps.queries;
  return {
    async evaluateAlerts(kinds: { price: boolean; budget: boolean }): Promise<EvaluationResult> {
      const result = await alerts.evaluate(kinds);
      if (result.priceTriggered + result.budgetTriggered > 0)
        deps.logger.info('alerts triggered', { ...kinds, ...result });
      return result;
    },

    /**
     * Signals every pending stop request to its instance's launch workflow (`endInstance`), then marks it
     * delivered. A workflow that has already finished has nothing left to end and counts as delivered.
     * Throws (and is retried) while the engine cannot be reached.
     */
    async deliverAlertStopRequests(): Promise<{ delivered: number }> {
      const ctx = Context.current();
      let delivered = 0;
      for (;;) {
        const batch = await alerts.findPendingStopRequests(DELIVERY_BATCH);
        if (batch.length === 0) return { delivered };
        const failures: unknown[] = [];
        for (let i = 0; i < batch.length; i += DELIVERY_PARALLELISM) {
          const slice = batch.slice(i, i + DELIVERY_PARALLELISM);
          const outcomes = await Promise.allSettled(
            slice.map((r) => deps.workflows.requestInstanceEnd(r.instance_id, { action: r.action, reason: r.reason })),
          );
          const done = slice.filter((_, k) => outcomes[k]!.status === 'fulfilled');
          failures.push(...outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : [])));
          await alerts.markStopRequestsDelivered(done);
          delivered += done.length;
          ctx.heartbeat(delivered);
        }
        // One failing request must not hold back the others: those are marked; this attempt fails (and is
        // retried) for the rest.
        if (failures.length > 0) throw failures[0];
      }
    },

    /** Signal-with-start: the monitor runs from here on even if nobody started it. */
    async notifyAlertMonitor(due: AlertsDue): Promise<void> {
      await deps.workflows.notifyAlertMonitor(due);
    },
  };
}

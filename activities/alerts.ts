/**
 * Side effects of the alert monitor: the set-based evaluation, delivering stop requests to the instances'
 * launch workflows, and signalling the monitor from other workflows' activities.
 */
import { Context } from '@temporalio/activity';
import { createAlertQueries, type EvaluationResult } from '../src/db/queries/alerts';
import { createInstanceQueries } from '../src/db/queries/instances';
import { createAlertMonitorClient, type AlertMonitorSettings } from '../src/workflow-clients/alerts';
import { createInstanceClient } from '../src/workflow-clients/instances';
import type { AlertsDue } from '../workflows/alert-monitor';
import type { ActivityDeps } from './index';

/** Production defaults when the worker's deps name no monitor (5 min tick, id `alert-monitor`). */
const DEFAULT_MONITOR: AlertMonitorSettings = { tickMs: 5 * 60_000 };
const DELIVERY_BATCH = 200;
const DELIVERY_PARALLELISM = 16;

function monitorClient(deps: ActivityDeps) {
  const ctx = Context.current();
  return createAlertMonitorClient({ client: ctx.client, taskQueue: ctx.info.taskQueue, settings: deps.alertMonitor ?? DEFAULT_MONITOR });
}

/**
 * Tells the monitor that charges landed, from inside the charge activity. Best effort on purpose: a failure
 * here must never hold up metering or a stop (the monitor's periodic tick evaluates budgets anyway).
 */
export async function announceChargesToAlertMonitor(deps: ActivityDeps): Promise<void> {
  try {
    await monitorClient(deps).notify({ budget: true });
  } catch (err) {
    deps.logger.warn('could not signal the alert monitor; budgets are evaluated at its next tick', { err });
  }
}

export function createAlertActivities(deps: ActivityDeps) {
  const alerts = createAlertQueries(deps.pool);
  const instances = createInstanceQueries(deps.pool);
  return {
    async evaluateAlerts(kinds: { price: boolean; budget: boolean }): Promise<EvaluationResult> {
      const result = await alerts.evaluate(kinds);
      if (result.priceTriggered + result.budgetTriggered > 0) deps.logger.info('alerts triggered', { ...kinds, ...result });
      return result;
    },

    /**
     * Signals every pending stop request to its instance's launch workflow (`endInstance`), then marks it
     * delivered. A workflow that has already finished has nothing left to end and counts as delivered.
     * Throws (and is retried) while the engine cannot be reached.
     */
    async deliverAlertStopRequests(): Promise<{ delivered: number }> {
      const ctx = Context.current();
      const workflows = createInstanceClient({ temporal: { client: ctx.client, taskQueue: ctx.info.taskQueue }, instances });
      let delivered = 0;
      for (;;) {
        const batch = await alerts.findPendingStopRequests(DELIVERY_BATCH);
        if (batch.length === 0) return { delivered };
        const failures: unknown[] = [];
        for (let i = 0; i < batch.length; i += DELIVERY_PARALLELISM) {
          const slice = batch.slice(i, i + DELIVERY_PARALLELISM);
          const outcomes = await Promise.allSettled(slice.map((r) => workflows.requestEnd(r.instance_id, { action: r.action, reason: r.reason })));
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
      await monitorClient(deps).notify(due);
    },
  };
}

import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  alertMonitorStatsQuery,
  alertsDueSignal,
  DEFAULT_BUDGET_TICK_MS,
  type AlertMonitorInput,
  type AlertMonitorStats,
} from './contracts/alerts';

/** Budgets and key caps evaluated every `budgetTickMs` (an observation interval), not only on charges. */
const BUDGET_TICK_PATCH = 'alert-monitor-budget-tick';

const { evaluateAlerts } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // Never gives up: a database outage only delays alerts.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const { deliverAlertStopRequests } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // A few quick attempts here; requests still pending are retried after every later evaluation (signal or
  // tick), so delivery goes on until each is delivered without one stuck request holding up evaluations.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/**
 * The alert monitor: one long-running workflow (id `alert-monitor`) that evaluates alerts set-based over all
 * accounts whenever prices or charges land (signals), and everything on a periodic tick as a safety net.
 * Budgets and key caps act on accrued spend, which grows between charges, so they are also evaluated every
 * `budgetTickMs` (the observation interval) without a signal; prices wait for their signal or the tick.
 * Stop requests that a triggered `stop_instances` alert wrote are delivered after the evaluation committed,
 * and redelivered on later turns while any is pending. Continues as new to keep its history bounded.
 */
export async function alertMonitor(input: AlertMonitorInput): Promise<void> {
  // A fresh monitor looks at everything once: it may have been down while prices or charges landed.
  let due = input.due ?? { price: true, budget: true };
  const stats: AlertMonitorStats = {
    evaluations: 0,
    priceTriggered: 0,
    budgetTriggered: 0,
    stopRequestsDelivered: 0,
    deliveryFailures: 0,
    ...input.stats,
  };
  setHandler(alertsDueSignal, (landed) => {
    due = { price: due.price || !!landed.price, budget: due.budget || !!landed.budget };
  });
  setHandler(alertMonitorStatsQuery, () => stats);

  const limit = input.continueAsNewAfter ?? 200;
  const budgetEvery = patched(BUDGET_TICK_PATCH)
    ? Math.min(input.budgetTickMs ?? DEFAULT_BUDGET_TICK_MS, input.tickMs)
    : null;
  let fullTickAt = Date.now() + input.tickMs;
  for (let turn = 0; ; turn++) {
    const wait = budgetEvery === null ? input.tickMs : Math.max(1, Math.min(budgetEvery, fullTickAt - Date.now()));
    const signalled = await condition(() => due.price || due.budget, wait);
    let kinds = due;
    if (!signalled) {
      const full = budgetEvery === null || Date.now() >= fullTickAt;
      kinds = full ? { price: true, budget: true } : { price: due.price, budget: true };
      if (full) fullTickAt = Date.now() + input.tickMs;
    }
    due = { price: false, budget: false };
    const result = await evaluateAlerts(kinds);
    stats.evaluations++;
    stats.priceTriggered += result.priceTriggered;
    stats.budgetTriggered += result.budgetTriggered;
    if (result.pendingStopRequests > 0) {
      try {
        stats.stopRequestsDelivered += (await deliverAlertStopRequests()).delivered;
      } catch {
        stats.deliveryFailures++;
      }
    }
    if (turn + 1 >= limit || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof alertMonitor>({ ...input, due, stats });
    }
  }
}

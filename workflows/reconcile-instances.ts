import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReconcileReport, ReconcileSummary } from './contracts/maintenance';

const { listReconciliationTargets, reconcileAccountProvider } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** How many (account, provider) pairs are looked at at once. */
const PARALLEL = 8;

/**
 * One reconciliation pass over every account and provider (started by the `instance-reconciliation`
 * Temporal Schedule): instances of ours that no workflow manages are adopted or terminated, rows whose
 * instance vanished are finished with a final charge. A pair that fails is retried on the next pass.
 */
export async function reconcileInstances(): Promise<ReconcileSummary> {
  const targets = await listReconciliationTargets();
  const summary: ReconcileSummary = {
    targets: targets.length,
    failedTargets: 0,
    terminated: 0,
    adopted: 0,
    finished: 0,
  };
  for (let i = 0; i < targets.length; i += PARALLEL) {
    const reports = await Promise.allSettled(targets.slice(i, i + PARALLEL).map((t) => reconcileAccountProvider(t)));
    for (const r of reports) {
      if (r.status === 'rejected') {
        summary.failedTargets++;
        continue;
      }
      const report: ReconcileReport = r.value;
      summary.terminated += report.terminated.length;
      summary.adopted += report.adopted.length;
      summary.finished += report.finished.length;
    }
  }
  return summary;
}

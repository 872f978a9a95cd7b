/**
 * Client side of the alert monitor: starting it (idempotently, at worker start-up) and telling it that
 * prices or charges landed. Signal-with-start makes a notification start a monitor that is not running.
 */
import { WorkflowIdConflictPolicy, type Client } from '@temporalio/client';
import { alertMonitor } from '../../workflows/alert-monitor';
import {
  ALERT_MONITOR_WORKFLOW_ID,
  alertMonitorStatsQuery,
  alertsDueSignal,
  type AlertMonitorInput,
  type AlertMonitorSettings,
  type AlertMonitorStats,
  type AlertsDue,
} from '../../workflows/contracts/alerts';
import { withEngine } from './engine';

export function createAlertMonitorClient(deps: { client: Client; taskQueue: string; settings: AlertMonitorSettings }) {
  const { client, taskQueue } = deps;
  const workflowId = deps.settings.workflowId ?? ALERT_MONITOR_WORKFLOW_ID;
  const input = {
    tickMs: deps.settings.tickMs,
    ...(deps.settings.budgetTickMs !== undefined ? { budgetTickMs: deps.settings.budgetTickMs } : {}),
  };
  const options = { workflowId, taskQueue, args: [input] as [AlertMonitorInput] };
  return {
    workflowId,

    /** Starts the monitor unless it already runs (several workers may start at once; all succeed). */
    async ensureRunning(): Promise<void> {
      await withEngine(client, () =>
        client.workflow.start(alertMonitor, {
          ...options,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        }),
      );
    },

    /** Tells the monitor what landed; starts it first when it is not running. */
    async notify(due: AlertsDue): Promise<void> {
      await withEngine(client, () =>
        client.workflow.signalWithStart(alertMonitor, { ...options, signal: alertsDueSignal, signalArgs: [due] }),
      );
    },

    /** Running totals since the monitor first started (carried across continue-as-new). */
    async stats(): Promise<AlertMonitorStats> {
      return withEngine(client, () => client.workflow.getHandle(workflowId).query(alertMonitorStatsQuery));
    },
  };
}
export type AlertMonitorClient = ReturnType<typeof createAlertMonitorClient>;

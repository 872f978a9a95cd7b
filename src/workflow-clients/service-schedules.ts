/**
 * Temporal Schedules this service owns. `ensure…` creates the schedule or brings an existing one up to date,
 * so every worker start converges on the configured interval (several workers may race; all succeed).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../config';
import { PRICING_SCHEDULE_ID, RECONCILIATION_SCHEDULE_ID } from '../../workflows/contracts/maintenance';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';

/**
 * One schedule per deployment: the plain id on the default task queue, `<id>-<task queue>` on any other, so two
 * deployments sharing a namespace (or test processes sharing a dev server) never re-point each other's schedule.
 */
export function scheduleIdFor(baseId: string, taskQueue: string): string {
  return taskQueue === DEFAULT_TASK_QUEUE ? baseId : `${baseId}-${taskQueue}`;
}

/**
 * A schedule that starts `workflowType` every `everyMs` (overlaps skipped), created or brought up to date.
 * Temporal appends the scheduled time to the workflow id: runs show up as `<schedule id>-2026-11-22T02:45:00Z`,
 * and are found with `GpuoScheduleId = "<schedule id>"`.
 */
async function ensureIntervalSchedule(
  client: Client,
  opts: { scheduleId: string; workflowType: string; taskQueue: string; everyMs: number; executionTimeout: string },
): Promise<void> {
  const { scheduleId } = opts;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: opts.workflowType,
    workflowId: scheduleId,
    taskQueue: opts.taskQueue,
    args: [],
    workflowExecutionTimeout: opts.executionTimeout,
    typedSearchAttributes: runSearchAttributes({ scheduleId }),
  };
  const spec = { intervals: [{ every: opts.everyMs }] };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies,
      typedSearchAttributes: runSearchAttributes({ scheduleId }),
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  }
}

export async function ensurePricingSchedule(
  client: Client,
  opts: { taskQueue: string; everyMs: number; scheduleId?: string; triggerNow?: boolean },
): Promise<string> {
  const scheduleId = opts.scheduleId ?? scheduleIdFor(PRICING_SCHEDULE_ID, opts.taskQueue);
  await ensureIntervalSchedule(client, {
    scheduleId,
    workflowType: 'pricingRefresh',
    taskQueue: opts.taskQueue,
    everyMs: opts.everyMs,
    executionTimeout: '10 minutes',
  });
  // Prices right away at start-up rather than one interval later.
  if (opts.triggerNow) await client.schedule.getHandle(scheduleId).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  return scheduleId;
}

/**
 * The reconciliation pass (`reconcileInstances`) every `everyMs`: the longest an instance of ours can run
 * unmanaged once its provider can be reached with the account's key.
 */
export async function ensureReconciliationSchedule(
  client: Client,
  opts: { taskQueue: string; everyMs: number; scheduleId?: string },
): Promise<string> {
  const scheduleId = opts.scheduleId ?? scheduleIdFor(RECONCILIATION_SCHEDULE_ID, opts.taskQueue);
  await ensureIntervalSchedule(client, {
    scheduleId,
    workflowType: 'reconcileInstances',
    taskQueue: opts.taskQueue,
    everyMs: opts.everyMs,
    executionTimeout: '30 minutes',
  });
  return scheduleId;
}

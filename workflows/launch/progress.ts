/**
 * What the launch tells others, and learns, around the instance's start: its progress to the workflow that
 * asked for it (a scheduled run), and, before an end, the start the provider reports when we never saw one, or
 * the start a job's exit report proves.
 */
import { getExternalWorkflowHandle, patched } from '@temporalio/workflow';
import { JOB_START_COMMAND_REF } from '../contracts/jobs';
import { instanceProgressSignal, type InstanceProgress } from '../contracts/launch';
import type { LaunchContext } from './state';

/** Tells the asking workflow (a scheduled run) that the create was accepted or the instance started. */
export async function tellProgress(c: LaunchContext): Promise<void> {
  const row = c.s.row;
  if (!c.input.progressWorkflowId || !row) return;
  const progress: InstanceProgress = {
    rowId: c.id,
    instanceId: row.provider_instance_id,
    startedAtMs: row.started_at ? Date.parse(row.started_at) : null,
    pricePerHourMicros: row.price_per_hour_micros,
  };
  try {
    await getExternalWorkflowHandle(c.input.progressWorkflowId).signal(instanceProgressSignal, progress);
  } catch {
    // the run has ended: nothing left to tell
  }
}

/**
 * An end asked for before we saw the instance running: the provider may have started it meanwhile. One short
 * look (not interruptible: the end is what asks; at most 3 s, so a hanging provider never holds the end up)
 * puts metering at the provider's own start, so what ran is charged.
 */
export async function catchUpStart(c: LaunchContext): Promise<void> {
  const row = c.s.row!;
  if (row.started_at || !row.provider_instance_id || row.status === 'stopped') return;
  try {
    const seen = await c.acts.glance.pollInstance(c.id);
    if (!seen.gone && seen.instance?.status === 'running') {
      c.s.row = await c.acts.db.markInstanceRunning(c.id, seen.atMs, seen.instance);
      await tellProgress(c);
    }
  } catch {
    // Unreachable: the end itself will meet the same trouble and say so; nothing seen running, nothing charged.
  }
}

/**
 * Marks runs that charge a job attempt whose command reported its exit before the instance was seen running.
 * Without it such an instance was ended uncharged: it ran for free.
 */
export const REPORTED_EXIT_CHARGE_PATCH = 'launch-charge-reported-exit';

/**
 * A job attempt's instance never seen running, whose command may have reported its exit: a report proves it
 * ran, so it is metered from the provider's acknowledgement of the create (the activity reads the report from
 * the database; no time the instance reported counts). True when the instance is now metered from there.
 */
export async function startFromReportedExit(c: LaunchContext): Promise<boolean> {
  const row = c.s.row!;
  if (row.started_at || !row.provider_instance_id || row.status === 'stopped') return false;
  if (!JOB_START_COMMAND_REF.test(c.input.onstartCmd ?? '') || !patched(REPORTED_EXIT_CHARGE_PATCH)) return false;
  c.s.row = await c.acts.db.markRanFromAcceptance(c.id);
  return c.s.row.started_at !== null;
}

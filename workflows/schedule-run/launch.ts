/** The launch a run makes on one offer, and the admission request that reserves it. */
import type { RunOffer, ScheduleRow } from '../../src/db/queries/schedules';
import { launchIntentOf, type LaunchInput } from '../contracts/launch';
import type { ScheduleRunInput } from '../contracts/schedules';

/**
 * The launch a run makes on one offer: ids derive from the run, so a replayed or retried step joins the same
 * launch.
 */
export function runLaunchInput(
  input: ScheduleRunInput,
  r: {
    runId: string;
    schedule: ScheduleRow;
    dockerImage: string;
    offer: RunOffer;
    attempt: number;
    instanceRowId: string;
    runWorkflowId: string;
  },
): LaunchInput {
  return {
    instanceId: r.instanceRowId,
    accountId: input.accountId,
    requestHash: `schedule-run:${r.runId}:${r.attempt}`,
    provider: r.offer.provider,
    gpuType: r.schedule.gpu,
    gpuCount: 1,
    spot: r.offer.spot,
    name: r.schedule.name,
    providerName: `sched-${r.runId.slice(4, 16)}-${r.attempt}`,
    dockerImage: r.dockerImage || undefined,
    onstartCmd: r.schedule.startup_script ?? undefined,
    warnings: [],
    // The schedule's key: the run is admitted against its cap and the instance counts toward its spend.
    apiKeyId: r.schedule.api_key_id ?? undefined,
    ...(r.schedule.idle_stop ? { idleStop: r.schedule.idle_stop } : {}),
    // A scheduled job that exits by itself is done: its pod is terminated, not kept stopped.
    endWhenStoppedByProvider: true,
    // The launch tells the run when the create is accepted and when the instance started (instanceProgress).
    progressWorkflowId: r.runWorkflowId,
    ...input.launch,
  };
}

/**
 * The launch's admission request: the same rule, function and lock as an API launch (the balance, and the cap
 * of the key that made the schedule); its row is the reservation.
 */
export function runAdmission(input: ScheduleRunInput, offer: RunOffer, l: LaunchInput) {
  return {
    accountId: input.accountId,
    pricePerHourMicros: offer.pricePerHourMicros,
    // The same intent the launch records (its key and idle-stop rule included).
    intent: launchIntentOf(l),
  };
}

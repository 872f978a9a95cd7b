/**
 * A schedule's run as a job: the job a firing makes from the schedule's settings, and how the job's end reads
 * as one of the run statuses the API has always shown (docs/jobs.md, "Schedules run jobs").
 */
import type { AttemptRow, JobRow, JobSpec } from '../db/queries/jobs';
import type { FinalRunStatus, ScheduleRow } from '../db/queries/schedules';
import type { ProviderId } from '../providers/types';

/**
 * The command of a schedule without a startup script: the instance stays up, as it did before runs were jobs,
 * until max_duration_hours, max_cost or a cancel ends it. POSIX `sh` (no `sleep infinity`).
 */
/** How src/domain/idle-stop.ts words an idle stop's reason. */
const IDLE_STOP_REASON_PREFIX = 'idle stop: ';

export const KEEP_RUNNING_COMMAND = 'while :; do sleep 3600; done';

/**
 * What a run's job may retry: a preemption (a new attempt on the cheapest admitted offer, another provider
 * included) and no capacity (a refused create or boot: the next attempt tries the other offers first), three
 * attempts within two hours, as a job made through the API without `retry`. A command's own failure is the
 * run's result, not retried.
 */
export const SCHEDULE_RUN_RETRY: JobSpec['retry'] = {
  on: ['no_capacity', 'preemption'],
  max_attempts: 3,
  within_ms: 2 * 3_600_000,
  on_demand_after_preemptions: null,
};

/** The job of one run: the schedule's settings, on the connected providers that can run it. */
export function scheduleRunJobSpec(schedule: ScheduleRow, providers: ProviderId[]): JobSpec {
  const custom = schedule.template === 'custom';
  return {
    gpu: schedule.gpu,
    gpu_count: 1,
    template: custom ? null : schedule.template,
    docker_image: custom ? schedule.docker_image : null,
    command: schedule.startup_script ?? KEEP_RUNNING_COMMAND,
    env_keys: [],
    providers,
    // prefer_spot: spot first where it is sold, on-demand when none is admitted or after preemptions.
    spot_policy: schedule.prefer_spot ? 'auto' : 'on-demand',
    max_price_per_hour_micros: null,
    max_cost_micros: schedule.max_cost_micros,
    max_duration_hours: schedule.max_duration_hours,
    retry: SCHEDULE_RUN_RETRY,
    idle_stop: schedule.idle_stop,
  };
}

export interface RunEnd {
  status: FinalRunStatus;
  stopReason: string | null;
  error: string | null;
}

/**
 * The run's status from its job's end and its last attempt:
 * succeeded → `succeeded`; cancelled → `cancelled`; failed on a non-zero exit → `failed`; failed because the last
 * attempt reached max_duration_hours → `stopped_max_duration`, max_cost → `stopped_max_cost` (also when the
 * budget was spent before another attempt could start), was preempted with no retry left → `preempted`;
 * the schedule's idle_stop ending an idle instance → `succeeded` with the idle rule as the reason;
 * any other failure (no capacity, a refusal, the instance lost without an exit report) → `failed` with the
 * job's error, or with why the service ended the instance (a key's spend cap) when it did. A job that has not
 * ended (its workflow failed) is `failed`.
 */
export function runEndOfJob(
  job: Pick<JobRow, 'status' | 'error'>,
  last: Pick<AttemptRow, 'end_reason'> | null,
  /** Why the service ended the last attempt's instance, when it did (a key's spend cap, a budget stop). */
  instanceEndReason: string | null = null,
): RunEnd {
  const because = job.error ?? null;
  switch (job.status) {
    case 'succeeded':
      return { status: 'succeeded', stopReason: 'the startup script exited with 0', error: null };
    case 'cancelled':
      return { status: 'cancelled', stopReason: because, error: null };
    case 'failed':
      break;
    default:
      return { status: 'failed', stopReason: null, error: `the run's job ended without an outcome (${job.status})` };
  }
  switch (last?.end_reason) {
    case 'max_duration':
      return { status: 'stopped_max_duration', stopReason: because, error: null };
    case 'max_cost':
      return { status: 'stopped_max_cost', stopReason: because, error: null };
    case 'preempted':
      return { status: 'preempted', stopReason: 'spot capacity reclaimed by the provider', error: because };
    default:
      if (because?.startsWith('max_cost (')) return { status: 'stopped_max_cost', stopReason: because, error: null };
      // The schedule's idle_stop ended an idle instance: the run did its work, as runs always read.
      if (instanceEndReason?.startsWith(IDLE_STOP_REASON_PREFIX))
        return { status: 'succeeded', stopReason: instanceEndReason, error: null };
      if (last?.end_reason === 'ended' && instanceEndReason)
        return { status: 'failed', stopReason: null, error: `the instance was ended: ${instanceEndReason}` };
      return { status: 'failed', stopReason: null, error: because };
  }
}

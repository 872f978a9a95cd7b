/**
 * Contract of the schedules family: each schedule is a Temporal Schedule (id = the schedule's `sched_…` id)
 * whose action starts `scheduleRun` (workflow ids `<schedule id>-run-<scheduled time>`). A leaf.
 */
import { defineSignal } from '@temporalio/workflow';

/** The Temporal Schedule id of a schedule. */
export const temporalScheduleId = (scheduleId: string): string => scheduleId;
/** Run workflow ids are `<schedule id>-run-<scheduled time>` (Temporal appends the time). */
export const runWorkflowIdPrefix = (scheduleId: string): string => `${scheduleId}-run`;

/** Timing handed to each run's launch workflow (hours in production, short in tests). */
export interface ScheduleRunTiming {
  pollIntervalMs: number;
  meterIntervalMs: number;
  activityTimeoutMs?: number;
  continueAsNewAfter?: number;
}

/** The argument of every firing of a schedule's Temporal Schedule (the schedule itself is read from the database). */
export interface ScheduleRunInput {
  scheduleId: string;
  accountId: string;
  launch: ScheduleRunTiming;
  /**
   * The run's job waits for capacity this long first, doubling up to the maximum; absent (Schedules made before
   * runs were jobs): {@link SCHEDULE_RUN_JOB_BACKOFF}.
   */
  jobBackoff?: { backoffInitialMs: number; backoffMaxMs: number };
}

/** A run's job's wait for capacity: 1 minute doubling to 10, as a job's. */
export const SCHEDULE_RUN_JOB_BACKOFF = { backoffInitialMs: 60_000, backoffMaxMs: 600_000 };

/** Scheduled runs since this marker are jobs (`runJob` children); runs begun before it keep their own launch. */
export const SCHEDULE_RUN_AS_JOB_PATCH = 'schedule-run-as-job';

export interface ScheduleRunResult {
  runId: string | null;
  status: string;
}

/** Ends a live run for a reason of ours (the schedule was deleted): its instance is terminated, the run `cancelled`. */
export const cancelScheduleRunSignal = defineSignal<[{ reason: string }]>('cancelScheduleRun');

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
}

export interface ScheduleRunResult {
  runId: string | null;
  status: string;
}

/** Ends a live run for a reason of ours (the schedule was deleted): its instance is terminated, the run `cancelled`. */
export const cancelScheduleRunSignal = defineSignal<[{ reason: string }]>('cancelScheduleRun');

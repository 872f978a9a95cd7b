/**
 * What the schedule run's phases share: its activities, what its signals have said, and the run's record
 * (the run row, its schedule) with the way it ends.
 */
import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { ScheduleRow } from '../../src/db/queries/schedules';
import { instanceProgressSignal, type InstanceProgress } from '../contracts/launch';
import { cancelScheduleRunSignal, type ScheduleRunInput, type ScheduleRunResult } from '../contracts/schedules';

export function scheduleRunActivities(input: ScheduleRunInput) {
  return proxyActivities<Activities>({
    // Short, so a step lost with its worker is retried soon (tests compress it like the launch's).
    startToCloseTimeout: input.launch.activityTimeoutMs ?? 30_000,
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });
}

export type ScheduleRunActivities = ReturnType<typeof scheduleRunActivities>;

/** What the run's signals have said so far. Made before the workflow's first await, so no signal is missed. */
export class RunSignals {
  cancelReason: string | null = null;
  /** The launch's latest word on the instance (accepted, started), until the attempt takes it. */
  progress: InstanceProgress | null = null;

  constructor() {
    setHandler(cancelScheduleRunSignal, ({ reason }) => {
      this.cancelReason ??= reason;
    });
    setHandler(instanceProgressSignal, (p) => {
      this.progress = p;
    });
  }
}

export type RunEndStatus =
  'succeeded' | 'failed' | 'stopped_max_duration' | 'stopped_max_cost' | 'preempted' | 'cancelled';

export type RunEndDetail = { stopReason?: string; error?: string };

/** A run the workflow carries out: its row, its schedule and image, and everything its attempts use. */
export class ScheduledRun {
  constructor(
    readonly input: ScheduleRunInput,
    readonly workflowId: string,
    readonly runId: string,
    readonly schedule: ScheduleRow,
    readonly dockerImage: string,
    readonly signals: RunSignals,
    readonly db: ScheduleRunActivities,
  ) {}

  async finish(status: RunEndStatus, detail: RunEndDetail = {}): Promise<ScheduleRunResult> {
    const ended = await this.db.finishScheduleRun({ runId: this.runId, status, ...detail, endedAtMs: Date.now() });
    return { runId: this.runId, status: ended.status };
  }
}

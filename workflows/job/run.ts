/**
 * What the job workflow's phases share: its activities, what its signals have said, and the job between
 * attempts (its record, the attempts made so far and what the retry policy has left).
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { JobView } from '../../activities/jobs';
import { instanceProgressSignal, type InstanceProgress } from '../contracts/launch';
import { cancelJobSignal, jobExitReportedSignal, type JobInput, type JobResult } from '../contracts/jobs';

export function jobActivities(input: JobInput) {
  return proxyActivities<Activities>({
    startToCloseTimeout: input.timing.launch.activityTimeoutMs ?? 30_000,
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });
}

export type JobActivities = ReturnType<typeof jobActivities>;

/** What the job's signals have said so far. Made before the workflow's first await, so no signal is missed. */
export class JobSignals {
  cancelReason: string | null = null;
  /** The attempts whose command reported its exit. */
  readonly reported = new Set<number>();
  /** The launch's latest word on an attempt's instance (accepted, started), until the attempt takes it. */
  progress: InstanceProgress | null = null;

  constructor() {
    setHandler(cancelJobSignal, ({ reason }) => {
      this.cancelReason ??= reason;
    });
    setHandler(jobExitReportedSignal, ({ n }) => {
      this.reported.add(n);
    });
    setHandler(instanceProgressSignal, (p) => {
      this.progress = p;
    });
  }
}

export type RetryEvent = 'no_capacity' | 'preemption' | 'error';

/** The job between attempts: its record, the attempts made, and the retry policy's time and backoff. */
export class JobRun {
  readonly spec: JobView['spec'];
  /** After this moment no attempt starts again (`retry.within`). */
  readonly retryUntil: number;
  backoffMs: number;
  preemptions = 0;
  /** The number of the latest attempt (0 before the first). */
  n: number;

  constructor(
    readonly input: JobInput,
    readonly job: JobView,
    readonly signals: JobSignals,
    readonly db: JobActivities,
  ) {
    this.spec = job.spec;
    this.retryUntil = Date.now() + job.spec.retry.within_ms;
    this.backoffMs = input.timing.backoffInitialMs;
    this.n = job.attempts;
  }

  async finish(status: JobResult['status'], exitCode: number | null, error: string | null): Promise<JobResult> {
    await this.db.finishJob({ jobId: this.input.jobId, status, exitCode, error });
    return { status, exitCode };
  }

  /** Whether another attempt may start for `event`; says so (`job.retrying`) when it may. */
  async mayRetry(event: RetryEvent, why: string, countsAttempt: boolean): Promise<boolean> {
    if (!this.spec.retry.on.includes(event) || Date.now() >= this.retryUntil) return false;
    if (countsAttempt && this.n >= this.spec.retry.max_attempts) return false;
    await this.db.jobRetrying({
      jobId: this.input.jobId,
      reason: why,
      attempt: this.n,
      key: `${event}:${this.n}:${this.backoffMs}`,
    });
    return true;
  }

  /** Waits out the backoff (a cancel cuts it short), then doubles it up to its maximum. */
  async waitBackoff(): Promise<void> {
    await condition(
      () => this.signals.cancelReason !== null,
      Math.max(1, Math.min(this.backoffMs, this.retryUntil - Date.now())),
    );
    this.backoffMs = Math.min(this.backoffMs * 2, this.input.timing.backoffMaxMs);
  }

  /** Spot offers are allowed unless the policy says on-demand, or after the preemptions it tolerates. */
  spotAllowed(): boolean {
    const { spot_policy, retry } = this.spec;
    return (
      spot_policy !== 'on-demand' &&
      (retry.on_demand_after_preemptions === null || this.preemptions < retry.on_demand_after_preemptions)
    );
  }
}

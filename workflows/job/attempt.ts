/**
 * One attempt: its launchInstance child, watched until the earliest of the command's exit report, the instance
 * ending by itself, max_duration_hours, max_cost and a cancel; then ended and recorded with how it ended.
 */
import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  startChild,
} from '@temporalio/workflow';
import type { JobOffer } from '../../activities/jobs';
import type { AttemptEndReason } from '../../src/db/queries/jobs';
import { endInstanceSignal, type LaunchInput, type LaunchResult } from '../contracts/launch';
import { runSearchAttributes } from '../contracts/search-attributes';
import { launchInstance } from '../launch-instance';
import type { JobRun } from './run';

const MS_PER_HOUR = 3_600_000;

export type AttemptEnding = { reason: AttemptEndReason; detail: string };

function failureMessage(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && 'cause' in cause && cause.cause && !(cause instanceof ApplicationFailure))
    cause = cause.cause;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'error'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/** An attempt's launch, from its child's start to the attempt's recorded end. */
export class JobAttempt {
  private result: LaunchResult | null = null;
  private failure: unknown = null;
  private settled = false;
  private instanceId: string | null = null;
  private startedAtMs: number | null = null;
  private price: number;
  /** Why the job ends the attempt itself; null while it has not, or when the instance ended by itself. */
  private ending: AttemptEnding | null = null;

  private constructor(
    private readonly run: JobRun,
    private readonly n: number,
    private readonly rowId: string,
    offer: JobOffer,
  ) {
    this.price = offer.pricePerHourMicros;
  }

  /** Starts attempt `run.n` as an abandoned child: an instance never depends on the job workflow staying alive. */
  static async start(run: JobRun, offer: JobOffer, launch: LaunchInput): Promise<JobAttempt> {
    const { input } = run;
    const rowId = launch.instanceId;
    const child = await startChild(launchInstance, {
      workflowId: rowId,
      args: [launch],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: runSearchAttributes({
        accountId: input.accountId,
        provider: offer.provider,
        jobId: input.jobId,
      }),
    });
    const attempt = new JobAttempt(run, run.n, rowId, offer);
    child.result().then(
      (r) => {
        attempt.result = r;
        attempt.settled = true;
      },
      (err: unknown) => {
        attempt.failure = err;
        attempt.settled = true;
      },
    );
    return attempt;
  }

  /** Waits until the child ends or the job must end it; `spentMicros` is what earlier attempts spent. */
  async watch(spentMicros: number): Promise<void> {
    const { signals } = this.run;
    for (;;) {
      if (await this.takeProgress()) continue;
      if (this.settled) return;
      if (signals.reported.has(this.n)) {
        this.ending = { reason: 'exited', detail: 'the command exited' };
        return;
      }
      if (signals.cancelReason) {
        this.ending = { reason: 'cancelled', detail: signals.cancelReason };
        return;
      }
      const now = Date.now();
      const limit = this.limits(now, spentMicros);
      if ('ending' in limit) {
        this.ending = limit.ending;
        return;
      }
      await condition(
        () =>
          this.settled || signals.cancelReason !== null || signals.reported.has(this.n) || signals.progress !== null,
        limit.wakeAt === Infinity ? undefined : Math.max(1, limit.wakeAt - now),
      );
    }
  }

  /** Records the launch's word on this attempt (created, started); false when there was none to take. */
  private async takeProgress(): Promise<boolean> {
    const { signals, db, input, job } = this.run;
    const p = signals.progress;
    if (p === null) return false;
    signals.progress = null;
    if (p.rowId !== this.rowId) return true;
    if (p.instanceId && this.instanceId === null) {
      this.instanceId = p.instanceId;
      this.price = p.pricePerHourMicros ?? this.price;
      await db.markJobAttemptLaunched({
        jobId: input.jobId,
        n: this.n,
        instanceId: this.instanceId,
        pricePerHourMicros: this.price,
      });
    }
    if (p.startedAtMs !== null && this.startedAtMs === null) {
      this.startedAtMs = p.startedAtMs;
      await db.markJobAttemptStarted({
        jobId: input.jobId,
        n: this.n,
        startedAtMs: this.startedAtMs,
        first: this.n === 1 || job.attempts + 1 === this.n,
      });
    }
    return true;
  }

  /** The attempt's limits at `now`: the ending when one is reached, else the earliest moment one will be. */
  private limits(now: number, spentMicros: number): { ending: AttemptEnding } | { wakeAt: number } {
    const { spec } = this.run;
    const { startedAtMs, price } = this;
    let wakeAt = Infinity;
    if (startedAtMs !== null && spec.max_duration_hours !== null) {
      const deadline = startedAtMs + spec.max_duration_hours * MS_PER_HOUR;
      if (now >= deadline) {
        return {
          ending: { reason: 'max_duration', detail: `max_duration_hours (${spec.max_duration_hours}) reached` },
        };
      }
      wakeAt = Math.min(wakeAt, deadline);
    }
    if (startedAtMs !== null && spec.max_cost_micros !== null && price > 0) {
      // What earlier attempts spent is gone; what remains of max_cost sets this attempt's stop timer.
      const deadline = startedAtMs + Math.floor(((spec.max_cost_micros - spentMicros) * MS_PER_HOUR) / price);
      if (now >= deadline) {
        return { ending: { reason: 'max_cost', detail: `max_cost (${spec.max_cost_micros / 1_000_000}) reached` } };
      }
      wakeAt = Math.min(wakeAt, deadline);
    }
    return { wakeAt };
  }

  /**
   * Ends the instance when the job ended the attempt, waits for the child, and records the attempt's end:
   * how it ended and the command's exit code (null without a report).
   */
  async conclude(): Promise<AttemptEnding & { exitCode: number | null }> {
    const { input, db } = this.run;
    if (this.ending) {
      // By workflow id alone: it reaches the launch's current run even after it continued as new. After an exit
      // report the exit endpoint has asked the launch the same, so it may have ended already: a closed workflow
      // cannot be signalled, and the child's result below says how it ended.
      await getExternalWorkflowHandle(this.rowId)
        .signal(endInstanceSignal, {
          action: 'terminate',
          reason: `job ${input.jobId}: ${this.ending.detail}`,
        })
        .catch(() => undefined);
      await condition(() => this.settled);
    }
    // The report in the database is the word on how the command ended, whichever way the instance ended.
    const { exitCode } = await db.readJobAttempt({ jobId: input.jobId, n: this.n });
    const ending = exitCode !== null ? { reason: 'exited' as const, detail: `exit code ${exitCode}` } : this.howEnded();
    await db.finishJobAttempt({
      jobId: input.jobId,
      n: this.n,
      reason: ending.reason,
      detail: ending.detail,
      exitCode,
    });
    return { ...ending, exitCode };
  }

  /** How the attempt ended without an exit report: the job's own ending, else the child's outcome. */
  private howEnded(): AttemptEnding {
    if (this.ending) return this.ending;
    if (this.failure) {
      return { reason: this.instanceId === null ? 'refused' : 'ended', detail: failureMessage(this.failure) };
    }
    switch (this.result?.outcome) {
      case 'preempted':
        return { reason: 'preempted', detail: 'spot capacity reclaimed by the provider' };
      case 'boot_failed':
        return { reason: 'boot_failed', detail: this.result.reason ?? 'the boot failed' };
      case 'lost':
        return { reason: 'lost', detail: 'the instance ended without an exit report' };
      default:
        return { reason: 'ended', detail: 'the instance was ended outside the job' };
    }
  }
}

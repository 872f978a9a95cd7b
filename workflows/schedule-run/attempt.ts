/**
 * One offer's launch: its launchInstance child, watched until the child ends or a limit or a cancel makes the
 * run end it, and the run's outcome from how it ended.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  startChild,
} from '@temporalio/workflow';
import type { RunInstanceState } from '../../activities/schedules';
import type { RunOffer } from '../../src/db/queries/schedules';
import { endInstanceSignal, type InstanceProgress, type LaunchInput, type LaunchResult } from '../contracts/launch';
import { runSearchAttributes } from '../contracts/search-attributes';
import { launchInstance } from '../launch-instance';
import { approachDeadline, runDeadline, type Ending } from './limits';
import type { RunEndDetail, RunEndStatus, ScheduledRun } from './run';

/** How an attempt leaves the run: the run's end, or a refusal that gives the next offer its chance. */
export type AttemptOutcome = { status: RunEndStatus; detail: RunEndDetail } | { refused: string };

function refusalMessage(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof ChildWorkflowFailure || cause instanceof ActivityFailure) cause = cause.cause;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'error'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * How a run ends whose instance ended without the run asking: preempted; the job exited (`lost` after the
 * start); the schedule's idle-stop rule ended it (the job left its GPUs idle: taken as done). Null otherwise.
 */
function endedByItself(
  result: LaunchResult | null,
  startedAtMs: number | null,
): { status: 'preempted' | 'succeeded' | 'failed'; detail: RunEndDetail } | null {
  switch (result?.outcome) {
    case 'preempted':
      return { status: 'preempted', detail: { stopReason: 'spot capacity reclaimed by the provider' } };
    case 'idle_stopped':
      return { status: 'succeeded', detail: { stopReason: result.reason ?? 'idle stop' } };
    case 'lost':
      return startedAtMs === null
        ? { status: 'failed', detail: { error: 'the provider lost the instance while it booted' } }
        : { status: 'succeeded', detail: { stopReason: 'the job ended: the instance exited by itself' } };
    default:
      return null;
  }
}

/** The run's view of its instance with the launch's latest word for this attempt merged in (others are ignored). */
function withProgress(state: RunInstanceState, p: InstanceProgress, instanceRowId: string): RunInstanceState {
  if (p.rowId !== instanceRowId) return state;
  return {
    ...state,
    instanceId: p.instanceId ?? state.instanceId,
    startedAtMs: p.startedAtMs ?? state.startedAtMs,
    pricePerHourMicros: p.pricePerHourMicros ?? state.pricePerHourMicros,
  };
}

/** The launch child's end as it arrives; the workflow reads it between awaits. */
class LaunchEnd {
  settled = false;
  result: LaunchResult | null = null;
  failure: unknown = null;
}

/** A launch on one offer, from its child's start to what it means for the run. */
export class RunAttempt {
  private launched = false;
  private acceptedAtMs: number | null = null;
  private startedAtMs: number | null = null;
  /** Set when the run ends the instance itself. */
  private ending: Ending | null = null;

  private constructor(
    private readonly run: ScheduledRun,
    private readonly offer: RunOffer,
    private readonly instanceRowId: string,
    private readonly child: LaunchEnd,
    private state: RunInstanceState,
  ) {}

  /** Starts the launch as an abandoned child and reads its row. */
  static async start(run: ScheduledRun, offer: RunOffer, launch: LaunchInput): Promise<RunAttempt> {
    const instanceRowId = launch.instanceId;
    const handle = await startChild(launchInstance, {
      workflowId: instanceRowId,
      args: [launch],
      // The instance's lifecycle must outlive anything that happens to this run workflow.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: runSearchAttributes({
        accountId: run.input.accountId,
        provider: offer.provider,
        scheduleId: run.input.scheduleId,
      }),
    });
    const child = new LaunchEnd();
    handle.result().then(
      (r) => {
        child.result = r;
        child.settled = true;
      },
      (err: unknown) => {
        child.failure = err;
        child.settled = true;
      },
    );
    return new RunAttempt(run, offer, instanceRowId, child, await run.db.readRunInstance(instanceRowId));
  }

  /** Merges the launch's word (accepted, started) into `state`: acted on at once, whatever the poll interval. */
  private takeProgress(): boolean {
    const { signals } = this.run;
    if (signals.progress === null) return false;
    [this.state, signals.progress] = [withProgress(this.state, signals.progress, this.instanceRowId), null];
    return true;
  }

  /** Records on the run what `state` newly says: the create accepted, the instance running. */
  private async observe(): Promise<void> {
    const { db, runId } = this.run;
    if (!this.launched && this.state.instanceId) {
      this.launched = true;
      this.acceptedAtMs = Date.now();
      await db.markScheduleRunLaunched({
        runId,
        provider: this.offer.provider,
        instanceRowId: this.instanceRowId,
        instanceId: this.state.instanceId,
        pricePerHourMicros: this.state.pricePerHourMicros ?? this.offer.pricePerHourMicros,
      });
    }
    if (this.startedAtMs === null && this.state.startedAtMs !== null) {
      this.startedAtMs = this.state.startedAtMs;
      await db.markScheduleRunRunning({ runId, startedAtMs: this.startedAtMs });
    }
  }

  /** Waits until the child ends, or a limit or a cancel makes the run end it. */
  async watch(): Promise<void> {
    const { input, schedule, signals, db } = this.run;
    const child = this.child;
    for (;;) {
      await this.observe();
      if (child.settled) return;
      if (signals.cancelReason) {
        this.ending = { status: 'cancelled', reason: signals.cancelReason };
        return;
      }
      const now = Date.now();
      const deadline = runDeadline(schedule, {
        startedAtMs: this.startedAtMs,
        acceptedAtMs: this.acceptedAtMs,
        price: this.state.pricePerHourMicros ?? this.offer.pricePerHourMicros,
        now,
      });
      if ('ending' in deadline) {
        this.ending = deadline.ending;
        return;
      }
      let wakeAt = approachDeadline(deadline.wakeAt, now);
      // The launch signals its accept and its start (`instanceProgress`); until it runs, a look at the row every
      // poll interval is the fallback. Afterwards only deadlines, the child's end and a cancel change anything.
      if (this.startedAtMs === null) wakeAt = Math.min(wakeAt, now + input.launch.pollIntervalMs);
      const woken = await condition(
        () => child.settled || signals.cancelReason !== null || signals.progress !== null,
        wakeAt === Infinity ? undefined : Math.max(1, wakeAt - now),
      );
      if (this.takeProgress()) continue;
      if (!woken && this.startedAtMs === null) this.state = await db.readRunInstance(this.instanceRowId);
      if (woken && !child.settled) continue;
      if (child.settled) this.state = await db.readRunInstance(this.instanceRowId);
    }
  }

  /** Ends the instance when the run must, and says what the attempt means for the run. */
  async conclude(): Promise<AttemptOutcome> {
    const { schedule, db } = this.run;
    const { child, offer } = this;
    if (this.ending) {
      // By workflow id alone: it reaches the launch workflow's current run even after it continued as new.
      await getExternalWorkflowHandle(this.instanceRowId).signal(endInstanceSignal, {
        action: 'terminate',
        reason: `schedule ${schedule.id}: ${this.ending.reason}`,
      });
      await condition(() => child.settled);
      this.state = await db.readRunInstance(this.instanceRowId);
      await this.observe();
      if (child.failure) return { status: 'failed', detail: { error: refusalMessage(child.failure) } };
      return { status: this.ending.status, detail: { stopReason: this.ending.reason } };
    }

    this.state = await db.readRunInstance(this.instanceRowId);
    await this.observe();
    const offerName = `${offer.provider}${offer.spot ? ' (spot)' : ''}`;
    if (child.failure) {
      if (this.launched) return { status: 'failed', detail: { error: refusalMessage(child.failure) } };
      // Nothing was created: try the next offer.
      return { refused: `${offerName}: ${refusalMessage(child.failure)}` };
    }
    // A failed boot was terminated before it ran, never charged: the next offer gets its chance.
    if (child.result?.outcome === 'boot_failed')
      return { refused: `${offerName}: the boot failed (${child.result.reason})` };
    const ended = endedByItself(child.result, this.startedAtMs);
    if (ended) return ended;
    // Ended by the service for a reason of its own (a key's spend cap, a budget stop): the run says which.
    if (this.state.endReason)
      return { status: 'failed', detail: { error: `the instance was ended: ${this.state.endReason}` } };
    return {
      status: 'failed',
      detail: { error: 'the instance was terminated outside this run (for example POST /v1/compute/{id}/terminate)' },
    };
  }
}

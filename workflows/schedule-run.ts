import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RunInstanceState } from '../activities/schedules';
import type { InstanceProgress, LaunchInput, LaunchResult } from './contracts/launch';
import { endInstanceSignal, instanceProgressSignal, launchIntentOf } from './contracts/launch';
import { cancelScheduleRunSignal, type ScheduleRunInput, type ScheduleRunResult } from './contracts/schedules';
import type { RunOffer, ScheduleRow } from '../src/db/queries/schedules';
import { launchInstance } from './launch-instance';
import { runSearchAttributes } from './contracts/search-attributes';

/** Temporal appends the scheduled time to a schedule's workflow id: `sched_…-run-2026-11-22T10:00:00Z`. */
const SCHEDULED_TIME_SUFFIX = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/;

const MS_PER_HOUR = 3_600_000;
/**
 * Waking once shortly before a deadline puts the workflow on a live worker in time: after a worker dies, the
 * first task of a workflow cached there waits out the sticky-queue timeout (10 s by default) before another
 * worker takes it, which would otherwise land on the deadline itself and overshoot a cost cap.
 */
const PREWAKE_MS = 15_000;

type Ending = { status: 'stopped_max_duration' | 'stopped_max_cost' | 'cancelled'; reason: string };

function refusalMessage(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof ChildWorkflowFailure || cause instanceof ActivityFailure) cause = cause.cause;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'error'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/** The launch a run makes on one offer: ids derive from the run, so a replayed or retried step joins the same launch. */
function runLaunchInput(
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
 * How a run ends whose instance ended without the run asking: preempted; the job exited (`lost` after the
 * start); the schedule's idle-stop rule ended it (the job left its GPUs idle: taken as done). Null otherwise.
 */
function endedByItself(
  result: LaunchResult | null,
  startedAtMs: number | null,
): { status: 'preempted' | 'succeeded' | 'failed'; detail: { stopReason?: string; error?: string } } | null {
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

/**
 * The launch's admission request: the same rule, function and lock as an API launch (the balance, and the cap
 * of the key that made the schedule); its row is the reservation.
 */
function runAdmission(input: ScheduleRunInput, offer: RunOffer, l: LaunchInput) {
  return {
    accountId: input.accountId,
    pricePerHourMicros: offer.pricePerHourMicros,
    // The same intent the launch records (its key and idle-stop rule included).
    intent: launchIntentOf(l),
  };
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

/**
 * The run's limits at `now`: the ending when one is reached, else the earliest moment one will be
 * (Infinity when none applies yet).
 */
function runDeadline(
  schedule: ScheduleRow,
  at: { startedAtMs: number | null; acceptedAtMs: number | null; price: number; now: number },
): { ending: Ending } | { wakeAt: number } {
  const { startedAtMs, acceptedAtMs, price, now } = at;
  let wakeAt = Infinity;
  const maxDurationMs = schedule.max_duration_hours === null ? null : schedule.max_duration_hours * MS_PER_HOUR;
  if (maxDurationMs !== null && (startedAtMs ?? acceptedAtMs) !== null) {
    // Counted from running; before that, the same allowance from the accepted create bounds a boot that never ends.
    const deadline = (startedAtMs ?? acceptedAtMs!) + maxDurationMs;
    if (now >= deadline)
      return {
        ending: {
          status: 'stopped_max_duration',
          reason: `max_duration_hours (${schedule.max_duration_hours}) reached`,
        },
      };
    wakeAt = Math.min(wakeAt, deadline);
  }
  if (schedule.max_cost_micros !== null && startedAtMs !== null && price > 0) {
    // Charges are price × elapsed from the start; the last moment at which they are still within max_cost.
    const deadline = startedAtMs + Math.floor((schedule.max_cost_micros * MS_PER_HOUR) / price);
    if (now >= deadline)
      return {
        ending: { status: 'stopped_max_cost', reason: `max_cost (${schedule.max_cost_micros / 1_000_000}) reached` },
      };
    wakeAt = Math.min(wakeAt, deadline);
  }
  return { wakeAt };
}

/**
 * One firing of a schedule. Workflow id `<schedule id>-run-<scheduled time>` (a `trigger` uses the time of
 * the trigger). Records the run (`launching`, or `skipped` while the previous run is live: the Temporal
 * overlap policy is ALLOW_ALL so this decision is ours), tries the offers cheapest first (falling back on
 * any refusal: no capacity, provider failure), launches through the launchInstance workflow as an
 * abandoned child (an instance never depends on its run workflow staying alive), and ends the instance at
 * the earliest of: its job ending (`succeeded`), max_duration_hours after it started running, the moment
 * its cost would exceed max_cost, a preemption, a failure, or the schedule's deletion (`cancelled`).
 */
export async function scheduleRun(input: ScheduleRunInput): Promise<ScheduleRunResult> {
  const db = proxyActivities<Activities>({
    // Short, so a step lost with its worker is retried soon (tests compress it like the launch's).
    startToCloseTimeout: input.launch.activityTimeoutMs ?? 30_000,
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });
  let cancelReason: string | null = null;
  setHandler(cancelScheduleRunSignal, ({ reason }) => {
    cancelReason ??= reason;
  });
  let progress: InstanceProgress | null = null;
  setHandler(instanceProgressSignal, (p) => {
    progress = p;
  });

  const info = workflowInfo();
  const suffix = SCHEDULED_TIME_SUFFIX.exec(info.workflowId);
  const scheduledAtMs = suffix ? Date.parse(suffix[1]!) : info.startTime.getTime();
  const begun = await db.beginScheduleRun({
    workflowId: info.workflowId,
    scheduleId: input.scheduleId,
    accountId: input.accountId,
    scheduledAtMs,
  });
  if (!begun) return { runId: null, status: 'schedule_deleted' };
  const { run, schedule, dockerImage } = begun;
  if (run.status !== 'launching' && run.status !== 'running') return { runId: run.id, status: run.status };

  const finish = async (
    status: 'succeeded' | 'failed' | 'stopped_max_duration' | 'stopped_max_cost' | 'preempted' | 'cancelled',
    detail: { stopReason?: string; error?: string } = {},
  ): Promise<ScheduleRunResult> => {
    const ended = await db.finishScheduleRun({ runId: run.id, status, ...detail, endedAtMs: Date.now() });
    return { runId: run.id, status: ended.status };
  };

  const offers: RunOffer[] = await db.findScheduleRunOffers({
    accountId: input.accountId,
    gpu: schedule.gpu,
    preferSpot: schedule.prefer_spot,
  });
  const noOffer = `no available offer for ${schedule.gpu} on a connected provider that can run the job (runpod, vastai)`;
  if (offers.length === 0) return finish('failed', { error: noOffer });

  const refusals: string[] = [];
  for (let attempt = 0; attempt < offers.length; attempt++) {
    if (cancelReason) return finish('cancelled', { stopReason: cancelReason });
    const offer = offers[attempt]!;
    // One launch per run and offer: the ids derive from the run, so a replayed or retried step joins the same launch.
    const instanceRowId = `launch-${input.accountId}-${run.id}-${attempt}`;
    const launchInput = runLaunchInput(input, {
      runId: run.id,
      schedule,
      dockerImage,
      offer,
      attempt,
      instanceRowId,
      runWorkflowId: info.workflowId,
    });
    const refusal = await db.checkScheduleRunBalance(runAdmission(input, offer, launchInput));
    if (refusal) return finish('failed', { error: refusal });
    const child = await startChild(launchInstance, {
      workflowId: instanceRowId,
      args: [launchInput],
      // The instance's lifecycle must outlive anything that happens to this run workflow.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: runSearchAttributes({
        accountId: input.accountId,
        provider: offer.provider,
        scheduleId: input.scheduleId,
      }),
    });
    let result: LaunchResult | null = null;
    let failure: unknown = null;
    let settled = false;
    child.result().then(
      (r) => {
        result = r;
        settled = true;
      },
      (err: unknown) => {
        failure = err;
        settled = true;
      },
    );

    let state = await db.readRunInstance(instanceRowId);
    /** Merges the launch's word (accepted, started) into `state`: acted on at once, whatever the poll interval. */
    const takeProgress = (): boolean => {
      if (progress === null) return false;
      [state, progress] = [withProgress(state, progress, instanceRowId), null];
      return true;
    };
    let launched = false;
    let acceptedAtMs: number | null = null;
    let startedAtMs: number | null = null;
    let ending: Ending | null = null;
    const observe = async () => {
      if (!launched && state.instanceId) {
        launched = true;
        acceptedAtMs = Date.now();
        await db.markScheduleRunLaunched({
          runId: run.id,
          provider: offer.provider,
          instanceRowId,
          instanceId: state.instanceId,
          pricePerHourMicros: state.pricePerHourMicros ?? offer.pricePerHourMicros,
        });
      }
      if (startedAtMs === null && state.startedAtMs !== null) {
        startedAtMs = state.startedAtMs;
        await db.markScheduleRunRunning({ runId: run.id, startedAtMs });
      }
    };

    for (;;) {
      await observe();
      if (settled) break;
      if (cancelReason) {
        ending = { status: 'cancelled', reason: cancelReason };
        break;
      }
      const now = Date.now();
      const deadline = runDeadline(schedule, {
        startedAtMs,
        acceptedAtMs,
        price: state.pricePerHourMicros ?? offer.pricePerHourMicros,
        now,
      });
      if ('ending' in deadline) {
        ending = deadline.ending;
        break;
      }
      let wakeAt = deadline.wakeAt;
      // Far deadlines are approached in halves and once more PREWAKE_MS before: a few timers per run, however long.
      if (wakeAt !== Infinity) {
        const remaining = wakeAt - now;
        if (remaining > 2 * PREWAKE_MS) wakeAt = now + Math.floor(remaining / 2);
        else if (remaining > PREWAKE_MS) wakeAt -= PREWAKE_MS;
      }
      // The launch signals its accept and its start (`instanceProgress`); until it runs, a look at the row every
      // poll interval is the fallback. Afterwards only deadlines, the child's end and a cancel change anything.
      if (startedAtMs === null) wakeAt = Math.min(wakeAt, now + input.launch.pollIntervalMs);
      const woken = await condition(
        () => settled || cancelReason !== null || progress !== null,
        wakeAt === Infinity ? undefined : Math.max(1, wakeAt - now),
      );
      if (takeProgress()) continue;
      if (!woken && startedAtMs === null) state = await db.readRunInstance(instanceRowId);
      if (woken && !settled) continue;
      if (settled) state = await db.readRunInstance(instanceRowId);
    }

    if (ending) {
      // By workflow id alone: it reaches the launch workflow's current run even after it continued as new.
      await getExternalWorkflowHandle(instanceRowId).signal(endInstanceSignal, {
        action: 'terminate',
        reason: `schedule ${schedule.id}: ${ending.reason}`,
      });
      await condition(() => settled);
      state = await db.readRunInstance(instanceRowId);
      await observe();
      if (failure) return finish('failed', { error: refusalMessage(failure) });
      return finish(ending.status, { stopReason: ending.reason });
    }

    state = await db.readRunInstance(instanceRowId);
    await observe();
    if (failure) {
      if (launched) return finish('failed', { error: refusalMessage(failure) });
      // Nothing was created: try the next offer.
      refusals.push(`${offer.provider}${offer.spot ? ' (spot)' : ''}: ${refusalMessage(failure)}`);
      continue;
    }
    const outcome = (result as LaunchResult | null)?.outcome;
    // A failed boot was terminated before it ran, never charged: the next offer gets its chance.
    if (
      outcome === 'boot_failed' &&
      refusals.push(
        `${offer.provider}${offer.spot ? ' (spot)' : ''}: the boot failed (${(result as LaunchResult | null)?.reason})`,
      )
    )
      continue;
    const ended = endedByItself(result as LaunchResult | null, startedAtMs);
    if (ended) return finish(ended.status, ended.detail);
    // Ended by the service for a reason of its own (a key's spend cap, a budget stop): the run says which.
    if (state.endReason) return finish('failed', { error: `the instance was ended: ${state.endReason}` });
    return finish('failed', {
      error: 'the instance was terminated outside this run (for example POST /v1/compute/{id}/terminate)',
    });
  }
  return finish('failed', { error: `every offer was refused: ${refusals.join('; ')}` });
}

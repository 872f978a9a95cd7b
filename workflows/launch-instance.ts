import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Activities } from '../activities';
import type { PollResult, SshAccess } from '../activities/instances';
import type { ProviderInstance } from '../src/providers/types';
import type { InstanceRow } from '../src/db/queries/instances';
import {
  endInstanceSignal,
  instanceQuery,
  launchAcceptedUpdate,
  stopInstanceUpdate,
  terminateInstanceUpdate,
  type EndInstanceRequest,
  type LaunchCarried,
  type LaunchInput,
  type LaunchResult,
} from './contracts/launch';
import { observerWorkflowId, providerObservedSignal, watchInstanceSignal, type ObserverInput, type ProviderObservation } from './contracts/observation';
import { ACCOUNT_ID_ATTRIBUTE, INSTANCE_ID_ATTRIBUTE, PROVIDER_ATTRIBUTE } from './contracts/search-attributes';

const CONTINUE_AS_NEW_AFTER = 500;

interface Refusal {
  type: string;
  message: string;
  details?: unknown[];
}

function failureOf(err: unknown): Refusal {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return { type: cause.type ?? 'provider_error', message: cause.message, details: [...(cause.details ?? [])] };
  }
  if (cause instanceof Error) return { type: 'provider_unavailable', message: cause.message };
  return { type: 'internal_error', message: String(cause) };
}

/**
 * Refusals after which no instance can exist at the provider: nothing was sent (no key, bad input, the
 * database refused the intent), or the provider answered a definite no (4xx, no capacity, rejected key).
 */
function nothingCreated(refusal: Refusal, reachedProvider: boolean): boolean {
  if (!reachedProvider) return true;
  if (['provider_not_connected', 'provider_invalid_key', 'provider_no_capacity', 'provider_invalid_request', 'validation_error'].includes(refusal.type)) {
    return true;
  }
  const status = (refusal.details?.[0] as { providerStatus?: number | null } | undefined)?.providerStatus;
  return refusal.type === 'provider_provider_error' && typeof status === 'number' && status >= 400 && status < 500;
}

const INTERRUPTED = 'interrupted' as const;

/**
 * One managed instance, from create to terminate. Workflow id (= instance row id) is
 * `launch-<account>-<idempotency key>`.
 *
 * Create, in three steps so that an instance never exists without a row naming it: the row (intent, with the
 * tagged provider name) → the provider's create (a retry finds the earlier one by name) → the provider's
 * answer on the row. The API answers the launch when `launchAccepted` resolves. Whatever fails after the
 * provider may have said yes, the instance is terminated at the provider before the launch fails.
 *
 * Then: wait for running (metering starts at the provider's reported start, or within `bootPollMaxMs` of it),
 * emit `instance.started`, charge at every meter interval and at stop/terminate at the price fixed at launch,
 * notice a spot instance that disappears, and end after the final charge and `instance.terminated`.
 * A stop or terminate that cannot reach the provider never fails the workflow: it says why in the record
 * (`warnings`), keeps metering what still runs, and retries with backoff until it goes through (a reconnected
 * key is used). A stop or terminate request interrupts whatever the workflow waits on.
 */
export async function launchInstance(input: LaunchInput, carried?: LaunchCarried): Promise<LaunchResult> {
  const id = input.instanceId;
  const startToCloseTimeout = input.activityTimeoutMs ?? 30_000;
  const heartbeatTimeout = input.heartbeatTimeoutMs ?? 5_000;
  const bootPollMaxMs = input.bootPollMaxMs ?? 3_000;
  const endRetryInitialMs = input.endRetryInitialMs ?? 5_000;
  const endRetryMaxMs = input.endRetryMaxMs ?? 300_000;
  const fewAttempts = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 };
  /** Looks at the provider; cancelled (and not waited for) when a stop or terminate arrives. */
  const observe = proxyActivities<Activities>({
    startToCloseTimeout,
    heartbeatTimeout,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: fewAttempts,
  });
  /** A few quick attempts per round; the workflow's own loop keeps trying ends for as long as it takes. */
  const ending = proxyActivities<Activities>({ startToCloseTimeout, heartbeatTimeout, retry: fewAttempts });
  // The launch answer waits on these steps, so they run as local activities: no task-queue round trip
  // per step (bench:launch). All are idempotent, so re-running them after a lost worker is safe.
  const launching = proxyLocalActivities<Activities>({
    startToCloseTimeout,
    localRetryThreshold: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
  });
  /** Database steps never give up: the database coming back is only a matter of time. */
  const db = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });
  let row: InstanceRow | null = carried?.row ?? null;
  let refused: Refusal | null = null;
  let stopRequested = false;
  let terminateRequested = false;
  let endReason: string | null = carried?.endReason ?? null;
  const requested = () => terminateRequested || stopRequested;

  setHandler(instanceQuery, () => row);
  setHandler(launchAcceptedUpdate, async (requestHash: string) => {
    if (requestHash !== input.requestHash) {
      throw ApplicationFailure.nonRetryable('This Idempotency-Key was used with a different request body.', 'idempotency_conflict');
    }
    await condition(() => row !== null || refused !== null);
    if (refused) throw ApplicationFailure.nonRetryable(refused.message, refused.type, ...(refused.details ?? []));
    return row!;
  });
  setHandler(stopInstanceUpdate, async () => {
    stopRequested = true;
    await condition(() => row?.status === 'stopped' || row?.status === 'terminated' || refused !== null);
    return row!;
  });
  setHandler(endInstanceSignal, (request: EndInstanceRequest) => {
    endReason ??= request.reason;
    if (request.action === 'stop' && input.provider === 'runpod') stopRequested = true;
    else terminateRequested = true;
  });
  /** The observer's latest word on this instance (batched observation); taken by the loop that acts on it. */
  let observed: ProviderObservation | null = null;
  setHandler(providerObservedSignal, (observation: ProviderObservation) => {
    observed = observation;
  });
  setHandler(terminateInstanceUpdate, async () => {
    terminateRequested = true;
    await condition(() => row?.status === 'terminated' || refused !== null);
    return row;
  });

  /** Runs `fn` unless a stop or terminate arrives first, in which case it is abandoned. */
  async function interruptible<T>(fn: () => Promise<T>): Promise<T | typeof INTERRUPTED> {
    if (requested()) return INTERRUPTED;
    const scope = new CancellationScope();
    try {
      return await scope.run(() =>
        Promise.race([fn(), condition(requested).then(() => INTERRUPTED)]),
      );
    } finally {
      scope.cancel();
    }
  }

  const batched = (input.observation ?? 'batched') === 'batched';
  /** Without a word from the observer for this long while booting, the workflow makes sure one runs. */
  const bootSilenceMs = Math.max(10 * bootPollMaxMs, 30_000);

  /**
   * Makes sure the observer of this account and provider runs and knows this instance: a signal when it runs
   * (it wakes for an instance new to it), else a start as an abandoned child (it outlives this workflow).
   * Races with an observer that is just ending are settled by trying again; never throws.
   */
  async function ensureObserver(): Promise<void> {
    const observerId = observerWorkflowId(input.accountId, input.provider);
    const observerInput: ObserverInput = {
      accountId: input.accountId,
      provider: input.provider,
      steadyMs: input.pollIntervalMs,
      spotMs: input.spotPollIntervalMs ?? 10_000,
      bootMs: bootPollMaxMs,
      activityTimeoutMs: startToCloseTimeout,
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await getExternalWorkflowHandle(observerId).signal(watchInstanceSignal, id);
        return;
      } catch {
        // not running: start it
      }
      try {
        await startChild('observeProviderInstances', {
          workflowId: observerId,
          args: [observerInput],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          cancellationType: ChildWorkflowCancellationType.ABANDON,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: [
            { key: ACCOUNT_ID_ATTRIBUTE, value: input.accountId },
            { key: PROVIDER_ATTRIBUTE, value: input.provider },
          ],
        });
        return;
      } catch {
        await sleep(Math.min(1000 * 2 ** attempt, 10_000)); // started by another launch meanwhile, or the engine is busy
      }
    }
  }

  /** The observer's word, taken: what the loops act on in batched mode. */
  function takeObservation(): ProviderObservation | null {
    const taken = observed;
    observed = null;
    return taken;
  }

  /** One look at the provider: its answer, `INTERRUPTED`, or `null` when it could not be reached. */
  async function look(): Promise<PollResult | typeof INTERRUPTED | null> {
    try {
      return await interruptible(() => observe.pollInstance(id));
    } catch {
      return null;
    }
  }

  let nextChargeAt = carried?.nextChargeAt ?? Date.now() + input.meterIntervalMs;

  /**
   * Charges what has come due while the instance runs, in one charge through the latest interval boundary
   * passed: a workflow that fell behind (its worker was away) catches up in one step instead of one
   * activity per missed interval, which it might never finish doing.
   */
  async function chargeDue(current: InstanceRow): Promise<void> {
    if (current.status !== 'running' || Date.now() < nextChargeAt) return;
    const missed = Math.floor((Date.now() - nextChargeAt) / input.meterIntervalMs);
    const through = nextChargeAt + missed * input.meterIntervalMs;
    await db.chargeInstance(id, through);
    nextChargeAt = through + input.meterIntervalMs;
  }

  /**
   * Stops or terminates at the provider, however long it takes: between rounds the record says why it is
   * pending, and what still runs goes on being metered. Resolves with the moment the provider confirmed;
   * a stop gives way to a terminate request (`null`).
   */
  async function endAtProvider(action: 'stop' | 'terminate', wasRunning: boolean): Promise<number | null> {
    let wait = endRetryInitialMs;
    for (;;) {
      try {
        const { atMs } = action === 'stop' ? await ending.stopInstance(id) : await ending.terminateInstance(id);
        if (row!.lifecycle_warning) row = await db.noteLifecycleWarning(id, null);
        // Never before what was already charged (a worker's clock may run a little behind).
        return Math.max(atMs, row!.metered_through ? Date.parse(row!.metered_through) : 0);
      } catch (err) {
        const why = failureOf(err).message;
        row = await db.noteLifecycleWarning(id, `The ${action} has not reached the provider yet (${why}); it is retried until it does.`);
      }
      const retryAt = Date.now() + wait;
      while (Date.now() < retryAt) {
        const until = wasRunning ? Math.min(retryAt, nextChargeAt) : retryAt;
        if (action === 'stop') {
          if (await condition(() => terminateRequested, Math.max(1, until - Date.now()))) return null;
        } else {
          await sleep(Math.max(1, until - Date.now()));
        }
        if (wasRunning) await chargeDue({ ...row!, status: 'running' });
      }
      wait = Math.min(wait * 2, endRetryMaxMs);
    }
  }

  if (!row) {
    let reachedProvider = false;
    let created: ProviderInstance | null = null;
    try {
      const ssh: SshAccess = await launching.prepareLaunch(input); // the intent row, then the SSH key
      reachedProvider = true;
      created = await launching.createAtProvider(input, ssh);
      row = await launching.recordCreated(id, created);
      if (row.provider_instance_id) upsertSearchAttributes([{ key: INSTANCE_ID_ATTRIBUTE, value: row.provider_instance_id }]);
    } catch (err) {
      const refusal = failureOf(err);
      // The row says failed before the refusal is answered, so the client never sees a live-looking row.
      await db.failLaunch(id, refusal.message);
      refused = refusal;
      // Compensation: an instance carrying this launch's name must not outlive a failed launch.
      if (created || !nothingCreated(refusal, reachedProvider)) {
        await endCompensating();
      }
      await condition(allHandlersFinished);
      // Failing the run lets the same Idempotency-Key try again later: no instance exists.
      throw ApplicationFailure.nonRetryable(refusal.message, refusal.type, ...(refusal.details ?? []));
    }
  }

  /** Terminates, by its tagged name, whatever the failed create may have left at the provider. */
  async function endCompensating(): Promise<void> {
    let wait = endRetryInitialMs;
    for (;;) {
      try {
        await ending.terminateByName({ accountId: input.accountId, provider: input.provider, providerName: input.providerName });
        return;
      } catch {
        await sleep(wait);
        wait = Math.min(wait * 2, endRetryMaxMs);
      }
    }
  }

  // The observer watches from here on (batched); a continued-as-new or adopted run makes sure of it too.
  if (batched) await ensureObserver();

  // Wait for running: told by the observer (while something boots it looks 1 s, 2 s, … up to `bootPollMaxMs`
  // apart), or, per instance, looking just as often.
  let delay = Math.min(1000, bootPollMaxMs);
  while (!row.started_at && row.status !== 'stopped' && !requested()) {
    let seen: PollResult | ProviderObservation | typeof INTERRUPTED | null;
    if (batched) {
      if (!(await condition(() => requested() || observed !== null, bootSilenceMs))) {
        await ensureObserver();
        continue;
      }
      if (requested()) break;
      seen = takeObservation();
    } else {
      seen = await look();
    }
    if (seen === INTERRUPTED) break;
    if (seen && (seen.gone || seen.instance?.status === 'failed')) {
      row = await db.finishInstance(id, 'failed', null, seen.atMs, { reason: 'the provider lost the instance while it booted' });
      await condition(allHandlersFinished);
      return { instanceId: id, outcome: 'lost' };
    }
    if (seen?.instance?.status === 'running') {
      row = await db.markInstanceRunning(id, seen.atMs, seen.instance);
      break;
    }
    if (batched) continue;
    if (seen && 'row' in seen) row = seen.row;
    await condition(requested, delay);
    delay = Math.min(delay * 2, bootPollMaxMs);
  }

  let outcome: LaunchResult['outcome'] = 'terminated';
  for (let turn = 0; ; turn++) {
    const reason = endReason ? { reason: endReason } : {};
    if (terminateRequested) {
      const wasRunning = row.status === 'running';
      // One moment for both: the charge runs up to when the provider confirmed, and the record ends there.
      const endedAt = await endAtProvider('terminate', wasRunning);
      if (wasRunning) await db.chargeInstance(id, endedAt!);
      row = await db.finishInstance(id, 'terminated', 'instance.terminated', endedAt!, reason);
      break;
    }
    if (stopRequested) {
      stopRequested = false;
      if (row.status !== 'stopped') {
        const wasRunning = row.status === 'running';
        // `row` changes only once charge and event are written: the stop update resolves on it.
        const stoppedAt = await endAtProvider('stop', wasRunning);
        if (stoppedAt !== null) {
          if (wasRunning) await db.chargeInstance(id, stoppedAt);
          row = await db.finishInstance(id, 'stopped', 'instance.stopped', stoppedAt, reason);
        }
      }
      continue;
    }
    let seen: PollResult | ProviderObservation;
    if (batched) {
      // Only the meter timer, the observer's word and a request wake the workflow.
      const woken = await condition(() => requested() || observed !== null, Math.max(1, nextChargeAt - Date.now()));
      if (requested()) continue;
      if (!woken) {
        await chargeDue(row);
        await ensureObserver(); // once per meter interval: an observer ended by hand comes back
        if (!requested() && (turn >= (input.continueAsNewAfter ?? CONTINUE_AS_NEW_AFTER) || workflowInfo().continueAsNewSuggested)) {
          await condition(allHandlersFinished);
          await continueAsNew<typeof launchInstance>(input, { row, nextChargeAt, endReason });
        }
        continue;
      }
      seen = takeObservation()!;
    } else {
      const woken = await condition(requested, Math.max(1, Math.min(input.pollIntervalMs, nextChargeAt - Date.now())));
      if (woken) continue;
      await chargeDue(row);
      const looked = await look();
      if (looked === INTERRUPTED || looked === null) continue; // unreachable for now: keep metering, look again next interval
      seen = looked;
    }
    // Never before what was already charged (the observation may predate the last charge).
    const seenAt = Math.max(seen.atMs, row.metered_through ? Date.parse(row.metered_through) : 0);
    const providerStatus = seen.instance?.status;
    const keepsStopped = input.provider === 'runpod' && !input.endWhenStoppedByProvider;
    if (row.status === 'running' && (seen.gone || (providerStatus === 'stopped' && !keepsStopped))) {
      // Lost without a request of ours: charge up to when the provider said so, and say so.
      const lostAt = seenAt;
      await db.chargeInstance(id, lostAt);
      if (!seen.gone) await endAtProvider('terminate', false);
      row = await db.finishInstance(id, 'terminated', row.spot ? 'spot.preempted' : 'instance.terminated', lostAt, {
        reason: row.spot ? 'spot capacity reclaimed by the provider' : 'the provider ended the instance',
      });
      outcome = row.spot ? 'preempted' : 'lost';
      break;
    }
    if (row.status === 'running' && providerStatus === 'stopped') {
      // A pod stopped at RunPod (not through us): charged up to when it was seen stopped, at its launch price.
      const stoppedAt = seenAt;
      await db.chargeInstance(id, stoppedAt);
      row = await db.finishInstance(id, 'stopped', 'instance.stopped', stoppedAt, { reason: 'stopped at the provider' });
      continue;
    }
    if (row.status === 'stopped' && seen.gone) {
      row = await db.finishInstance(id, 'terminated', 'instance.terminated', seenAt, { reason: 'the provider ended the instance' });
      break;
    }
    if (row.status === 'stopped' && providerStatus === 'running') {
      // Started again at the provider: metering resumes now (the stopped time is not charged).
      row = row.started_at ? await db.resumeInstance(id, seenAt, seen.instance!) : await db.markInstanceRunning(id, seenAt, seen.instance!);
      nextChargeAt = seenAt + input.meterIntervalMs;
      continue;
    }
    if ('row' in seen && !seen.gone && seen.row.status !== 'terminated') row = seen.row;
    if (!requested() && (turn >= (input.continueAsNewAfter ?? CONTINUE_AS_NEW_AFTER) || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof launchInstance>(input, { row, nextChargeAt, endReason });
    }
  }
  await condition(allHandlersFinished);
  return { instanceId: id, outcome };
}

import { ApplicationFailure, allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import {
  endInstanceSignal,
  instanceQuery,
  launchAcceptedUpdate,
  startInstanceUpdate,
  stopInstanceUpdate,
  terminateInstanceUpdate,
  type EndInstanceRequest,
  type LaunchCarried,
  type LaunchInput,
  type LaunchResult,
} from './contracts/launch';
import { providerObservedSignal, type ProviderObservation } from './contracts/observation';
import { awaitRunning } from './launch/await-running';
import { createInstance } from './launch/create';
import { meterUntilEnd } from './launch/meter';
import { ensureObserver } from './launch/observer';
import type { Refusal } from './launch/refusal';
import { launchContext, type LaunchState } from './launch/state';

/** How long a start update waits for the pod to be seen running when the launch has no boot deadline of its own. */
const START_WAIT_MS = 10 * 60_000;

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
 * notice a spot instance that disappears, stop an idle one (its `idleStop` rule, on the observer's utilization
 * readings), and end after the final charge and `instance.terminated`.
 * A stop or terminate that cannot reach the provider never fails the workflow: it says why in the record
 * (`warnings`), keeps metering what still runs, and retries with backoff until it goes through (a reconnected
 * key is used). A stop or terminate request interrupts whatever the workflow waits on.
 */
export async function launchInstance(input: LaunchInput, carried?: LaunchCarried): Promise<LaunchResult> {
  const s: LaunchState = {
    row: carried?.row ?? null,
    refused: null,
    // A refused end the previous run was retrying goes on here.
    stopRequested: carried?.ending?.action === 'stop',
    terminateRequested: carried?.ending?.action === 'terminate',
    endReason: carried?.endReason ?? null,
    observed: null,
    nextChargeAt: carried?.nextChargeAt ?? Date.now() + input.meterIntervalMs,
    idleSinceMs: carried?.idleSinceMs ?? null,
    idleStopping: carried?.ending?.idleStopping ?? null,
    carriedEnd: carried?.ending ?? null,
    start: { requested: false, pending: 0, refused: null },
  };
  const c = launchContext(input, s);
  const id = c.id;

  setHandler(instanceQuery, () => s.row);
  setHandler(launchAcceptedUpdate, async (requestHash: string) => {
    if (requestHash !== input.requestHash) {
      throw ApplicationFailure.nonRetryable(
        'This Idempotency-Key was used with a different request body.',
        'idempotency_conflict',
      );
    }
    await condition(() => s.row !== null || s.refused !== null);
    if (s.refused)
      throw ApplicationFailure.nonRetryable(s.refused.message, s.refused.type, ...(s.refused.details ?? []));
    return s.row!;
  });
  setHandler(stopInstanceUpdate, async () => {
    s.stopRequested = true;
    await condition(
      () =>
        s.row?.status === 'stopped' ||
        s.row?.status === 'terminated' ||
        s.row?.status === 'failed' ||
        s.refused !== null,
    );
    return s.row!;
  });
  setHandler(endInstanceSignal, (request: EndInstanceRequest) => {
    s.endReason ??= request.reason;
    if (request.action === 'stop' && input.provider === 'runpod') s.stopRequested = true;
    else s.terminateRequested = true;
  });
  setHandler(providerObservedSignal, (observation: ProviderObservation) => {
    s.observed = observation;
  });
  setHandler(startInstanceUpdate, async () => {
    if (s.row?.status !== 'stopped') return s.row!;
    s.start.pending++;
    try {
      s.start.requested = true;
      s.start.refused = null;
      // A stop or terminate asked meanwhile goes first; the answer is then the record it leaves.
      await condition(() => !s.start.requested || s.terminateRequested || s.stopRequested);
      const refused = s.start.refused as Refusal | null;
      if (refused) throw ApplicationFailure.nonRetryable(refused.message, refused.type, ...(refused.details ?? []));
      // Metering resumes when the observer sees it running; a pod that never gets there answers as it stands.
      await condition(() => s.row?.status !== 'stopped', input.bootDeadlineMs ?? START_WAIT_MS);
      return s.row!;
    } finally {
      s.start.pending--;
    }
  });
  setHandler(terminateInstanceUpdate, async () => {
    s.terminateRequested = true;
    // A boot that failed ends `failed` (terminated at the provider): that answers a terminate too.
    await condition(() => s.row?.status === 'terminated' || s.row?.status === 'failed' || s.refused !== null);
    return s.row;
  });

  if (!s.row) await createInstance(c);
  // The observer watches from here on; a continued-as-new or adopted run makes sure of it too. A one-step
  // create has told it already (signal-with-start from its activity), unless the engine was away.
  if (!c.launched?.observerTold) await ensureObserver(c);
  const bootFailed = await awaitRunning(c);
  if (bootFailed !== null) {
    await condition(allHandlersFinished);
    return { instanceId: id, outcome: 'boot_failed', reason: bootFailed };
  }
  const outcome = await meterUntilEnd(c);
  await condition(allHandlersFinished);
  return {
    instanceId: id,
    outcome,
    ...(outcome === 'idle_stopped' && s.row?.end_reason ? { reason: s.row.end_reason } : {}),
  };
}

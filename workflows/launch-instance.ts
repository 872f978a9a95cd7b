import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LaunchInput, SshAccess } from '../activities/instances';
import type { InstanceRow } from '../src/db/queries/instances';
import { INSTANCE_ID_ATTRIBUTE } from '../src/temporal/search-attributes';

/** Resolves once the provider accepted the create (or rejects with why it did not). Argument: request hash. */
export const launchAcceptedUpdate = defineUpdate<InstanceRow, [string]>('launchAccepted');
/** Stops (runpod) and resolves with the stopped record. */
export const stopInstanceUpdate = defineUpdate<InstanceRow>('stopInstance');
/** Terminates and resolves with the terminated record (after the final charge). */
export const terminateInstanceUpdate = defineUpdate<InstanceRow | null>('terminateInstance');
export const instanceQuery = defineQuery<InstanceRow | null>('instance');

/** A stop or terminate asked for by the service itself (budget alert, depleted balance, schedule limit). */
export interface EndInstanceRequest {
  /** `stop` on runpod, `terminate` elsewhere; a `stop` sent for another provider terminates. */
  action: 'stop' | 'terminate';
  /** Why, in words for the instance's record and events, e.g. "budget alert alert_… reached". */
  reason: string;
}
/** Fire-and-forget form of stop/terminate for other workflows and services: nobody waits on an answer. */
export const endInstanceSignal = defineSignal<[EndInstanceRequest]>('endInstance');

export interface LaunchResult {
  instanceId: string;
  outcome: 'terminated' | 'preempted' | 'lost';
}

interface Carried {
  row: InstanceRow;
  nextChargeAt: number;
}

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
 * One managed instance, from create to terminate. Workflow id (= instance row id) is
 * `launch-<account>-<idempotency key>`. The API answers the launch as soon as `launchAccepted` resolves;
 * the workflow then waits for running (backing off), emits `instance.started`, and keeps watching: charges
 * at every meter interval and at stop/terminate, notices a spot instance that disappears, and ends after
 * the final charge and `instance.terminated`.
 */
export async function launchInstance(input: LaunchInput, carried?: Carried): Promise<LaunchResult> {
  const id = input.instanceId;
  const startToCloseTimeout = input.activityTimeoutMs ?? 60_000;
  const provider = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
  });
  /** Ending an instance must never give up: a leaked instance costs money. */
  const lifecycle = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });
  // The launch answer waits on these two steps, so they run as local activities: no task-queue round trip
  // per step (bench:launch). Both are idempotent, so re-running them after a lost worker is safe.
  const launching = proxyLocalActivities<Activities>({
    startToCloseTimeout,
    localRetryThreshold: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
  });
  const db = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });
  let row: InstanceRow | null = carried?.row ?? null;
  let refused: Refusal | null = null;
  let stopRequested = false;
  let terminateRequested = false;
  let endReason: string | null = null;

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
  setHandler(terminateInstanceUpdate, async () => {
    terminateRequested = true;
    await condition(() => row?.status === 'terminated' || refused !== null);
    return row;
  });

  if (!row) {
    try {
      const ssh: SshAccess = await launching.resolveSshAccess(input);
      row = await launching.createInstance(input, ssh);
      if (row.provider_instance_id) upsertSearchAttributes([{ key: INSTANCE_ID_ATTRIBUTE, value: row.provider_instance_id }]);
    } catch (err) {
      refused = failureOf(err);
      await condition(allHandlersFinished);
      // Failing the run lets the same Idempotency-Key try again later: no instance exists.
      throw ApplicationFailure.nonRetryable(refused.message, refused.type, ...(refused.details ?? []));
    }
  }

  // Wait for running, backing off from 1 s to 15 s between looks.
  let delay = 1000;
  // Until metering has started (started_at), whatever the status says: a retried create can find the
  // instance already running, and it still needs its start recorded and instance.started emitted.
  while (!row.started_at && row.status !== 'stopped' && !terminateRequested) {
    let seen;
    try {
      seen = await provider.pollInstance(id);
    } catch {
      await condition(() => terminateRequested, delay);
      continue;
    }
    if (seen.gone || seen.instance?.status === 'failed') {
      row = await db.finishInstance(id, 'failed', null, Date.now(), { reason: 'the provider lost the instance while it booted' });
      await condition(allHandlersFinished);
      return { instanceId: id, outcome: 'lost' };
    }
    if (seen.instance?.status === 'running') {
      row = await db.markInstanceRunning(id, Date.now(), seen.instance);
      break;
    }
    row = seen.row;
    await condition(() => terminateRequested, delay);
    delay = Math.min(delay * 2, 15_000);
  }

  let nextChargeAt = carried?.nextChargeAt ?? Date.now() + input.meterIntervalMs;
  let outcome: LaunchResult['outcome'] = 'terminated';
  for (let turn = 0; ; turn++) {
    if (terminateRequested) {
      await lifecycle.terminateInstance(id);
      if (row.status === 'running') await db.chargeInstance(id, Date.now());
      row = await db.finishInstance(id, 'terminated', 'instance.terminated', Date.now(), endReason ? { reason: endReason } : {});
      break;
    }
    if (stopRequested) {
      stopRequested = false;
      if (row.status === 'running') {
        // `row` changes only once charge and event are written: the stop update resolves on it.
        await lifecycle.stopInstance(id);
        await db.chargeInstance(id, Date.now());
        row = await db.finishInstance(id, 'stopped', 'instance.stopped', Date.now(), endReason ? { reason: endReason } : {});
      }
      continue;
    }
    const woken = await condition(
      () => terminateRequested || stopRequested,
      Math.max(1, Math.min(input.pollIntervalMs, nextChargeAt - Date.now())),
    );
    if (woken) continue;
    if (row.status === 'running' && Date.now() >= nextChargeAt) {
      await db.chargeInstance(id, nextChargeAt);
      nextChargeAt += input.meterIntervalMs;
    }
    let seen;
    try {
      seen = await provider.pollInstance(id);
    } catch {
      continue; // the provider is unreachable for now: keep metering, look again next interval
    }
    const lostWhileRunning = row.status === 'running' && (seen.gone || seen.instance?.status === 'stopped');
    if (lostWhileRunning) {
      // Lost without a request of ours: charge up to now, and say so.
      await db.chargeInstance(id, Date.now());
      if (!seen.gone) await lifecycle.terminateInstance(id);
      row = await db.finishInstance(id, 'terminated', row.spot ? 'spot.preempted' : 'instance.terminated', Date.now(), {
        reason: row.spot ? 'spot capacity reclaimed by the provider' : 'the provider ended the instance',
      });
      outcome = row.spot ? 'preempted' : 'lost';
      break;
    }
    if (!seen.gone) row = seen.row.status === 'terminated' ? row : seen.row;
    if (turn >= (input.continueAsNewAfter ?? CONTINUE_AS_NEW_AFTER) || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof launchInstance>(input, { row, nextChargeAt });
    }
  }
  await condition(allHandlersFinished);
  return { instanceId: id, outcome };
}

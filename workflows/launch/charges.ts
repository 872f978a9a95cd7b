/** Metering and ending at the provider: what every phase after the create uses. */
import { condition, patched, sleep } from '@temporalio/workflow';
import type { InstanceRow } from '../../src/db/queries/instances';
import { failureOf } from './refusal';
import type { CarriedEnd } from '../contracts/launch';
import { continueEndAsNew, endRetryDue, type LaunchContext } from './state';

/**
 * Marks runs whose meter boundary moves on while the instance is not running. Without it the boundary stayed
 * where it was, so the meter loop of a stopped pod waited 1 ms again and again (a timer, a signal to the
 * observer and a workflow task per turn) until a start or an end.
 */
export const STOPPED_SLEEPS_PATCH = 'launch-stopped-sleeps';

/**
 * Marks runs that charge a stopped RunPod pod's volume (the storage RunPod bills while it is stopped): from the
 * stop, at every meter boundary while stopped, and up to a start or the terminate. Without it stopped time
 * cost nothing.
 */
export const STOPPED_STORAGE_PATCH = 'launch-stopped-storage';

/** The GB a stopped instance keeps at its provider: a RunPod pod's volume (its container disk is wiped). */
const keptGb = (c: LaunchContext): number => (c.input.provider === 'runpod' ? (c.input.volumeGb ?? 0) : 0);

/**
 * Charges a stopped instance's storage up to `throughMs` (the activity does nothing once it is no longer
 * stopped). Called at the stop moment, it charges nothing and starts the storage counting in the burn.
 */
export async function chargeStorageThrough(c: LaunchContext, throughMs: number): Promise<void> {
  if (keptGb(c) <= 0 || !patched(STOPPED_STORAGE_PATCH)) return;
  await c.acts.db.chargeStoppedStorage(c.id, throughMs, keptGb(c));
}

/** A stopped instance's meter boundary: the next one after now, so the workflow sleeps a whole interval. */
async function passStoppedBoundary(c: LaunchContext): Promise<void> {
  const { s, input } = c;
  const missed = Math.floor((Date.now() - s.nextChargeAt) / input.meterIntervalMs);
  await chargeStorageThrough(c, s.nextChargeAt + missed * input.meterIntervalMs);
  s.nextChargeAt += (missed + 1) * input.meterIntervalMs;
}

/**
 * Charges what has come due while the instance runs, in one charge through the latest interval boundary
 * passed: a workflow that fell behind (its worker was away) catches up in one step instead of one
 * activity per missed interval, which it might never finish doing.
 */
export async function chargeDue(c: LaunchContext, current: InstanceRow): Promise<void> {
  const { s, input } = c;
  if (Date.now() < s.nextChargeAt) return;
  if (current.status !== 'running') {
    if (patched(STOPPED_SLEEPS_PATCH)) await passStoppedBoundary(c);
    return;
  }
  const missed = Math.floor((Date.now() - s.nextChargeAt) / input.meterIntervalMs);
  const through = s.nextChargeAt + missed * input.meterIntervalMs;
  const { meteredThrough } = await c.acts.db.chargeInstance(c.id, through);
  // The workflow's copy of the record follows the charge: continue-as-new carries it, the `instance` query
  // answers with it, and "never before what was already charged" reads it. (Undefined in histories recorded
  // before the activity answered with it.)
  if (meteredThrough !== undefined && s.row) s.row = { ...s.row, metered_through: meteredThrough };
  s.nextChargeAt = through + input.meterIntervalMs;
}

/**
 * Stops or terminates at the provider, however long it takes: between rounds the record says why it is
 * pending, and what still runs goes on being metered. Resolves with the moment the provider confirmed;
 * a stop gives way to a terminate request (`null`). A `carried` end (a request's, not a boot's or a loss's)
 * continues as new after as many rounds as the meter loop has turns, and goes on in the new run.
 */
export async function endAtProvider(
  c: LaunchContext,
  action: 'stop' | 'terminate',
  wasRunning: boolean,
  carried?: { retryWaitMs?: number; idleStopping: CarriedEnd['idleStopping'] },
): Promise<number | null> {
  const { s, id } = c;
  const { db, ending } = c.acts;
  let wait = carried?.retryWaitMs ?? c.settings.endRetryInitialMs;
  for (let round = 1; ; round++) {
    try {
      const { atMs } = action === 'stop' ? await ending.stopInstance(id) : await ending.terminateInstance(id);
      if (s.row!.lifecycle_warning) s.row = await db.noteLifecycleWarning(id, null);
      // Never before what was already charged (a worker's clock may run a little behind).
      return Math.max(atMs, s.row!.metered_through ? Date.parse(s.row!.metered_through) : 0);
    } catch (err) {
      const why = failureOf(err).message;
      s.row = await db.noteLifecycleWarning(
        id,
        `The ${action} has not reached the provider yet (${why}); it is retried until it does.`,
      );
    }
    const retryAt = Date.now() + wait;
    while (Date.now() < retryAt) {
      const until = wasRunning ? Math.min(retryAt, s.nextChargeAt) : retryAt;
      if (action === 'stop') {
        if (await condition(() => s.terminateRequested, Math.max(1, until - Date.now()))) return null;
      } else {
        await sleep(Math.max(1, until - Date.now()));
      }
      if (wasRunning) await chargeDue(c, { ...s.row!, status: 'running' });
    }
    wait = Math.min(wait * 2, c.settings.endRetryMaxMs);
    if (carried && endRetryDue(c, round)) {
      await continueEndAsNew(c, { action, wasRunning, retryWaitMs: wait, idleStopping: carried.idleStopping });
    }
  }
}

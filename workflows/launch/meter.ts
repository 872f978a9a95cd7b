/**
 * Meter until the end: charge at every meter interval and at stop/terminate at the price fixed at launch,
 * act on what the provider says (a spot instance that disappears, a pod stopped or started at RunPod, GPUs idle
 * past the instance's idle-stop rule), and
 * end after the final charge. A stop or terminate that cannot reach the provider never fails the workflow:
 * it says why in the record, keeps metering what still runs, and retries with backoff until it goes through.
 */
import { condition } from '@temporalio/workflow';
import type { LaunchResult } from '../contracts/launch';
import type { ProviderObservation } from '../contracts/observation';
import { chargeDue, chargeStorageThrough, endAtProvider } from './charges';
import { checkIdle, endEvents, endExtra } from './idle';
import { ensureObserver, takeObservation } from './observer';
import { catchUpStart, startFromReportedExit } from './progress';
import { failureOf } from './refusal';
import { continueAsNewIfDue, requested, type LaunchContext } from './state';

/** Only the meter timer, the observer's word and a request wake the workflow. */
async function awaitObservation(c: LaunchContext, turn: number): Promise<ProviderObservation | null> {
  const { s } = c;
  const woken = await condition(
    () => requested(s) || s.start.requested || s.observed !== null,
    Math.max(1, s.nextChargeAt - Date.now()),
  );
  if (requested(s) || s.start.requested) return null;
  if (!woken) {
    await chargeDue(c, s.row!);
    await ensureObserver(c); // once per meter interval: an observer ended by hand comes back
    await continueAsNewIfDue(c, turn);
    return null;
  }
  return takeObservation(s)!;
}

/** Carries out a stop or terminate request; the outcome when the workflow ends with it. */
async function onRequest(c: LaunchContext): Promise<LaunchResult['outcome'] | null> {
  const { s, id } = c;
  const { db } = c.acts;
  // An end carried from the previous run: the record says `stopping` or `terminating` by now.
  const carried = s.carriedEnd;
  s.carriedEnd = null;
  const resumable = { retryWaitMs: carried?.retryWaitMs, idleStopping: s.idleStopping };
  if (s.terminateRequested) {
    await catchUpStart(c);
    await startFromReportedExit(c);
    const wasRunning = carried?.wasRunning ?? s.row!.status === 'running';
    // One moment for both: the charge runs up to when the provider confirmed, and the record ends there.
    const endedAt = await endAtProvider(c, 'terminate', wasRunning, resumable);
    if (wasRunning) await db.chargeInstance(id, endedAt!);
    else await chargeStorageThrough(c, endedAt!); // a stopped pod's storage, up to the terminate
    s.row = await db.finishInstance(id, 'terminated', endEvents(c, 'terminate'), endedAt!, endExtra(c, 'terminate'));
    return s.idleStopping === 'terminate' ? 'idle_stopped' : 'terminated';
  }
  s.stopRequested = false;
  if (s.row!.status !== 'stopped') {
    await catchUpStart(c);
    const wasRunning = carried?.wasRunning ?? s.row!.status === 'running';
    // `row` changes only once charge and event are written: the stop update resolves on it.
    const stoppedAt = await endAtProvider(c, 'stop', wasRunning, resumable);
    if (stoppedAt !== null) {
      if (wasRunning) await db.chargeInstance(id, stoppedAt);
      s.row = await db.finishInstance(id, 'stopped', endEvents(c, 'stop'), stoppedAt, endExtra(c, 'stop'));
      await chargeStorageThrough(c, stoppedAt);
    }
  }
  if (s.idleStopping) {
    // The idle stop is done: a later stop or terminate is not the idle stop's.
    s.idleStopping = null;
    s.endReason = null;
  }
  s.idleSinceMs = null;
  return null;
}

/**
 * Acts on what the provider says: `ended` with the outcome, `acted` (the record moved), or `nothing` to do.
 */
async function onObservation(
  c: LaunchContext,
  seen: ProviderObservation,
): Promise<{ ended: LaunchResult['outcome'] } | 'acted' | 'nothing'> {
  const { s, id, input } = c;
  const { db } = c.acts;
  const row = s.row!;
  // Never before what was already charged (the observation may predate the last charge).
  const seenAt = Math.max(seen.atMs, row.metered_through ? Date.parse(row.metered_through) : 0);
  const providerStatus = seen.instance?.status;
  const keepsStopped = input.provider === 'runpod' && !input.endWhenStoppedByProvider;
  if (row.status === 'running' && (seen.gone || (providerStatus === 'stopped' && !keepsStopped))) {
    // Lost without a request of ours: charge up to when the provider said so, and say so.
    const lostAt = seenAt;
    await db.chargeInstance(id, lostAt);
    if (!seen.gone) await endAtProvider(c, 'terminate', false);
    s.row = await db.finishInstance(id, 'terminated', row.spot ? 'spot.preempted' : 'instance.terminated', lostAt, {
      reason: row.spot ? 'spot capacity reclaimed by the provider' : 'the provider ended the instance',
    });
    return { ended: s.row.spot ? 'preempted' : 'lost' };
  }
  if (row.status === 'running' && providerStatus === 'stopped') {
    // A pod stopped at RunPod (not through us): charged up to when it was seen stopped, at its launch price.
    const stoppedAt = seenAt;
    await db.chargeInstance(id, stoppedAt);
    s.row = await db.finishInstance(id, 'stopped', 'instance.stopped', stoppedAt, {
      reason: 'stopped at the provider',
    });
    await chargeStorageThrough(c, stoppedAt);
    return 'acted';
  }
  if (row.status === 'stopped' && seen.gone) {
    await chargeStorageThrough(c, seenAt);
    s.row = await db.finishInstance(id, 'terminated', 'instance.terminated', seenAt, {
      reason: 'the provider ended the instance',
    });
    return { ended: 'terminated' };
  }
  if (row.status === 'stopped' && providerStatus === 'running') {
    // Started again at the provider: metering resumes now; the stopped time is charged as storage only.
    await chargeStorageThrough(c, seenAt);
    s.row = row.started_at
      ? await db.resumeInstance(id, seenAt, seen.instance!)
      : await db.markInstanceRunning(id, seenAt, seen.instance!);
    s.nextChargeAt = seenAt + input.meterIntervalMs;
    return 'acted';
  }
  return 'nothing';
}

/**
 * Carries out a start update: asks the provider to start the stopped pod. The record stays `stopped` (its
 * storage charged) until the observer sees it running, which resumes metering (`onObservation`).
 */
async function onStartRequest(c: LaunchContext): Promise<void> {
  const { s } = c;
  try {
    if (s.row!.status === 'stopped') s.row = await c.acts.ending.startInstance(c.id);
  } catch (err) {
    s.start.refused = failureOf(err);
  }
  s.start.requested = false;
}

/** Runs from the instance's start (or boot) to its end; resolves with how it ended. */
export async function meterUntilEnd(c: LaunchContext): Promise<LaunchResult['outcome']> {
  for (let turn = 0; ; turn++) {
    if (c.s.terminateRequested || c.s.stopRequested) {
      const ended = await onRequest(c);
      if (ended) return ended;
      continue;
    }
    if (c.s.start.requested) {
      await onStartRequest(c);
      continue;
    }
    const seen = await awaitObservation(c, turn);
    if (!seen) continue;
    const acted = await onObservation(c, seen);
    if (typeof acted === 'object') return acted.ended;
    if (acted === 'nothing') {
      checkIdle(c, seen);
      await continueAsNewIfDue(c, turn);
    }
  }
}

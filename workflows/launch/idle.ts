/**
 * Idle stop in the launch workflow: each utilization reading the observer brings moves the window
 * (src/domain/idle-stop.ts); a reading that ends it asks the workflow's own stop (runpod) or terminate
 * (vastai), like a budget stop, so the end is charged and recorded the same way.
 */
import type { PollResult } from '../../activities/instances';
import type { EventType } from '../../src/db/queries/events';
import { IDLE_STOP_DECISIONS_V1 as idleStop } from '../../src/domain/idle-stop';
import type { ProviderObservation } from '../contracts/observation';
import { requested, type LaunchContext } from './state';

const MINUTE_MS = 60_000;

/** Moves the idle window on one observation of a running instance; asks the end when the window has passed. */
export function checkIdle(c: LaunchContext, seen: PollResult | ProviderObservation): void {
  const { s, input } = c;
  const rule = input.idleStop;
  if (!rule || requested(s)) return;
  if (s.row!.status !== 'running' || seen.gone || seen.instance?.status !== 'running') {
    s.idleSinceMs = null; // a stopped (or resumed) instance starts a fresh window
    return;
  }
  const reading = idleStop.readUtilization(seen.instance.gpuUtilization, s.row!.gpu_count, rule);
  const due = idleStop.idleStopDue(
    s.idleSinceMs,
    reading,
    seen.atMs,
    rule.for_minutes * (input.idleStopMinuteMs ?? MINUTE_MS),
  );
  s.idleSinceMs = idleStop.nextIdleSince(s.idleSinceMs, reading, seen.atMs);
  if (!due) return;
  s.endReason = idleStop.idleStopReason(rule);
  // A pod is stopped (kept, its disk too) unless the launch is a scheduled run's: an idle job is done.
  s.idleStopping = input.provider === 'runpod' && !input.endWhenStoppedByProvider ? 'stop' : 'terminate';
  if (s.idleStopping === 'stop') s.stopRequested = true;
  else s.terminateRequested = true;
}

/**
 * The events of an end: the idle stop's also says `instance.idle_stopped` (a user's terminate of a pod the
 * idle stop is stopping is the user's, with its plain event).
 */
export function endEvents(c: LaunchContext, action: 'stop' | 'terminate'): EventType | EventType[] {
  const plain: EventType = action === 'stop' ? 'instance.stopped' : 'instance.terminated';
  return c.s.idleStopping === action ? ['instance.idle_stopped', plain] : plain;
}

/** What an idle stop's events carry besides the reason: the rule that fired. */
export function endExtra(c: LaunchContext, action: 'stop' | 'terminate'): Record<string, unknown> {
  const idle = c.s.idleStopping === action;
  return {
    ...(c.s.endReason ? { reason: c.s.endReason } : {}),
    ...(idle && c.input.idleStop ? { idle_stop: { ...c.input.idleStop } } : {}),
  };
}

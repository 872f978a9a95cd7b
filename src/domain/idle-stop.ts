/**
 * Idle stop (beyond the spec): an instance whose every GPU reports utilization below a threshold,
 * continuously for a while, is stopped (runpod) or terminated (vastai) by its launch workflow. Pure rules,
 * used by the workflow (deterministic) and by the API's validation; no I/O.
 *
 * The window runs on the observations' own timestamps (when the provider answered), not on timers:
 * - a reading where every GPU is below the threshold is idle: the window starts at the first such reading;
 * - a reading where any GPU is at or above it is busy: the window is reset;
 * - a missing reading (no utilization reported, or fewer values than the instance has GPUs, none of them at
 *   or above the threshold) resets nothing but never counts as idle: the stop is only ever decided on an
 *   idle reading at least the window after the window's start.
 * So the stop comes at most one observation interval after the window has passed.
 */

/** The rule as the API takes it and the instance's record shows it. */
export interface IdleStopRule {
  /** 1–100: every GPU below this percent counts as idle. */
  utilization_below_percent: number;
  /** ≥ 1: idle this many minutes (of `IDLE_STOP_MINUTE` each, 60 s unless compressed for tests) before the stop. */
  for_minutes: number;
}

/** Providers that report GPU utilization; `idle_stop` is refused elsewhere (Lambda reports none). */
export const IDLE_STOP_PROVIDERS = ['runpod', 'vastai'] as const;

export const IDLE_STOP_LAMBDA_MESSAGE =
  'Lambda reports no GPU utilization, so idle_stop cannot be used with provider lambda.';

export type UtilizationReading = 'idle' | 'busy' | 'missing';

/** What one observation says of the instance's GPUs against the rule. */
export function readUtilization(
  values: readonly number[] | undefined | null,
  gpuCount: number,
  rule: IdleStopRule,
): UtilizationReading {
  const known = (values ?? []).filter((v) => Number.isFinite(v));
  if (known.some((v) => v >= rule.utilization_below_percent)) return 'busy';
  return known.length > 0 && known.length >= gpuCount ? 'idle' : 'missing';
}

/** The state of the window after one reading: since when every GPU has been idle (null: not idle). */
export function nextIdleSince(idleSinceMs: number | null, reading: UtilizationReading, atMs: number): number | null {
  if (reading === 'busy') return null;
  if (reading === 'missing') return idleSinceMs;
  return idleSinceMs ?? atMs;
}

/** Whether this reading ends the window: idle, and idle since at least `windowMs` ago. */
export function idleStopDue(
  idleSinceMs: number | null,
  reading: UtilizationReading,
  atMs: number,
  windowMs: number,
): boolean {
  return reading === 'idle' && idleSinceMs !== null && atMs - idleSinceMs >= windowMs;
}

/** The words for the instance's record and its events. */
export function idleStopReason(rule: IdleStopRule): string {
  const minutes = rule.for_minutes === 1 ? '1 minute' : `${rule.for_minutes} minutes`;
  return `idle stop: every GPU below ${rule.utilization_below_percent}% utilization for ${minutes}`;
}

/**
 * The idle-stop decisions launch workflows make (workflows/launch/idle.ts), version 1. Running workflows replay
 * on what they decided: a change to a decision here is a new version beside this one (`IDLE_STOP_DECISIONS_V2`
 * with the new functions), chosen in the workflow behind a `patched()` marker, while this one stays until no run
 * that started on it is open. test/workflows/replay-decisions.test.ts fails when this module's code changes
 * without that step being considered (docs/operations.md, "Deploys").
 */
export const IDLE_STOP_DECISIONS_V1 = Object.freeze({ readUtilization, nextIdleSince, idleStopDue, idleStopReason });

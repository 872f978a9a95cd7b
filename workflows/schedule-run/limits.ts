/** A run's limits (max_duration_hours, max_cost) as deadlines, and the timers that approach them. */
import type { ScheduleRow } from '../../src/db/queries/schedules';

const MS_PER_HOUR = 3_600_000;
/**
 * Waking once shortly before a deadline puts the workflow on a live worker in time: after a worker dies, the
 * first task of a workflow cached there waits out the sticky-queue timeout (10 s by default) before another
 * worker takes it, which would otherwise land on the deadline itself and overshoot a cost cap.
 */
const PREWAKE_MS = 15_000;

/** How the run ends when it ends the instance itself. */
export type Ending = { status: 'stopped_max_duration' | 'stopped_max_cost' | 'cancelled'; reason: string };

/**
 * The run's limits at `now`: the ending when one is reached, else the earliest moment one will be
 * (Infinity when none applies yet).
 */
export function runDeadline(
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
 * When to wake on the way to a deadline at `wakeAt`: far deadlines are approached in halves and once more
 * PREWAKE_MS before, so a run takes a few timers however long it is.
 */
export function approachDeadline(wakeAt: number, now: number): number {
  if (wakeAt === Infinity) return wakeAt;
  const remaining = wakeAt - now;
  if (remaining > 2 * PREWAKE_MS) return now + Math.floor(remaining / 2);
  if (remaining > PREWAKE_MS) return wakeAt - PREWAKE_MS;
  return wakeAt;
}

/**
 * The idle-stop reading of one observation: idle only when every GPU of the instance reports below the
 * threshold; busy as soon as one is at or above it; missing when the provider reports none or fewer values
 * than the instance has GPUs (and none busy). The window in workflow time is test/workflows/idle-stop.test.ts.
 */
import { idleStopDue, idleStopReason, nextIdleSince, readUtilization } from '../../src/domain/idle-stop';

const RULE = { utilization_below_percent: 10, for_minutes: 5 };

it.each([
  [[3, 9.9], 2, 'idle'],
  [[3, 10], 2, 'busy'],
  [[50], 2, 'busy'],
  [[3], 2, 'missing'],
  [[], 1, 'missing'],
  [null, 1, 'missing'],
  [undefined, 1, 'missing'],
  [[Number.NaN, 2], 2, 'missing'],
] as const)('%j on %i GPU(s) reads %s', (values, gpus, reading) => {
  expect(readUtilization(values as number[] | null | undefined, gpus, RULE)).toBe(reading);
});

it('the window starts at the first idle reading, restarts on busy, keeps through missing, ends only on idle', () => {
  const window = 5 * 60_000;
  let since: number | null = null;
  since = nextIdleSince(since, 'idle', 1_000);
  expect(since).toBe(1_000);
  expect(nextIdleSince(since, 'missing', 2_000)).toBe(1_000);
  expect(idleStopDue(since, 'missing', 1_000 + window, window)).toBe(false);
  expect(idleStopDue(since, 'idle', 1_000 + window - 1, window)).toBe(false);
  expect(idleStopDue(since, 'idle', 1_000 + window, window)).toBe(true);
  expect(nextIdleSince(since, 'busy', 3_000)).toBeNull();
  expect(idleStopReason(RULE)).toBe('idle stop: every GPU below 10% utilization for 5 minutes');
  expect(idleStopReason({ utilization_below_percent: 3, for_minutes: 1 })).toBe(
    'idle stop: every GPU below 3% utilization for 1 minute',
  );
});

/**
 * Per-instance observation (`observation: 'per-instance'`), the earlier design kept for comparison: the
 * workflow polls its own instance every `pollIntervalMs` instead of hearing from the (account, provider) observer.
 */
import { condition } from '@temporalio/workflow';
import type { PollResult } from '../../activities/instances';
import { chargeDue } from './charges';
import { interruptible, INTERRUPTED, requested, type LaunchContext } from './state';

/** One look at the provider: its answer, `INTERRUPTED`, or `null` when it could not be reached. */
export async function look(c: LaunchContext): Promise<PollResult | typeof INTERRUPTED | null> {
  try {
    return await interruptible(c.s, () => c.acts.observe.pollInstance(c.id));
  } catch {
    return null;
  }
}

/**
 * While the instance runs: waits for the next poll (or meter) moment, charges what came due and looks.
 * Null when there is nothing to act on (a request arrived, or the provider could not be reached).
 */
export async function pollWhileRunning(c: LaunchContext): Promise<PollResult | null> {
  const { s, input } = c;
  const woken = await condition(() => requested(s), Math.max(1, Math.min(input.pollIntervalMs, s.nextChargeAt - Date.now())));
  if (woken) return null;
  await chargeDue(c, s.row!);
  const looked = await look(c);
  if (looked === INTERRUPTED || looked === null) return null; // unreachable for now: keep metering, look again next interval
  return looked;
}

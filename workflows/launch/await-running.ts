/**
 * Wait for running: told by the observer (while something boots it looks 1 s, 2 s, … up to `bootPollMaxMs`
 * apart), or, per instance, looking just as often. Metering starts at the provider's reported start.
 */
import { condition } from '@temporalio/workflow';
import type { PollResult } from '../../activities/instances';
import type { ProviderObservation } from '../contracts/observation';
import { ensureObserver, takeObservation } from './observer';
import { look } from './per-instance';
import { INTERRUPTED, requested, type LaunchContext } from './state';

/** Acts on one word about a booting instance: lost (the row failed), running (metering starts), or still booting. */
async function onBootObservation(c: LaunchContext, seen: PollResult | ProviderObservation | null): Promise<'lost' | 'running' | 'booting'> {
  if (seen && (seen.gone || seen.instance?.status === 'failed')) {
    c.s.row = await c.acts.db.finishInstance(c.id, 'failed', null, seen.atMs, { reason: 'the provider lost the instance while it booted' });
    return 'lost';
  }
  if (seen?.instance?.status === 'running') {
    c.s.row = await c.acts.db.markInstanceRunning(c.id, seen.atMs, seen.instance);
    return 'running';
  }
  return 'booting';
}

/** Returns once the instance runs, was stopped, or a stop or terminate arrived; `true` when the provider lost it meanwhile. */
export async function awaitRunning(c: LaunchContext): Promise<boolean> {
  const { s } = c;
  const booting = () => !s.row!.started_at && s.row!.status !== 'stopped' && !requested(s);
  if (c.settings.batched) {
    while (booting()) {
      if (!(await condition(() => requested(s) || s.observed !== null, c.settings.bootSilenceMs))) {
        await ensureObserver(c);
        continue;
      }
      if (requested(s)) break;
      const step = await onBootObservation(c, takeObservation(s));
      if (step === 'lost') return true;
      if (step === 'running') break;
    }
    return false;
  }
  let delay = Math.min(1000, c.settings.bootPollMaxMs);
  while (booting()) {
    const seen = await look(c);
    if (seen === INTERRUPTED) break;
    const step = await onBootObservation(c, seen);
    if (step === 'lost') return true;
    if (step === 'running') break;
    if (seen && 'row' in seen) s.row = seen.row;
    await condition(() => requested(s), delay);
    delay = Math.min(delay * 2, c.settings.bootPollMaxMs);
  }
  return false;
}

/**
 * Wait for running: told by the observer (while something boots it looks 1 s, 2 s, … up to `bootPollMaxMs`
 * apart). Metering starts at the provider's reported start.
 * A boot the provider fails, or that passes its deadline (learned or configured, `bootDeadline`), ends the
 * launch: terminated at the provider, `failed` with the reason and `instance.failed`, never charged.
 */
import { condition } from '@temporalio/workflow';
import { BOOT_DECISIONS_V1 as boot } from '../../src/domain/boot-deadlines';
import type { ProviderObservation } from '../contracts/observation';
import { endAtProvider } from './charges';
import { ensureObserver, takeObservation } from './observer';
import { startFromReportedExit, tellProgress } from './progress';
import { requested, type LaunchContext } from './state';

/**
 * Acts on one word about a booting instance: a failed boot (its reason), running (metering starts), or still booting.
 */
async function onBootObservation(
  c: LaunchContext,
  seen: ProviderObservation | null,
): Promise<{ failed: string } | 'running' | 'booting'> {
  const failure = seen ? boot.bootFailure(seen) : null;
  if (failure) return { failed: failure };
  if (seen?.instance?.status === 'running') {
    // A one-step create's run marks it as a local activity too (no task-queue round trip, no extra task).
    c.s.row = await (c.launched ? c.acts.localDb : c.acts.db).markInstanceRunning(c.id, seen.atMs, seen.instance);
    await tellProgress(c);
    return 'running';
  }
  return 'booting';
}

/**
 * Terminated at the provider (however long that takes), then `failed` with the reason and `instance.failed`; no charge.
 */
async function failBoot(c: LaunchContext, reason: string): Promise<string> {
  const endedAt = await endAtProvider(c, 'terminate', false);
  c.s.row = await c.acts.db.finishInstance(c.id, 'failed', 'instance.failed', endedAt!, { reason });
  return reason;
}

/**
 * Returns once the instance runs, was stopped, or a stop or terminate arrived (null), or with the reason its
 * boot failed (the instance is then terminated and recorded `failed`).
 */
export async function awaitRunning(c: LaunchContext): Promise<string | null> {
  const { s } = c;
  const booting = () => !s.row!.started_at && s.row!.status !== 'stopped' && !requested(s);
  if (!booting()) return null;
  const createdAt = Date.parse(s.row!.created_at);
  const deadlineMs =
    c.input.bootDeadlineMs ??
    c.launched?.bootDeadlineMs ??
    (await c.acts.db.bootDeadline({ provider: c.input.provider, gpuType: c.input.gpuType })).ms;
  const deadlineAt = createdAt + deadlineMs;
  const pastDeadline = () => `the instance did not start within ${deadlineMs / 1000} s (boot deadline)`;
  while (booting()) {
    if (Date.now() >= deadlineAt) return failBoot(c, pastDeadline());
    if (
      !(await condition(
        () => requested(s) || s.observed !== null,
        Math.max(1, Math.min(c.settings.bootSilenceMs, deadlineAt - Date.now())),
      ))
    ) {
      if (Date.now() < deadlineAt) await ensureObserver(c);
      continue;
    }
    if (requested(s)) break;
    const step = await onBootObservation(c, takeObservation(s));
    if (typeof step === 'object') {
      // A job's command that exited looks like a failed boot to a look; its exit report says it ran: the end is
      // then a terminate, charged from the create's acknowledgement.
      if (await startFromReportedExit(c)) {
        s.terminateRequested = true;
        s.endReason ??= 'the command exited before the instance was seen running';
        break;
      }
      return failBoot(c, step.failed);
    }
    if (step === 'running') break;
  }
  return null;
}

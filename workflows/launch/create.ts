/**
 * The create, in three steps so that an instance never exists without a row naming it: the row (intent, with
 * the tagged provider name) → the provider's create (a retry finds the earlier one by name) → the provider's
 * answer on the row. Whatever fails after the provider may have said yes, the instance is terminated at the
 * provider before the launch fails.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { SshAccess } from '../../activities/instances';
import type { InstanceRow } from '../../src/db/queries/instances';
import type { ProviderInstance } from '../../src/providers/types';
import { INSTANCE_ID_ATTRIBUTE } from '../contracts/search-attributes';
import { tellProgress } from './progress';
import { failureOf, nothingCreated } from './refusal';
import type { LaunchContext } from './state';

/** Marks runs whose create and its record are one local activity (`createAndRecord`). */
const CREATE_AND_RECORD_PATCH = 'launch-create-and-record';
/**
 * Marks runs whose whole create is one local activity (`createAndRecord` without SSH access: intent, SSH key,
 * create, record, the observer told, the boot deadline read), and whose boot is marked running by a local activity.
 */
export const ONE_STEP_PATCH = 'launch-one-step';

/** Creates the instance and records it on `c.s.row`; on a refusal, fails the row, compensates and throws. */
export async function createInstance(c: LaunchContext): Promise<void> {
  const { s, input, id } = c;
  const { launching, db } = c.acts;
  let reachedProvider = false;
  let created: ProviderInstance | null = null;
  try {
    // The input's word first: a launch that carries it records no marker (replays of runs without it see the patch).
    if (input.createInOneStep || patched(ONE_STEP_PATCH)) {
      // Everything before the answer in one activation; a failure says itself whether anything was sent.
      reachedProvider = true;
      const done = await launching.createAndRecord(input);
      if ('observerTold' in done) {
        s.row = done.row;
        c.launched = { bootDeadlineMs: done.bootDeadlineMs, observerTold: done.observerTold };
      } else {
        s.row = done;
        c.launched = { bootDeadlineMs: null, observerTold: false };
      }
    } else {
      // Runs started before the create was one step (their histories replay this way).
      const ssh: SshAccess = await launching.prepareLaunch(input); // the intent row, then the SSH key
      reachedProvider = true;
      if (patched(CREATE_AND_RECORD_PATCH)) {
        s.row = (await launching.createAndRecord(input, ssh)) as InstanceRow; // steps 2 and 3 in one local activity
      } else {
        created = await launching.createAtProvider(input, ssh);
        s.row = await launching.recordCreated(id, created);
      }
    }
    await tellProgress(c);
    if (s.row.provider_instance_id)
      upsertSearchAttributes([{ key: INSTANCE_ID_ATTRIBUTE, value: s.row.provider_instance_id }]);
  } catch (err) {
    const refusal = failureOf(err);
    // The row says failed before the refusal is answered, so the client never sees a live-looking row.
    await db.failLaunch(id, refusal.message);
    s.refused = refusal;
    // Compensation: an instance carrying this launch's name must not outlive a failed launch.
    if (created || !nothingCreated(refusal, reachedProvider && !refusal.nothingSent)) {
      await endCompensating(c);
    }
    await condition(allHandlersFinished);
    // Failing the run lets the same Idempotency-Key try again later: no instance exists.
    const { type, message, details } = refusal;
    throw ApplicationFailure.nonRetryable(message, type, ...(details ?? []));
  }
}

/** Terminates, by its tagged name, whatever the failed create may have left at the provider. */
async function endCompensating(c: LaunchContext): Promise<void> {
  const { input } = c;
  let wait = c.settings.endRetryInitialMs;
  for (;;) {
    try {
      await c.acts.ending.terminateByName({
        accountId: input.accountId,
        provider: input.provider,
        providerName: input.providerName,
      });
      return;
    } catch {
      await sleep(wait);
      wait = Math.min(wait * 2, c.settings.endRetryMaxMs);
    }
  }
}

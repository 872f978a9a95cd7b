/**
 * An instance while it runs: the provider's view of it, metering from its first run and from a resume, and its
 * charges. Every activity is safe to retry.
 */
import type { InstanceRow } from '../src/db/queries/instances';
import type { ProviderInstance } from '../src/providers/types';
import { announceChargesToAlertMonitor } from './alerts';
import { createSpendWatch } from './billing';
import type { ActivityDeps } from './deps';
import { createInstanceAccess } from './instance-access';
import { createJobQueries } from '../src/db/queries/jobs';
import { noteJobAttemptStarted } from './jobs';

export interface PollResult {
  gone: boolean;
  instance: ProviderInstance | null;
  /** When the provider answered. */
  atMs: number;
  row: InstanceRow;
}

export function createRunningInstanceActivities(deps: ActivityDeps) {
  const { instances } = deps.queries;
  const jobs = createJobQueries(deps.pool);
  const spend = createSpendWatch(deps);
  const { withProvider, lookAsCreatingKey, rowOf } = createInstanceAccess(deps);

  return {
    /**
     * The provider's view now; `gone` when the provider no longer knows the instance. A "not found" from a key
     * that did not create the instance proves nothing: it fails (`provider_key_mismatch`, the record warned),
     * which the workflow treats as a provider it cannot ask right now.
     */
    async pollInstance(id: string): Promise<PollResult> {
      const row = await rowOf(id);
      const instance = await withProvider(row.account_id, row.provider, (apiKey, fingerprint) =>
        lookAsCreatingKey(row, apiKey, fingerprint),
      );
      const atMs = Date.now();
      if (!instance || instance.status === 'terminated') return { gone: true, instance, atMs, row };
      return { gone: false, instance, atMs, row: await instances.refreshFromProvider(id, instance) };
    },

    /** Metering starts: the account's spend workflow moves its depletion timer (the burn grew). */
    async markInstanceRunning(id: string, atMs: number, instance: ProviderInstance): Promise<InstanceRow> {
      const row = await instances.markRunning(id, new Date(atMs), instance);
      await spend.changed(row.account_id, 'instance_started');
      return row;
    },

    /**
     * A job attempt whose command reported its exit before its instance was seen running: metered from the
     * create's acknowledgement. The record as it stands when there is no report or it was seen running already.
     */
    async markRanFromAcceptance(id: string): Promise<InstanceRow> {
      // A retry after the row was written still tells the spend workflow (it is idempotent).
      const row = (await instances.markRanFromAcceptance(id)) ?? (await rowOf(id));
      if (row.started_at) {
        await spend.changed(row.account_id, 'instance_started');
        // The job attempt it ran started with it, as if seen running: `job.started`, a schedule's run `running`.
        const attempt = await jobs.attemptOfInstance(row.account_id, row.id);
        if (attempt) {
          await noteJobAttemptStarted(deps, {
            jobId: attempt.job_id,
            n: attempt.n,
            startedAtMs: Date.parse(row.started_at),
          });
        }
      }
      return row;
    },

    async resumeInstance(id: string, atMs: number, instance: ProviderInstance): Promise<InstanceRow> {
      const row = (await instances.markResumed(id, new Date(atMs), instance)) ?? (await rowOf(id));
      await spend.changed(row.account_id, 'instance_started');
      return row;
    },

    /** Charges up to `throughMs`; answers with how far the record is now metered (the workflow's copy follows). */
    async chargeInstance(
      id: string,
      throughMs: number,
    ): Promise<{ chargedMicros: number; meteredThrough?: string | null }> {
      const { chargedMicros, row } = await instances.chargeThrough(id, new Date(throughMs));
      if (chargedMicros > 0) await announceChargesToAlertMonitor(deps, row.account_id);
      await spend.changed(row.account_id, 'charge');
      return { chargedMicros, meteredThrough: row.metered_through };
    },
  };
}

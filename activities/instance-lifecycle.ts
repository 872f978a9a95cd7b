/**
 * Stop, start and terminate at the provider with a key that can see the instance, and the end written on the
 * record. Every activity is safe to retry.
 */
import type { EventType } from '../src/db/queries/events';
import type { InstanceRow } from '../src/db/queries/instances';
import { createSpendWatch } from './billing';
import type { ActivityDeps } from './deps';
import { createInstanceAccess } from './instance-access';

export function createInstanceLifecycleActivities(deps: ActivityDeps) {
  const { instances } = deps.queries;
  const spend = createSpendWatch(deps);
  const { withProvider, assertKeyCanEnd, rowOf } = createInstanceAccess(deps);

  return {
    /** Why a stop or terminate is still pending (null once it went through). */
    async noteLifecycleWarning(id: string, warning: string | null): Promise<InstanceRow> {
      return instances.setLifecycleWarning(id, warning);
    },

    /** Stops at the provider; resolves with the moment the provider confirmed (metering ends there). */
    async stopInstance(id: string): Promise<{ atMs: number }> {
      const row = await rowOf(id);
      await instances.markStatus(id, 'stopping');
      const stopped = await withProvider(row.account_id, row.provider, async (apiKey, fingerprint) => {
        await assertKeyCanEnd(row, apiKey, fingerprint);
        return deps.adapters[row.provider].stop(apiKey, row.provider_instance_id!);
      });
      const atMs = Date.now();
      await instances.refreshFromProvider(id, stopped);
      return { atMs };
    },

    /** Starts a stopped instance at the provider (its workflow resumes metering once it is seen running). */
    async startInstance(id: string): Promise<InstanceRow> {
      const row = await rowOf(id);
      const started = await withProvider(row.account_id, row.provider, async (apiKey, fingerprint) =>
        assertKeyCanEnd(row, apiKey, fingerprint).then(() =>
          deps.adapters[row.provider].start(apiKey, row.provider_instance_id!),
        ),
      );
      return instances.refreshFromProvider(id, started);
    },

    /** Terminates at the provider; resolves with the moment the provider confirmed (metering ends there). */
    async terminateInstance(id: string): Promise<{ atMs: number }> {
      const row = await rowOf(id);
      if (row.status !== 'terminated') await instances.markStatus(id, 'terminating');
      await withProvider(row.account_id, row.provider, async (apiKey, fingerprint) => {
        // A terminate answers "not found" as done: from another provider account that would end a running instance.
        await assertKeyCanEnd(row, apiKey, fingerprint);
        await deps.adapters[row.provider].terminate(apiKey, row.provider_instance_id!);
      });
      return { atMs: Date.now() };
    },

    async finishInstance(
      id: string,
      status: 'stopped' | 'terminated' | 'failed',
      event: EventType | readonly EventType[] | null,
      atMs: number,
      extra: Record<string, unknown> = {},
    ): Promise<InstanceRow> {
      const row = await instances.markEnded(id, status, event, new Date(atMs), extra);
      await spend.changed(row.account_id, 'instance_ended');
      return row;
    },
  };
}

/**
 * Reconciliation: compares what each provider runs for an account with our rows and workflows, and closes
 * every gap. Launches write their row (with the tagged provider name) before the create, so an instance we
 * created always traces back to a row by id or by name; instances that trace to no row are the account's
 * own and are left alone. One that carries a row's tagged name while the row recorded another instance is a
 * duplicate create of that launch, and is terminated.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { InstanceRow } from '../src/db/queries/instances';
import type { ProviderInstance } from '../src/providers/types';
import type { LaunchInput } from '../workflows/contracts/launch';
import type { ReconcileReport, ReconcileTarget } from '../workflows/contracts/maintenance';
import { createSpendWatch } from './billing';
import { DEFAULT_RECONCILE_SETTINGS, type ActivityDeps } from './deps';
import { toActivityFailure } from './provider-failures';
import { keyMayEnd, keyMismatchWarning, providerKeyFingerprint } from '../src/domain/provider-key-fingerprint';

const ENDED = new Set(['terminated', 'failed']);

export function createReconciliationActivities(deps: ActivityDeps) {
  const { instances } = deps.queries;
  const settings = deps.reconcile ?? DEFAULT_RECONCILE_SETTINGS;

  function workflows() {
    if (!deps.workflows.instanceWorkflows) {
      throw ApplicationFailure.nonRetryable(
        'reconciliation needs a Temporal client in the activity deps',
        'internal_error',
      );
    }
    return deps.workflows.instanceWorkflows;
  }

  function launchInputOf(row: InstanceRow): LaunchInput {
    return {
      instanceId: row.id,
      accountId: row.account_id,
      requestHash: row.request_hash,
      provider: row.provider,
      gpuType: row.gpu_type,
      gpuCount: row.gpu_count,
      spot: row.spot,
      name: row.name,
      providerName: row.provider_name ?? row.name,
      dockerImage: row.docker_image ?? undefined,
      region: row.region ?? undefined,
      warnings: row.warnings,
      ...settings.launchTiming,
    };
  }

  return {
    async listReconciliationTargets(): Promise<ReconcileTarget[]> {
      return (await instances.listReconciliationTargets()).map((t) => ({
        accountId: t.account_id,
        provider: t.provider,
      }));
    },

    async reconcileAccountProvider(target: ReconcileTarget): Promise<ReconcileReport> {
      const report: ReconcileReport = { seen: 0, terminated: [], adopted: [], finished: [] };
      const apiKey = await deps.credentials.findApiKey(target.accountId, target.provider);
      if (apiKey === null) return { ...report, skipped: `no ${target.provider} key connected` };
      const adapter = deps.adapters[target.provider];
      let listed: ProviderInstance[];
      try {
        listed = (await adapter.listInstances(apiKey)).filter((i) => i.status !== 'terminated');
      } catch (err) {
        throw toActivityFailure(err);
      }
      const rows = await instances.listForAccount(target.accountId);
      const mine = rows.filter((r) => r.provider === target.provider);
      const byProviderId = new Map(mine.filter((r) => r.provider_instance_id).map((r) => [r.provider_instance_id!, r]));
      const byName = new Map(mine.filter((r) => r.provider_name).map((r) => [r.provider_name!, r]));
      const client = workflows();
      // Rows this key sees are of its provider account: bound to it (see observation); others are only warned about
      // below.
      const fingerprint = providerKeyFingerprint(target.provider, apiKey);
      const listedIds = new Set(listed.map((i) => i.id));
      await instances.bindCreatingKey(
        mine
          .filter(
            (r) =>
              !ENDED.has(r.status) &&
              r.provider_instance_id &&
              listedIds.has(r.provider_instance_id) &&
              r.provider_key_fingerprint !== fingerprint,
          )
          .map((r) => r.id),
        fingerprint,
      );

      const terminate = async (inst: ProviderInstance) => {
        try {
          await adapter.terminate(apiKey, inst.id);
        } catch (err) {
          throw toActivityFailure(err);
        }
        report.terminated.push(inst.id);
      };

      for (const inst of listed) {
        const row = byProviderId.get(inst.id) ?? (inst.name ? byName.get(inst.name) : undefined);
        if (!row) continue; // not created by us: the account's own instance
        report.seen++;
        if (row.provider_instance_id && row.provider_instance_id !== inst.id) {
          // Carries a launch's tagged name but is not the instance that launch recorded: a second create of the
          // same launch (an ask the provider was still processing when it was sent again). Nothing meters it.
          await terminate(inst);
          (report.duplicates ??= []).push(inst.id);
          continue;
        }
        if (ENDED.has(row.status)) {
          // Ended on our side but still at the provider: a terminate that did not stick, or a failed launch's create.
          await terminate(inst);
          continue;
        }
        if (await client.isManaged(row.id)) continue;
        if (settings.orphans === 'adopt') {
          const warning = 'Adopted by reconciliation: no workflow managed this instance; metered from the adoption on.';
          const adopted = row.provider_instance_id
            ? await instances.resumeManagement(row.id, new Date(), warning)
            : await instances
                .recordCreated(row.id, inst)
                .then(() => instances.resumeManagement(row.id, new Date(), warning));
          await client.manage(launchInputOf(adopted), adopted);
          report.adopted.push(inst.id);
        } else {
          await terminate(inst);
          await instances.markEnded(
            row.id,
            'terminated',
            row.provider_instance_id ? 'instance.terminated' : null,
            new Date(),
            {
              reason: 'terminated by reconciliation: no workflow managed it',
            },
          );
          await createSpendWatch(deps).changed(row.account_id, 'instance_ended');
        }
      }

      for (const row of mine) {
        if (ENDED.has(row.status) || !row.provider_instance_id || listedIds.has(row.provider_instance_id)) continue;
        if (await client.isManaged(row.id)) continue; // its workflow notices the loss itself
        if (!keyMayEnd(row, fingerprint)) {
          // Absent from the list of a key that did not create it: that proves nothing; the record says why.
          await instances.setKeyWarning(row.id, keyMismatchWarning(target.provider));
          (report.keyMismatch ??= []).push(row.provider_instance_id);
          continue;
        }
        // Gone at the provider with nobody watching: charged up to now, then finished.
        if (row.status === 'running') await instances.chargeThrough(row.id, new Date());
        await instances.markEnded(row.id, 'terminated', 'instance.terminated', new Date(), {
          reason: 'the provider no longer knows this instance (found by reconciliation)',
        });
        await createSpendWatch(deps).changed(row.account_id, 'instance_ended');
        report.finished.push(row.provider_instance_id);
      }
      return report;
    },
  };
}

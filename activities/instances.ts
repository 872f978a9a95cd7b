/**
 * Side effects of the launch workflow: provider calls with the account's key, and the instance's rows,
 * charges and events in Postgres. Every activity is safe to retry.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { createInstanceQueries, type EventType, type InstanceRow } from '../src/db/queries/instances';
import { createSshKeyQueries } from '../src/db/queries/ssh-keys';
import type { ProviderId, ProviderInstance } from '../src/providers/types';
import { createBalanceWatch } from './billing';
import { toActivityFailure } from './provider-failures';
import type { ActivityDeps } from './index';

export interface LaunchInput {
  /** The workflow id, also the instance's row id: `launch-<account>-<idempotency key>`. */
  instanceId: string;
  accountId: string;
  requestHash: string;
  provider: ProviderId;
  gpuType: string;
  gpuCount: number;
  spot: boolean;
  /** Name shown to the user. */
  name: string;
  /** Name at the provider: carries a tag derived from the workflow id, so a retried create finds it. */
  providerName: string;
  dockerImage?: string;
  volumeGb?: number;
  diskGb?: number;
  region?: string;
  sshKeyName?: string;
  onstartCmd?: string;
  warnings: string[];
  /** How often a running instance is polled (preemption) and charged; hours in production, short in tests. */
  pollIntervalMs: number;
  meterIntervalMs: number;
  /** How long one provider call attempt may take before Temporal retries it (a lost worker); default 60 s. */
  activityTimeoutMs?: number;
  /** Loop turns before the workflow continues as new (bounded history); default 500. */
  continueAsNewAfter?: number;
}

export interface SshAccess {
  sshPublicKey?: string;
  sshKeyName?: string;
}

export interface PollResult {
  gone: boolean;
  instance: ProviderInstance | null;
  row: InstanceRow;
}

export function createInstanceActivities(deps: ActivityDeps) {
  const instances = createInstanceQueries(deps.pool);
  const sshKeys = createSshKeyQueries(deps.pool);
  const balance = createBalanceWatch(deps);

  async function withProvider<T>(accountId: string, provider: ProviderId, fn: (apiKey: string) => Promise<T>): Promise<T> {
    const apiKey = await deps.credentials.findApiKey(accountId, provider);
    if (apiKey === null) {
      throw ApplicationFailure.nonRetryable(`No ${provider} API key is connected to this account.`, 'provider_not_connected');
    }
    try {
      return await fn(apiKey);
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  async function rowOf(id: string): Promise<InstanceRow> {
    const row = await instances.findById(id);
    if (!row) throw ApplicationFailure.nonRetryable(`instance ${id} has no row`, 'instance_missing');
    return row;
  }

  return {
    /** The key every new instance gets: the explicit Lambda key name, else the account's default key. */
    async resolveSshAccess(input: LaunchInput): Promise<SshAccess> {
      if (input.provider === 'lambda' && input.sshKeyName) return { sshKeyName: input.sshKeyName };
      const key = await sshKeys.findDefaultSshKey(input.accountId);
      if (!key) {
        if (input.provider === 'lambda') {
          throw ApplicationFailure.nonRetryable('Lambda launches need ssh_key_name or a default SSH key.', 'validation_error');
        }
        return {};
      }
      if (input.provider === 'runpod') return { sshPublicKey: key.public_key };
      const registered = await withProvider(input.accountId, input.provider, (apiKey) =>
        deps.adapters[input.provider].ensureSshKey(apiKey, { name: key.name, publicKey: key.public_key }),
      );
      return input.provider === 'lambda' ? { sshKeyName: registered.name } : { sshPublicKey: key.public_key };
    },

    /** Creates the instance once: a retry first looks for the one an earlier attempt created. */
    async createInstance(input: LaunchInput, ssh: SshAccess): Promise<InstanceRow> {
      const existing = await instances.findById(input.instanceId);
      if (existing) return existing;
      const instance = await withProvider(input.accountId, input.provider, async (apiKey) => {
        const adapter = deps.adapters[input.provider];
        const found = await adapter.findInstanceByName(apiKey, input.providerName);
        if (found) return found;
        return adapter.launch(apiKey, {
          gpuType: input.gpuType,
          gpuCount: input.gpuCount,
          name: input.providerName,
          dockerImage: input.dockerImage,
          spot: input.spot,
          volumeGb: input.volumeGb,
          diskGb: input.diskGb,
          region: input.region,
          sshPublicKey: ssh.sshPublicKey,
          sshKeyName: ssh.sshKeyName,
          onstartCmd: input.onstartCmd,
        });
      });
      return instances.upsertLaunched({
        id: input.instanceId,
        accountId: input.accountId,
        requestHash: input.requestHash,
        name: input.name,
        gpuType: input.gpuType,
        gpuCount: input.gpuCount,
        spot: input.spot,
        dockerImage: input.dockerImage ?? null,
        warnings: input.warnings,
        instance,
      });
    },

    /** The provider's view now; `gone` when the provider no longer knows the instance. */
    async pollInstance(id: string): Promise<PollResult> {
      const row = await rowOf(id);
      const instance = await withProvider(row.account_id, row.provider, (apiKey) =>
        deps.adapters[row.provider].getInstance(apiKey, row.provider_instance_id!),
      );
      if (!instance || instance.status === 'terminated') return { gone: true, instance, row };
      return { gone: false, instance, row: await instances.refreshFromProvider(id, instance) };
    },

    async markInstanceRunning(id: string, atMs: number, instance: ProviderInstance): Promise<InstanceRow> {
      return instances.markRunning(id, new Date(atMs), instance);
    },

    async chargeInstance(id: string, throughMs: number): Promise<{ chargedMicros: number }> {
      const { chargedMicros, row } = await instances.chargeThrough(id, new Date(throughMs));
      await balance.afterCharge(row.account_id);
      return { chargedMicros };
    },

    async stopInstance(id: string): Promise<InstanceRow> {
      const row = await rowOf(id);
      await instances.markStatus(id, 'stopping');
      const stopped = await withProvider(row.account_id, row.provider, (apiKey) =>
        deps.adapters[row.provider].stop(apiKey, row.provider_instance_id!),
      );
      return instances.refreshFromProvider(id, stopped);
    },

    async terminateInstance(id: string): Promise<void> {
      const row = await rowOf(id);
      if (row.status !== 'terminated') await instances.markStatus(id, 'terminating');
      await withProvider(row.account_id, row.provider, (apiKey) => deps.adapters[row.provider].terminate(apiKey, row.provider_instance_id!));
    },

    async finishInstance(
      id: string,
      status: 'stopped' | 'terminated' | 'failed',
      event: EventType | null,
      atMs: number,
      extra: Record<string, unknown> = {},
    ): Promise<InstanceRow> {
      return instances.markEnded(id, status, event, new Date(atMs), extra);
    },
  };
}

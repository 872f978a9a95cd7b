import type { SshKeyQueries } from '../db/queries/ssh-keys';
import type { ProviderCredentials } from '../providers/provider-credentials';
import type { ProviderId } from '../providers/types';

/**
 * Providers that run a job: RunPod as the container's args, Vast as `onstart`, Lambda as cloud-init `user_data`
 * (a field of its newer launch API) that runs the wrapper on the VM at first boot.
 */
export const JOB_PROVIDERS: readonly ProviderId[] = ['runpod', 'vastai', 'lambda'];

/**
 * Job providers whose instance is a VM, not the job's container: the wrapper runs on the VM and starts the job's
 * image with Docker (Lambda's VM images ship Docker with the NVIDIA container toolkit).
 */
export const JOB_PROVIDERS_ON_A_VM: readonly ProviderId[] = ['lambda'];

/**
 * Whether the account can run a job's attempt on `provider` now: the provider's key is connected, and for Lambda,
 * which launches no instance without an SSH key name, the account has a default SSH key.
 */
export async function jobProviderReadiness(
  deps: {
    credentials: Pick<ProviderCredentials, 'findApiKey'>;
    sshKeys: Pick<SshKeyQueries, 'findDefaultSshKey'>;
  },
  accountId: string,
  provider: ProviderId,
): Promise<'ready' | 'not_connected' | 'no_ssh_key'> {
  if (!JOB_PROVIDERS.includes(provider)) return 'not_connected';
  if ((await deps.credentials.findApiKey(accountId, provider)) === null) return 'not_connected';
  if (provider === 'lambda' && !(await deps.sshKeys.findDefaultSshKey(accountId))) return 'no_ssh_key';
  return 'ready';
}

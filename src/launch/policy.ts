/**
 * What a launch may ask, before admission: the checks every launch runs in this order (the API's launches and
 * plans), and the warnings its answer carries for fields the chosen provider does not use.
 */
import type { SshKeyQueries } from '../db/queries/ssh-keys';
import { ProviderNotConnectedError, UnsupportedOperationError, ValidationError } from '../errors';
import { launchProblems } from '../providers/launch-problems';
import type { ProviderCredentials } from '../providers/provider-credentials';
import { PROVIDER_NAMES, type ProviderId } from '../providers/types';
import { STARTUP_COMMAND_PROVIDERS, type ParsedLaunchBody } from './input';

/** Spot only where the provider sells it today (decisions.md: vastai interruptible bids). */
export const SPOT_PROVIDERS: readonly ProviderId[] = ['vastai'];

/** Whether an offer can be launched as it is: on-demand anywhere, spot only where the provider sells it. */
export const launchableOffer = (o: { provider: ProviderId; spot: boolean }): boolean =>
  !o.spot || SPOT_PROVIDERS.includes(o.provider);

/** Which capability fields each provider uses; the others are accepted and reported in `warnings`. */
const CAPABILITY_FIELDS: Record<'volume_gb' | 'ssh_key_name', ProviderId> = {
  volume_gb: 'runpod',
  ssh_key_name: 'lambda',
};

/** The refusal of a startup command on a provider that cannot run one (422 `unsupported_operation`). */
export const NO_STARTUP_COMMAND_MESSAGE =
  'Lambda cannot run onstart_cmd: its launch API takes no startup command; ' +
  'launch on runpod or vastai, or run the command over SSH once the instance is running.';

/** The warnings a launch gives: capability fields the chosen provider does not use (accepted, ignored). */
export function launchWarnings(body: ParsedLaunchBody): string[] {
  return (Object.keys(CAPABILITY_FIELDS) as (keyof typeof CAPABILITY_FIELDS)[])
    .filter((f) => body[f] !== undefined && CAPABILITY_FIELDS[f] !== body.provider)
    .map((f) => `${f} applies to ${CAPABILITY_FIELDS[f]} only and was ignored`);
}

export interface LaunchPolicyDeps {
  credentials: Pick<ProviderCredentials, 'findApiKey'>;
  sshKeys: Pick<SshKeyQueries, 'findDefaultSshKey'>;
}

/**
 * The launch's checks before admission, in the launch's order (plan runs the same ones): spot where the
 * provider sells it, a startup command where the provider runs one, the provider's catalog limits, a connected
 * key, an SSH key for Lambda. Throws the refusal.
 */
export async function assertLaunchAllowed(
  deps: LaunchPolicyDeps,
  body: ParsedLaunchBody,
  accountId: string,
): Promise<void> {
  if (!launchableOffer(body)) {
    throw new UnsupportedOperationError(
      body.provider === 'lambda'
        ? 'Lambda has no spot capacity; launch without spot.'
        : 'RunPod no longer offers spot pods; launch without spot.',
    );
  }
  if (body.onstart_cmd !== undefined && !STARTUP_COMMAND_PROVIDERS.includes(body.provider)) {
    throw new UnsupportedOperationError(NO_STARTUP_COMMAND_MESSAGE, [
      { path: 'onstart_cmd', message: `runs on ${STARTUP_COMMAND_PROVIDERS.join(' and ')} only` },
    ]);
  }
  const problems = launchProblems(body.provider, {
    gpuType: body.gpu_type,
    gpuCount: body.gpu_count,
    region: body.region,
  });
  if (problems.length)
    throw new UnsupportedOperationError(
      `${PROVIDER_NAMES[body.provider]} cannot serve this launch: ${problems[0]!.path} ${problems[0]!.message}.`,
      problems.map((p) => ({ ...p })),
    );
  if ((await deps.credentials.findApiKey(accountId, body.provider)) === null)
    throw new ProviderNotConnectedError(body.provider);
  if (body.provider === 'lambda' && !body.ssh_key_name && !(await deps.sshKeys.findDefaultSshKey(accountId))) {
    throw new ValidationError('Lambda launches need ssh_key_name or a default SSH key (POST /v1/ssh-keys).', [
      { path: 'ssh_key_name', message: 'required when the account has no default SSH key' },
    ]);
  }
}

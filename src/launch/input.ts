/**
 * Builds the launch workflow's input from a launch as the API parsed it: the route parses the request, this
 * module decides what the workflow is given (ids, names at the provider, the request hash a replay is compared
 * by, which capability fields reach which provider, the timing knobs). Pure.
 */
import { createHash } from 'node:crypto';
import { launchWorkflowId, type LaunchInput, type LaunchTiming } from '../../workflows/contracts/launch';
import type { IdleStopRule } from '../domain/idle-stop';
import type { ProviderId } from '../providers/types';

/** Intervals a launch runs with when the process was given none: the production defaults. */
export const DEFAULT_LAUNCH_TIMING: LaunchTiming = { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 };

/**
 * Providers that run `onstart_cmd`: Vast.ai as `onstart`, RunPod as the container's command. Lambda's launch
 * API takes no startup command, so a launch there that asks for one is refused rather than run without it.
 */
export const STARTUP_COMMAND_PROVIDERS: readonly ProviderId[] = ['runpod', 'vastai'];

/** The body of POST /v1/compute/launch once parsed (defaults applied): `LaunchBody` in `src/http/launch-schemas.ts`. */
export interface ParsedLaunchBody {
  provider: ProviderId;
  gpu_type: string;
  gpu_count: number;
  spot: boolean;
  name?: string;
  docker_image?: string;
  volume_gb?: number;
  disk_gb?: number;
  region?: string;
  ssh_key_name?: string;
  onstart_cmd?: string;
  /** Beyond the spec (src/domain/idle-stop.ts); refused for lambda by the schema. */
  idle_stop?: IdleStopRule;
}

/** One launch request, as the route parsed it. */
export interface LaunchRequest {
  accountId: string;
  /** The Idempotency-Key sent, or the one generated for this request (the route echoes it). */
  idempotencyKey: string;
  /** The API key that asked (its spend counts toward its cap). */
  apiKeyId?: string;
  body: ParsedLaunchBody;
  /** What the answer tells the user about fields the provider ignores. */
  warnings: string[];
}

/**
 * The hash a replay is compared by: the parsed body with its keys sorted, so the same request in another key
 * order or with a default spelled out is the same request.
 */
export function launchRequestHash(body: ParsedLaunchBody): string {
  const canonical = JSON.stringify(
    Object.keys(body)
      .sort()
      .map((k) => [k, body[k as keyof ParsedLaunchBody]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/** The launch workflow's input for a request. */
export function launchInputOf(request: LaunchRequest, timing: LaunchTiming = DEFAULT_LAUNCH_TIMING): LaunchInput {
  const { body } = request;
  const instanceId = launchWorkflowId(request.accountId, request.idempotencyKey);
  // The provider-side name carries a tag derived from the workflow id, so a retried create finds what it made.
  const tag = createHash('sha256').update(instanceId).digest('hex').slice(0, 10);
  return {
    instanceId,
    accountId: request.accountId,
    requestHash: launchRequestHash(body),
    provider: body.provider,
    gpuType: body.gpu_type,
    gpuCount: body.gpu_count,
    spot: body.spot,
    name: body.name ?? `gpuo-${tag}`,
    providerName: `${body.name ?? 'gpuo'}-${tag}`,
    dockerImage: body.docker_image,
    volumeGb: body.provider === 'runpod' ? body.volume_gb : undefined,
    diskGb: body.disk_gb,
    region: body.region,
    sshKeyName: body.provider === 'lambda' ? body.ssh_key_name : undefined,
    onstartCmd: STARTUP_COMMAND_PROVIDERS.includes(body.provider) ? body.onstart_cmd : undefined,
    warnings: request.warnings,
    apiKeyId: request.apiKeyId,
    ...(body.idle_stop ? { idleStop: body.idle_stop } : {}),
    createInOneStep: true,
    ...timing,
  };
}

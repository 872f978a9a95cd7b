/**
 * The one interface every provider adapter implements. Adapters speak the provider's real HTTP API at a
 * configurable base URL and return normalized records; they throw {@link ProviderRequestError} on failure.
 */
import type { GpuSlug } from './gpu-catalog';

import type { ProviderId } from '../domain/providers';

export { PROVIDER_NAMES, PROVIDERS, type ProviderId } from '../domain/providers';

/** One priced offer, per GPU per hour, in dollars. On-demand and spot are separate offers. */
export interface ProviderOffer {
  provider: ProviderId;
  gpuType: GpuSlug;
  pricePerHour: number;
  availability: number;
  spot: boolean;
  region?: string;
}

/** Every status an instance (ours or the provider's normalized view) can have. */
export const INSTANCE_STATUSES = [
  'provisioning',
  'running',
  'stopping',
  'stopped',
  'terminating',
  'terminated',
  'failed',
  'unknown',
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** An instance as the provider reports it, normalized. */
export interface ProviderInstance {
  id: string;
  provider: ProviderId;
  name: string | null;
  status: InstanceStatus;
  providerStatus: string | null;
  gpuType: GpuSlug | null;
  gpuCount: number;
  /** Dollars per hour for the whole instance. */
  pricePerHour: number | null;
  spot: boolean;
  region: string | null;
  dockerImage: string | null;
  publicIp: string | null;
  ssh: { host: string; port: number; user: string } | null;
  createdAt: string | null;
  /**
   * When the provider says the instance started running (RunPod's `startedAt`); null where the API does not
   * say (Vast.ai's `start_date` is the contract start, boot included; Lambda has no such field).
   */
  startedAt: string | null;
  /** GPU utilization in percent, one per GPU, where the provider reports it (RunPod, Vast.ai); absent otherwise. */
  gpuUtilization?: number[] | null;
}

export interface LaunchSpec {
  gpuType: GpuSlug;
  gpuCount: number;
  /** Instance name at the provider. Adapters find a launch again by this name after a retry. */
  name: string;
  dockerImage?: string;
  spot: boolean;
  volumeGb?: number;
  diskGb?: number;
  region?: string;
  /** Public key text to install (runpod env, vastai attach). */
  sshPublicKey?: string;
  /** Lambda: the registered key name to launch with. */
  sshKeyName?: string;
  /** Startup command: vastai `onstart`; runpod runs it as the container's args (sent only by schedule runs). */
  onstartCmd?: string;
}

/** What a log read asks the provider for. */
export interface LogRead {
  /** The last this many lines printed so far. */
  tailLines: number;
  /** Then new lines as they are printed, until `signal` aborts or the provider ends the stream. */
  follow: boolean;
  signal?: AbortSignal;
}

export interface KeyCheck {
  valid: boolean;
  message: string;
}

export interface ProviderAdapter {
  readonly provider: ProviderId;
  /** Current offers. `apiKey` is optional where the provider's price list needs none. */
  listOffers(apiKey?: string): Promise<ProviderOffer[]>;
  /** Calls a cheap authenticated endpoint; resolves `{valid:false}` for a rejected key, throws when unreachable. */
  verifyKey(apiKey: string): Promise<KeyCheck>;
  launch(apiKey: string, spec: LaunchSpec): Promise<ProviderInstance>;
  /** Finds an instance created earlier by `launch` with this exact name (idempotent retries). */
  findInstanceByName(apiKey: string, name: string): Promise<ProviderInstance | null>;
  /** `null` when the provider does not know the id (or it is gone). */
  getInstance(apiKey: string, id: string): Promise<ProviderInstance | null>;
  listInstances(apiKey: string): Promise<ProviderInstance[]>;
  /** Only runpod supports stop; the others throw. */
  stop(apiKey: string, id: string): Promise<ProviderInstance>;
  /**
   * Starts a stopped instance again (runpod, vastai); lambda cannot and throws. An instance already starting resolves.
   */
  start(apiKey: string, id: string): Promise<ProviderInstance>;
  /** Idempotent: terminating an unknown or already terminated instance resolves. */
  terminate(apiKey: string, id: string): Promise<void>;
  /**
   * Makes an SSH public key usable for launches at the provider: lambda registers it (by name) and returns
   * the name to launch with; vastai registers it on the account; runpod needs nothing (the key goes in env).
   */
  ensureSshKey(apiKey: string, key: { name: string; publicKey: string }): Promise<{ name: string }>;
  /**
   * The instance's container output (stdout and stderr), one line per item, oldest first; read-only. RunPod
   * streams it (server-sent events), Vast.ai uploads it on request; Lambda has no log API (absent).
   */
  logs?(apiKey: string, id: string, read: LogRead): AsyncIterable<string>;
}

/**
 * What a started simulator gives its caller: the handle, the control knobs tests turn (faults, boot delay,
 * capacity), the request matcher and recorded exchanges those knobs speak of, and the provider-neutral view of
 * an instance.
 */
export interface RequestMatch {
  /** HTTP method, any case. */
  method?: string;
  /** Exact path (a trailing slash is ignored) or a pattern, matched against the path without the query. */
  path?: string | RegExp;
  /** The API key the request carried (a Bearer token, or Vast.ai's `api_key` query): one account's requests only. */
  key?: string;
}

export interface RecordedExchange {
  seq: number;
  at: number;
  method: string;
  /** Path without the query string, as the client sent it. */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body (`undefined` when none was sent; the raw text when it was not JSON). */
  body: unknown;
  /** The API key it carried (Bearer token or `api_key` query), null when none. */
  key?: string | null;
  /** The route pattern that handled the request (`/v2/pods/:id`), or null for faults and unknown paths. */
  route: string | null;
  status: number;
  /** Parsed JSON response body (`undefined` for an empty body). */
  response: unknown;
  /** True when a fault knob produced the response. */
  fault: boolean;
}

/** A request the simulator received and has not answered yet. */
export interface PendingRequest {
  /** When it arrived (ms since the epoch). */
  at: number;
  method: string;
  path: string;
  key: string | null;
  body: unknown;
}

export interface FaultControl {
  /** The next `count` matching requests answer 429 (with `Retry-After` where the provider sends one). */
  rateLimit(count: number, opts?: { match?: RequestMatch; retryAfterSeconds?: number | null }): void;
  /**
   * The next `count` matching requests answer a 5xx. With `afterHandling` the request is carried out first and
   * only the answer is lost (a create that "failed" but made the instance).
   */
  serverErrors(count: number, opts?: { match?: RequestMatch; status?: number; afterHandling?: boolean }): void;
  /**
   * Delays matching responses by `ms` (0 clears). With `afterHandling` the request takes effect at once and only
   * the answer is late, as with a client timeout on a create that went through.
   */
  setLatency(ms: number, opts?: { match?: RequestMatch; afterHandling?: boolean }): void;
  /** Every request handled since the last `clearRequests()`, oldest first. */
  requests(match?: RequestMatch): RecordedExchange[];
  clearRequests(): void;
  /**
   * Requests received and not answered yet, oldest first: one slowed by `setLatency` is here until its answer
   * leaves, so a test can act while the provider has a create or a terminate in hand.
   */
  pending(match?: RequestMatch): PendingRequest[];
  /** Clears every fault knob (not the recorded requests and not the accounts). */
  resetFaults(): void;
}

/** What a simulator holds for one instance, provider-neutral, for tests to assert on. */
export interface SimInstanceView {
  id: string;
  name: string | null;
  /** The provider's own status word at this moment (`RUNNING`, `loading`, `booting`, …). */
  status: string | null;
  /** The provider's GPU name (`NVIDIA H100 80GB HBM3`, `H100 SXM`, `gpu_1x_h100_pcie`). */
  gpu: string;
  gpuCount: number;
  spot: boolean;
  region: string | null;
  image: string | null;
  env: Record<string, string>;
  /** Public keys installed on the instance (RunPod: the `PUBLIC_KEY` env; Vast: attached; Lambda: by name). */
  sshKeys: string[];
  createdAt: string;
}

export interface CommonControl extends FaultControl {
  /** Boot delay (ms from create/start to running) for instances created or started afterwards. */
  setBootDelay(ms: number): void;
  /** Makes a GPU (normalized slug) unavailable (`on` false restores it). */
  setNoCapacity(gpu: string, on?: boolean): void;
  /**
   * The provider takes an instance away without a request (a spot reclaim, a failed host); what it becomes is
   * the provider's own (RunPod `EXITED`, Vast `stopped` by default, Lambda terminated). Throws for an unknown id.
   */
  preempt(key: string, id: string, how?: string): void;
  /** The instances that exist for a key, as the provider would list them (terminated ones are gone). */
  instances(key: string): SimInstanceView[];
  /** Registers a key chosen by the caller (e.g. from configuration), with empty state. */
  addKey(key: string): void;
  /** Clears faults, capacity switches and modes; accounts and instances stay. */
  reset(): void;
}

export interface SimHandle<C extends CommonControl = CommonControl> {
  /** Exactly what the matching adapter takes as its base URL. */
  baseUrl: string;
  /** A new API key, shaped like the provider's, with empty isolated state. */
  createKey(): string;
  control: C;
  close(): Promise<void>;
}

export interface SimulatorOptions {
  /** Milliseconds from create to running; default {@link DEFAULT_BOOT_DELAY_MS}. */
  bootDelayMs?: number;
  /** Keys accepted from the start. */
  keys?: readonly string[];
  /** How many exchanges the request recorder keeps. */
  recordLimit?: number;
}

export const DEFAULT_BOOT_DELAY_MS = 500;

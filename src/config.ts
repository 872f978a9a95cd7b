/**
 * One zod schema over the environment, parsed once at boot and frozen. A bad value stops the process with a
 * message naming the variable (see {@link loadConfigOrExit}).
 */
import { z } from 'zod';
import { parseBootDeadlines } from './domain/boot-deadlines';
import { DEFAULT_LIMITS, type AccountLimits } from './domain/limits';

/** The task queue of a deployment that did not choose one. */
export const DEFAULT_TASK_QUEUE = 'gpu-orchestrator';

const port = z.coerce.number().int().min(0).max(65535);
const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL');
const optionalSecret = z.string().min(1).optional();
const durationPattern = /^(\d+)(s|m|h)$/;

/** Parses "90s", "5m", "1h" into milliseconds. */
export function parseDurationMs(text: string): number {
  const m = durationPattern.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

/**
 * A duration setting ("90s", "5m", "1h"): checked and parsed here, once, so the rest of the code reads
 * milliseconds (`config.METER_INTERVAL` is a number). A bad value names the variable:
 * `METER_INTERVAL: must look like 30s, 5m or 1h`.
 */
const duration = z.string().regex(durationPattern, 'must look like 30s, 5m or 1h').transform(parseDurationMs);
/** A duration that must not be zero (an interval a loop waits between rounds). */
const positiveDuration = duration.refine((ms) => ms > 0, 'must be longer than 0');
/** Comma-separated durations ("5s,5m,30m"), parsed into milliseconds in order. */
const durationList = z
  .string()
  .refine((v) => v.split(',').every((d) => durationPattern.test(d.trim())), 'must be durations like 5s,5m,30m,2h')
  .transform((v) => v.split(',').map((d) => parseDurationMs(d.trim())));

const limitCount = z.coerce.number().int().min(0).max(1_000_000);

const base64Key32 = z
  .string()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  /**
   * The operations listener of the API process (`/metrics`, `/codec/encode`, `/codec/decode`, `/readyz`):
   * its own host and port, never the API's. Without OPS_TOKEN it binds to loopback whatever OPS_HOST says.
   */
  OPS_HOST: z.string().min(1).default('127.0.0.1'),
  OPS_PORT: port.default(3002),
  /** Bearer token the operations listener requires on every route (and the worker's /metrics); 16+ characters. */
  OPS_TOKEN: z.string().min(16, 'must be at least 16 characters (openssl rand -hex 24)').optional(),
  /** Browser origins allowed to call the codec endpoints (the Temporal UI's), comma-separated, exact. */
  OPS_CORS_ORIGINS: z.string().default(''),
  /** Worker only: serve liveness (GET /) and Prometheus metrics (GET /metrics) on this port (unset: no port). */
  WORKER_HEALTH_PORT: port.optional(),
  /**
   * Worker only: a workflow bundle built beforehand (`bundleWorkflowCode` with the workflow interceptor modules
   * and FAILURE_CONVERTER_PATH as `failureConverterPath`, its `code` written to a file). Unset: the worker bundles
   * `workflows/` at start (seconds). The tests build one per run so every worker process they start skips that.
   */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),

  /** Ports of the parts the local default (`npm start`) runs itself. */
  LOCAL_POSTGRES_PORT: port.default(54329),
  LOCAL_TEMPORAL_PORT: port.default(7233),
  LOCAL_TEMPORAL_UI_PORT: port.default(8233),
  /** The worker's health and metrics port under the local default (when WORKER_HEALTH_PORT is unset). */
  LOCAL_WORKER_HEALTH_PORT: port.default(3001),
  /** Local default: first delay before restarting a child (API, worker) that died; doubles up to the max. */
  LOCAL_RESTART_BACKOFF: duration.default('1s'),
  LOCAL_RESTART_MAX_BACKOFF: duration.default('30s'),

  /** How long a client has to send a request body before 408 request_timeout ("10s", "1m"). */
  HTTP_BODY_TIMEOUT: duration.default('10s'),
  /** stripe-mock, run by the local default when STRIPE_SECRET_KEY is not set. */
  LOCAL_STRIPE_MOCK_PORT: port.default(12111),

  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(100_000).default(120),
  /** Unauthenticated requests (public pricing, docs) per client address and minute, across API processes. */
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: z.coerce.number().int().min(1).max(100_000_000).default(300),
  /**
   * Failed authentications (unknown or revoked keys) per client address and minute; past it: 429 to the minute's end.
   */
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(30),
  /**
   * Proxies in front of the API that append the client's address to X-Forwarded-For (a hop count). 0, the
   * default, ignores the header: the socket's address is the client, so a rotated header cannot dodge the
   * per-address limits. N takes the Nth address from the right, the one the outermost trusted proxy saw.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),

  /** Per-account limits (GET /v1/limits; docs/limits.md): the (N+1)th create is 422 limit_reached. */
  LIMIT_ALERTS: limitCount.default(DEFAULT_LIMITS.alerts),
  LIMIT_SCHEDULES: limitCount.default(DEFAULT_LIMITS.schedules),
  LIMIT_WEBHOOKS: limitCount.default(DEFAULT_LIMITS.webhooks),
  LIMIT_WEBHOOK_URLS: limitCount.default(DEFAULT_LIMITS.webhook_urls),
  LIMIT_SSH_KEYS: limitCount.default(DEFAULT_LIMITS.ssh_keys),
  LIMIT_LIVE_INSTANCES: limitCount.default(DEFAULT_LIMITS.live_instances),
  LIMIT_API_KEYS: limitCount.default(DEFAULT_LIMITS.api_keys),
  /** The shortest gap a schedule's cron may leave between two firings ("5m"); a cron firing more often is 400. */
  SCHEDULE_MIN_INTERVAL: positiveDuration.default('5m'),

  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),

  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_UI_URL: httpUrl.optional(),

  /** AES-256-GCM master key for provider keys at rest. Required outside the local default. */
  MASTER_ENCRYPTION_KEY: base64Key32.optional(),
  MASTER_ENCRYPTION_KEY_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .default('k1'),
  /** Older keys still readable after a rotation: "id:base64,id:base64". */
  MASTER_ENCRYPTION_PREVIOUS_KEYS: z
    .string()
    .optional()
    .refine(
      (v) =>
        !v ||
        v
          .split(',')
          .every((p) => /^[A-Za-z0-9_-]{1,32}:/.test(p) && Buffer.from(p.split(':')[1] ?? '', 'base64').length === 32),
      'must be "id:base64key" pairs separated by commas',
    ),

  RUNPOD_API_BASE_URL: httpUrl.default('https://api.runpod.io/v2'),
  VASTAI_API_BASE_URL: httpUrl.default('https://console.vast.ai'),
  LAMBDA_API_BASE_URL: httpUrl.default('https://cloud.lambda.ai/api/v1'),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /**
   * A create whose call failed without a final answer (a timeout, a 5xx) may still be under way at the provider:
   * its retry looks for the instance by name this long before it may create again.
   */
  PROVIDER_CREATE_LOOK_WINDOW_MS: z.coerce.number().int().min(0).max(120_000).default(15_000),
  /** Platform-level keys used only to read price lists. */
  PRICING_RUNPOD_API_KEY: optionalSecret,
  PRICING_VASTAI_API_KEY: optionalSecret,
  PRICING_LAMBDA_API_KEY: optionalSecret,
  PRICING_REFRESH_INTERVAL: duration.default('5m'),
  /** Alert monitor safety net: every alert is evaluated at least this often, signals or not. */
  ALERT_MONITOR_TICK: duration.default('5m'),

  /**
   * Managed instances: how often each (account, provider) observer lists the provider's instances when all is
   * steady, and while a spot instance runs (preemption is noticed within this); metering's charge interval.
   */
  INSTANCE_OBSERVE_INTERVAL: positiveDuration.default('60s'),
  INSTANCE_OBSERVE_SPOT_INTERVAL: positiveDuration.default('10s'),
  /** The length of one idle-stop minute (an instance's `idle_stop.for_minutes`); shorter only to compress tests. */
  IDLE_STOP_MINUTE: positiveDuration.default('60s'),
  METER_INTERVAL: positiveDuration.default('1h'),
  /**
   * What RunPod charges per GB-month for a stopped pod's volume disk (its container disk is wiped at the stop);
   * the service charges it as `instance_storage_charge` at every meter interval while the pod stays stopped.
   */
  RUNPOD_STOPPED_STORAGE_PRICE_PER_GB_MONTH: z.coerce.number().min(0).max(100).default(0.2),

  /**
   * GET /v1/compute serves the fleet view the observers write (no provider call per list). A list keeps the
   * account's observers going for FLEET_VIEW_LEASE; `?refresh=true` (and a first list) waits at most
   * FLEET_REFRESH_WAIT for its round.
   */
  FLEET_VIEW_LEASE: positiveDuration.default('5m'),
  FLEET_REFRESH_WAIT: duration.default('5s'),

  /** A followed log (`GET …/logs?follow=true`) sends a `: keep-alive` comment this often, so proxies keep it open. */
  LOG_KEEPALIVE_INTERVAL: positiveDuration.default('15s'),

  /**
   * Boot deadlines over the defaults (runpod 10m, vastai 20m, lambda 15m), by provider or provider and GPU:
   * `runpod=5m,lambda:h100-80gb-sxm=25m`. Once 20 boots of a provider and GPU are recorded, 1.5× their p95 (at least 2
   * min) is used.
   */
  BOOT_DEADLINES: z
    .string()
    .refine(
      (v) =>
        v
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)
          .every(
            (p) => /^(runpod|vastai|lambda)(:[a-z0-9-]+)?=/.test(p) && durationPattern.test(p.split('=')[1]!.trim()),
          ),
      'must look like runpod=5m,lambda:h100-80gb-sxm=25m',
    )
    .transform((v) => parseBootDeadlines(v, parseDurationMs))
    .default(''),

  /** How often the reconciliation pass runs; the longest an unmanaged instance of ours can live once reachable. */
  RECONCILE_INTERVAL: duration.default('10m'),
  /** What reconciliation does with an instance of ours that no workflow manages. */
  RECONCILE_ORPHANS: z.enum(['terminate', 'adopt']).default('terminate'),
  /** How long stop/terminate wait on the provider before answering 202 (the request goes on), and launch before 503. */
  LIFECYCLE_ANSWER_WITHIN: duration.default('10s'),
  LAUNCH_ANSWER_WITHIN: duration.default('30s'),

  STRIPE_SECRET_KEY: optionalSecret,
  STRIPE_WEBHOOK_SECRET: optionalSecret,
  STRIPE_API_BASE_URL: httpUrl.optional(),
  /** How long instances keep running after the balance reached zero, unless credit arrives. */
  BALANCE_GRACE_PERIOD: duration.default('30m'),
  /**
   * A launch is admitted only when the balance (less uncharged usage) covers this long of every live instance plus it.
   */
  BALANCE_ADMISSION_WINDOW: duration.default('1h'),
  /** `billing.balance_low` once when the runway (available balance / burn) drops under this. */
  BALANCE_LOW_RUNWAY: duration.default('24h'),
  PUBLIC_BASE_URL: httpUrl.optional(),

  /** Webhooks: hosts reachable over plain http and at non-public addresses (comma-separated; local use only). */
  WEBHOOK_ALLOWED_HOSTS: z.string().default(''),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** Waits before each retry of a failed delivery; after the last one the delivery is `failed`. */
  WEBHOOK_RETRY_SCHEDULE: durationList.default('5s,5m,30m,2h,5h,10h,10h'),
  /** An endpoint failing without a success for this long is deactivated. */
  WEBHOOK_DISABLE_AFTER: duration.default('120h'),
  /** Safety tick of the dispatcher (LISTEN/NOTIFY wakes it at once; the tick covers a lost notification). */
  WEBHOOK_DISPATCH_TICK: duration.default('5s'),
  /** How long a claimed first attempt may take before the sweep hands it to a retry workflow. */
  WEBHOOK_CLAIM_LEASE: duration.default('2m'),
  WEBHOOK_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  /** How long a dispatcher batch waits for slow first attempts before claiming more (they finish in the background). */
  WEBHOOK_BATCH_WAIT: duration.default('1s'),
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment (default `process.env`); empty strings count as unset. Throws {@link ConfigError}. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`));
  }
  return Object.freeze(result.data);
}

/** For process entry points: parse, or print the problems and exit with code 1. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(err.message + '\n');
      process.exit(1);
    }
    throw err;
  }
}

/** Requires settings that only the local default may leave out. */
export function requireSettings<K extends keyof Config>(config: Config, keys: K[]): void {
  const missing = keys.filter((k) => config[k] === undefined);
  if (missing.length) throw new ConfigError(missing.map((k) => `${String(k)}: required`));
}

/** The webhook delivery settings from config (see `WebhookSettings`). */
export function webhookSettings(config: Config) {
  return {
    allowedHosts: config.WEBHOOK_ALLOWED_HOSTS.split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
    dispatchTickMs: config.WEBHOOK_DISPATCH_TICK,
    claimLeaseMs: config.WEBHOOK_CLAIM_LEASE,
    batchSize: config.WEBHOOK_BATCH_SIZE,
    batchWaitMs: config.WEBHOOK_BATCH_WAIT,
  };
}

/** The adapters' settings from config (base URLs point at the real providers unless overridden). */
export function providerAdapterSettings(config: Config, logger: import('./logger').Logger) {
  return {
    runpodBaseUrl: config.RUNPOD_API_BASE_URL,
    vastaiBaseUrl: config.VASTAI_API_BASE_URL,
    lambdaBaseUrl: config.LAMBDA_API_BASE_URL,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    logger,
  };
}

/** The fleet view's settings from config (see `FleetSettings`). */
export function fleetSettingsFromConfig(config: Config) {
  return {
    viewLeaseMs: config.FLEET_VIEW_LEASE,
    refreshWaitMs: config.FLEET_REFRESH_WAIT,
  };
}

/** The launch workflow's intervals from config (observation, spot observation, metering, the idle-stop minute). */
export function launchTimingFromConfig(config: Config) {
  return {
    pollIntervalMs: config.INSTANCE_OBSERVE_INTERVAL,
    spotPollIntervalMs: config.INSTANCE_OBSERVE_SPOT_INTERVAL,
    meterIntervalMs: config.METER_INTERVAL,
    idleStopMinuteMs: config.IDLE_STOP_MINUTE,
  };
}

/** The per-account limits from config (LIMIT_*). */
export function accountLimitsFromConfig(config: Config): AccountLimits {
  return Object.freeze({
    alerts: config.LIMIT_ALERTS,
    schedules: config.LIMIT_SCHEDULES,
    webhooks: config.LIMIT_WEBHOOKS,
    webhook_urls: config.LIMIT_WEBHOOK_URLS,
    ssh_keys: config.LIMIT_SSH_KEYS,
    live_instances: config.LIMIT_LIVE_INSTANCES,
    api_keys: config.LIMIT_API_KEYS,
  });
}

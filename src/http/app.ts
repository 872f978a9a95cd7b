/**
 * `createApp(deps)` builds the Koa application and never listens: the API process calls `.listen()`, tests
 * drive `app.callback()` through supertest.
 */
import Koa from 'koa';
import type { Client } from '@temporalio/client';
import { createApiKeyQueries } from '../db/queries/api-keys';
import { createAlertQueries } from '../db/queries/alerts';
import { createCreditTopupQueries } from '../db/queries/credit-topups';
import { createLedgerQueries } from '../db/queries/ledger';
import { readSpendSummary } from '../db/queries/spend-summary';
import { createCreditReversalQueries } from '../db/queries/credit-reversals';
import { createProviderKeyQueries, type ProviderKeyQueries } from '../db/queries/provider-keys';
import { createLimitQueries } from '../db/queries/limits';
import { createSshKeyQueries } from '../db/queries/ssh-keys';
import { DEFAULT_LIMITS, type AccountLimits } from '../domain/limits';
import type { KeyVault } from '../domain/key-vault';
import { createPricingQueries } from '../db/queries/pricing';
import { createRecommendationInputQueries } from '../db/queries/recommendation-inputs';
import type { ProviderAdapter, ProviderId } from '../providers/types';
import type { PricingCache } from '../db/pricing-cache';
import { createLaunchAdmission, DEFAULT_ADMISSION_WINDOW_MS } from '../launch/admission';
import { DEFAULT_LAUNCH_TIMING } from '../launch/input';
import { createLaunchLibrary } from '../launch/launches';
import { createProviderCredentials } from '../providers/provider-credentials';
import { createStripeClient, type StripeSettings } from '../billing/stripe';
import { createBillingClient } from '../workflow-clients/billing';
import type { Pool } from '../db/pool';
import { sql } from '../db/sql';
import type { Logger } from '../logger';
import { bearerAuth } from './auth';
import { serveConsole } from './console';
import { edge, logApplicationError, sequence } from './edge';
import { publicRequestLimit, RateLimiter, type RateLimitSettings } from './rate-limit';
import { SharedWindowLimits } from './shared-rate-limit';
import { createRateLimitQueries, type RateLimitStore } from '../db/queries/rate-limits';
import { buildOpenApiDocument } from './openapi';
import { serveDocs } from './docs-page';
import { ApiRouter } from './route';
import { registerAlertRoutes } from './routes/alerts';
import { registerApiKeyRoutes } from './routes/api-keys';
import { registerPlanRoutes } from './routes/plan';
import { registerBillingRoutes } from './routes/billing';
import { registerComputeRoutes } from './routes/compute';
import { registerComputeListRoute } from './routes/compute-list';
import { createInstanceQueries, type InstanceQueries } from '../db/queries/instances';
import { createInstanceClient, type AnswerBounds } from '../workflow-clients/instances';
import { createFleetViewQueries } from '../db/queries/fleet-views';
import { createFleetClient, type FleetSettings } from '../workflow-clients/fleet';
import type { LaunchTiming } from '../../workflows/contracts/launch';
import { registerLimitRoutes } from './routes/limits';
import { registerPricingRoutes } from './routes/pricing';
import { registerProviderKeyRoutes } from './routes/provider-keys';
import { registerRecommendationRoutes } from './routes/recommendations';
import { registerScheduleRoutes } from './routes/schedules';
import { registerJobRoutes } from './routes/jobs';
import { createJobQueries } from '../db/queries/jobs';
import { createLogLibrary, type LogLibraryDeps, type LogSettings } from '../jobs/logs';
import { createJobClient, DEFAULT_JOB_BACKOFF } from '../workflow-clients/jobs';
import { createScheduleQueries } from '../db/queries/schedules';
import { createScheduleClient } from '../workflow-clients/schedules';
import { createScheduleSync } from '../workflow-clients/schedule-sync';
import { registerSshKeyRoutes } from './routes/ssh-keys';
import { registerTemplateRoutes } from './routes/templates';
import { registerEventRoutes } from './routes/events';
import { createEventQueries } from '../db/queries/events';
import { registerWebhookRoutes } from './routes/webhooks';
import { createWebhookQueries } from '../db/queries/webhooks';
import { createWebhookClient } from '../workflow-clients/webhooks';
import type { Resolver } from '../webhooks/webhook-sender';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  temporal: { client: Client; taskQueue: string };
  adapters: Record<ProviderId, ProviderAdapter>;
  vault: KeyVault;
  pricing: PricingCache;
  /**
   * Requests per account, all its keys together (default bursts of 120 per process, 600 a minute across
   * processes), unauthenticated requests per client address (default 300 a minute) and failed authentications
   * per address (default 30).
   */
  rateLimit?: RateLimitSettings & {
    unauthenticatedPerMinute?: number;
    authFailuresPerMinute?: number;
    now?: () => number;
  };
  /** Where the API processes count shared rate limits; default Postgres (`null`: each process counts alone). */
  rateLimitStore?: RateLimitStore | null;
  /** Poll and meter intervals for new launch workflows; defaults: 1 min and 1 h. */
  launchTiming?: LaunchTiming;
  publicBaseUrl?: string;
  /** How long stop/terminate and launch wait on their workflow before answering (defaults 10 s and 30 s). */
  answerBounds?: Partial<AnswerBounds>;
  /** BALANCE_ADMISSION_WINDOW: the balance must cover this long of the whole fleet plus a new launch; default 1 h. */
  admissionWindowMs?: number;
  /** How long a client has to send its request body (408 after); default 10 s. */
  bodyTimeoutMs?: number;
  /** Stripe for credit top-ups (STRIPE_*); without a secret key POST /v1/billing/credit answers 503. */
  stripe?: StripeSettings;
  /** The fleet view behind GET /v1/compute: view lease, refresh wait and refresh gaps (FLEET_*). */
  fleet?: Partial<FleetSettings>;
  /** Where the built console lives (default: dist/web, see console/build.ts). */
  consoleDir?: string;
  /** Webhook URL policy: hosts allowed over http and at non-public addresses (default none), and DNS. */
  webhooks?: { allowedHosts: string[]; resolve?: Resolver };
  /** Per-account limits (LIMIT_*); default {@link DEFAULT_LIMITS}. */
  limits?: AccountLimits;
  /** The shortest gap a schedule's cron may leave between firings (SCHEDULE_MIN_INTERVAL); default 5 min. */
  scheduleMinIntervalMs?: number;
  /** TRUST_PROXY: proxies whose X-Forwarded-For entries count as the client's address; default 0 (none). */
  trustProxyHops?: number;
  /** Logs: how often a follow looks for its end, and the keep-alive comment's interval (15 s); tests compress them. */
  logs?: Partial<LogSettings> & { keepAliveMs?: number };
  /** Jobs' no-capacity backoff (1 min doubling to 10 min); tests compress it. */
  jobBackoff?: { backoffInitialMs: number; backoffMaxMs: number };
}

export function createApp(deps: AppDeps): Koa {
  const hops = deps.trustProxyHops ?? 0;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  const { rate, shared, limiter } = createRateLimits(deps);
  const apiKeys = createApiKeyQueries(deps.pool);
  const authenticate = bearerAuth(apiKeys, limiter, {
    failures: { limits: shared, perMinute: rate.authFailuresPerMinute },
    onTouchError: (err) => deps.logger.warn('could not record when an API key was last used', { err }),
  });
  const api = new ApiRouter(
    authenticate,
    { timeoutMs: deps.bodyTimeoutMs },
    publicRequestLimit(shared, rate.unauthenticatedPerMinute),
  );

  const providerKeys = createProviderKeyQueries(deps.pool);
  const credentials = createProviderCredentials(providerKeys, deps.vault);

  const limits = createLimitQueries(deps.pool, deps.limits ?? DEFAULT_LIMITS);
  registerLimitRoutes(api, { limits });
  const sshKeys = createSshKeyQueries(deps.pool);
  registerSshKeyRoutes(api, sshKeys, limits);
  const instances = createInstanceQueries(deps.pool);
  registerProviderKeyRoutes(api, { queries: providerKeys, credentials, adapters: deps.adapters, instances });
  registerTemplateRoutes(api);
  const ledger = createLedgerQueries(deps.pool);
  const timing = deps.launchTiming ?? DEFAULT_LAUNCH_TIMING;
  const instanceClient = createInstanceClient({ temporal: deps.temporal, instances, bounds: deps.answerBounds });
  // One launch library for launches and plans: the policy, and admission (the balance, the live-instance limit
  // and the key's cap under the account's lock).
  const launches = createLaunchLibrary({
    credentials,
    sshKeys,
    adapters: deps.adapters,
    timing,
    admission: createLaunchAdmission({
      pool: deps.pool,
      instances,
      windowMs: deps.admissionWindowMs ?? DEFAULT_ADMISSION_WINDOW_MS,
      maxLive: (deps.limits ?? DEFAULT_LIMITS).live_instances,
      pricing: deps.pricing,
      adapters: deps.adapters,
      credentials,
      logger: deps.logger,
    }),
    start: (input) => instanceClient.launch(input),
  });
  const scheduleQueries = createScheduleQueries(deps.pool);
  registerPlanRoutes(api, { launches, schedules: scheduleQueries });
  const jobQueries = createJobQueries(deps.pool);
  const logs = createLogs(deps, { jobs: jobQueries, instances, credentials });
  registerComputeRoutes(api, { launches, workflows: instanceClient, instances, logs });
  // After launch (the OpenAPI document keeps the order): GET /v1/compute, served from the fleet view.
  registerFleetListRoute(api, deps, { instances, providerKeys, timing });
  // Runs launch with the same poll and meter intervals as API launches.
  const scheduleEngine = createScheduleClient({
    temporal: deps.temporal,
    timing,
    jobBackoff: deps.jobBackoff,
    engineMs: deps.answerBounds?.engineMs,
  });
  registerScheduleRoutes(api, {
    vault: deps.vault,
    queries: scheduleQueries,
    schedules: createScheduleSync({ queries: scheduleQueries, limits, engine: scheduleEngine, logger: deps.logger }),
    workflows: scheduleEngine,
    minIntervalMs: deps.scheduleMinIntervalMs ?? 5 * 60_000,
  });
  // Jobs: runs of a command to its end, attempts launched by their workflow with the API's launch timing.
  registerJobRoutes(api, {
    jobs: jobQueries,
    logs,
    offers: scheduleQueries,
    credentials,
    sshKeys,
    vault: deps.vault,
    workflows: createJobClient({
      temporal: deps.temporal,
      timing: { launch: timing, ...DEFAULT_JOB_BACKOFF, ...deps.jobBackoff },
    }),
  });
  registerPricingRoutes(api, { cache: deps.pricing, queries: createPricingQueries(deps.pool) });
  const stripeSettings: StripeSettings = { returnBaseUrl: deps.publicBaseUrl, ...deps.stripe };
  registerBillingRoutes(api, {
    ledger,
    summary: (accountId) => readSpendSummary(deps.pool, accountId),
    reversals: createCreditReversalQueries(deps.pool),
    topups: createCreditTopupQueries(deps.pool),
    stripe: createStripeClient(stripeSettings),
    stripeSettings,
    workflows: createBillingClient(deps.temporal),
    logger: deps.logger,
  });
  registerRecommendationRoutes(api, { instances: createRecommendationInputQueries(deps.pool), pricing: deps.pricing });
  registerAlertRoutes(api, { alerts: createAlertQueries(deps.pool), limits });
  const webhookQueries = createWebhookQueries(deps.pool, deps.vault);
  registerWebhookRoutes(api, {
    queries: webhookQueries,
    workflows: createWebhookClient({ temporal: deps.temporal }),
    limits,
    policy: { allowedHosts: deps.webhooks?.allowedHosts ?? [] },
    resolve: deps.webhooks?.resolve,
  });
  registerEventRoutes(api, { queries: webhookQueries });
  registerApiKeyRoutes(api, { keys: apiKeys, limits });

  registerOperationalRoutes(api, deps);
  serveOpenApi(api, deps.publicBaseUrl);

  app.on('error', logApplicationError(deps.logger));
  // One Koa middleware: the edge runs the console and the routes itself (no compose promise per layer).
  app.use(edge(deps.logger, sequence(serveConsole(deps.consoleDir), api.routes())));
  return app;
}

/**
 * Job and instance logs and the follow's keep-alive. Logs are read from the providers where the API answers,
 * as the provider-key checks are (src/jobs/logs.ts).
 */
function createLogs(
  deps: Pick<AppDeps, 'adapters' | 'logger' | 'logs'>,
  own: Pick<LogLibraryDeps, 'jobs' | 'instances' | 'credentials'>,
) {
  return {
    library: createLogLibrary({ ...own, adapters: deps.adapters, logger: deps.logger, settings: deps.logs }),
    keepAliveMs: deps.logs?.keepAliveMs ?? 15_000,
  };
}

/** GET /v1/compute, served from the fleet view through the fleet client. */
function registerFleetListRoute(
  api: ApiRouter,
  deps: Pick<AppDeps, 'pool' | 'temporal' | 'fleet' | 'logger'>,
  own: { instances: InstanceQueries; providerKeys: ProviderKeyQueries; timing: LaunchTiming },
): void {
  const fleetViews = createFleetViewQueries(deps.pool);
  registerComputeListRoute(api, {
    instances: own.instances,
    events: createEventQueries(deps.pool),
    providerKeys: own.providerKeys,
    fleet: {
      views: fleetViews,
      client: createFleetClient({
        temporal: deps.temporal,
        views: fleetViews,
        // The observer runs with the intervals a launch would give it.
        timing: {
          steadyMs: own.timing.pollIntervalMs,
          spotMs: own.timing.spotPollIntervalMs ?? 10_000,
          bootMs: own.timing.bootPollMaxMs ?? 3_000,
          activityTimeoutMs: own.timing.activityTimeoutMs ?? 30_000,
        },
        settings: deps.fleet ?? {},
        logger: deps.logger,
      }),
    },
  });
}

/**
 * The request limits: per account across its keys (a burst per process, a minute's worth across processes), per client
 * address for unauthenticated requests, and failed authentications per address. A store that cannot be reached
 * is logged at most once a minute while each process counts alone.
 */
function createRateLimits(deps: Pick<AppDeps, 'pool' | 'logger' | 'rateLimit' | 'rateLimitStore'>) {
  const rate = {
    burst: 120,
    perMinute: 600,
    unauthenticatedPerMinute: 300,
    authFailuresPerMinute: 30,
    ...deps.rateLimit,
  };
  let storeFailureLogged = 0;
  const shared = new SharedWindowLimits(
    deps.rateLimitStore === undefined ? createRateLimitQueries(deps.pool) : deps.rateLimitStore,
    {
      now: rate.now,
      onStoreError: (err) => {
        if (Date.now() - storeFailureLogged < 60_000) return;
        storeFailureLogged = Date.now();
        deps.logger.warn('rate-limit store unreachable; limits hold per process meanwhile', { err });
      },
    },
  );
  const limiter = new RateLimiter(rate, rate.now ?? Date.now, shared);
  return { rate, shared, limiter };
}

/** GET /healthz and GET /readyz, for whoever runs the process. */
function registerOperationalRoutes(api: ApiRouter, deps: Pick<AppDeps, 'pool' | 'temporal' | 'logger'>): void {
  // Operational routes: not part of the versioned API, not in the OpenAPI document.
  api.router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  // Ready or not ready, nothing more: which dependency failed and how goes to the log, not to whoever asks.
  // Metrics and the codec endpoints live on the operations listener (src/http/ops.ts), not on this port.
  api.router.get('/readyz', async (ctx) => {
    const ready = await checkReadiness(deps);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready' };
  });
}

/** The OpenAPI document of every route registered so far, built on first request, and its reference page. */
function serveOpenApi(api: ApiRouter, publicBaseUrl: string | undefined): void {
  let openapi: object | undefined;
  const document = () => (openapi ??= buildOpenApiDocument(api.definitions, publicBaseUrl));
  api.router.get('/v1/openapi.json', (ctx) => {
    ctx.body = document();
  });
  // The reference page (RapiDoc) over the same document, with request samples.
  serveDocs(api.router, document);
}

/** True when Postgres and Temporal answer within 2 s each; a failing check is logged with its reason. */
export async function checkReadiness(deps: Pick<AppDeps, 'pool' | 'temporal' | 'logger'>): Promise<boolean> {
  const checks = await Promise.all([
    probe('postgres', () => deps.pool.query(sql.typeAlias('void')`SELECT`)),
    probe('temporal', () => deps.temporal.client.workflowService.getSystemInfo({})),
  ]);
  for (const c of checks) if (!c.ok) deps.logger.warn('not ready', { dependency: c.name, error: c.error });
  return checks.every((c) => c.ok);
}

async function probe(
  name: string,
  check: () => Promise<unknown>,
): Promise<{ name: string; ok: boolean; error?: string }> {
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2s')), 2000).unref()),
    ]);
    return { name, ok: true };
  } catch (err) {
    return { name, ok: false, error: (err as Error).message };
  }
}

/**
 * `createApp(deps)` builds the Koa application and never listens: the API process calls `.listen()`, tests
 * drive `app.callback()` through supertest.
 */
import Koa from 'koa';
import type { Client } from '@temporalio/client';
import { createAccountQueries } from '../db/queries/accounts';
import { createAlertQueries } from '../db/queries/alerts';
import { createCreditTopupQueries } from '../db/queries/credit-topups';
import { createLedgerQueries } from '../db/queries/ledger';
import { createProviderKeyQueries } from '../db/queries/provider-keys';
import { createSshKeyQueries } from '../db/queries/ssh-keys';
import type { KeyVault } from '../domain/key-vault';
import { createPricingQueries } from '../db/queries/pricing';
import { createRecommendationInputQueries } from '../db/queries/recommendation-inputs';
import type { ProviderAdapter, ProviderId } from '../providers/types';
import type { PricingCache } from '../services/pricing-cache';
import { createBalanceGuard } from '../services/balance-guard';
import { createProviderCredentials } from '../services/provider-credentials';
import { createStripeClient, type StripeSettings } from '../services/stripe';
import { createBillingClient } from '../workflow-clients/billing';
import type { Pool } from '../db/pool';
import { sql } from '../db/sql';
import type { Logger } from '../logger';
import { bearerAuth } from './auth';
import { serveConsole } from './console';
import { edge, logApplicationError } from './edge';
import { RateLimiter, type RateLimitSettings } from './rate-limit';
import { buildOpenApiDocument, renderDocsPage } from './openapi';
import { ApiRouter } from './route';
import { registerAlertRoutes } from './routes/alerts';
import { registerBillingRoutes } from './routes/billing';
import { registerComputeRoutes } from './routes/compute';
import { createInstanceQueries } from '../db/queries/instances';
import { createInstanceClient, type AnswerBounds } from '../workflow-clients/instances';
import type { LaunchTiming } from '../../workflows/contracts/launch';
import { renderMetrics } from '../metrics';
import { registerPricingRoutes } from './routes/pricing';
import { registerProviderKeyRoutes } from './routes/provider-keys';
import { registerRecommendationRoutes } from './routes/recommendations';
import { registerScheduleRoutes } from './routes/schedules';
import { createScheduleQueries } from '../db/queries/schedules';
import { createScheduleClient } from '../workflow-clients/schedules';
import { registerSshKeyRoutes } from './routes/ssh-keys';
import { registerTemplateRoutes } from './routes/templates';
import { registerEventRoutes } from './routes/events';
import { registerWebhookRoutes } from './routes/webhooks';
import { createWebhookQueries } from '../db/queries/webhooks';
import { createWebhookClient } from '../workflow-clients/webhooks';
import type { Resolver } from '../services/webhook-sender';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  temporal: { client: Client; taskQueue: string };
  adapters: Record<ProviderId, ProviderAdapter>;
  vault: KeyVault;
  pricing: PricingCache;
  /** Requests per service key; default bursts of 120, 600 a minute. */
  rateLimit?: RateLimitSettings;
  /** Poll and meter intervals for new launch workflows; defaults: 1 min and 1 h. */
  launchTiming?: LaunchTiming;
  publicBaseUrl?: string;
  /** How long stop/terminate and launch wait on their workflow before answering (defaults 10 s and 30 s). */
  answerBounds?: Partial<AnswerBounds>;
  /** How long a client has to send its request body (408 after); default 10 s. */
  bodyTimeoutMs?: number;
  /** Stripe for credit top-ups (STRIPE_*); without a secret key POST /v1/billing/credit answers 503. */
  stripe?: StripeSettings;
  /** Where the built console lives (default: dist/web, see console/build.ts). */
  consoleDir?: string;
  /** Webhook URL policy: hosts allowed over http and at non-public addresses (default none), and DNS. */
  webhooks?: { allowedHosts: string[]; resolve?: Resolver };
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: true });
  const limiter = new RateLimiter(deps.rateLimit ?? { burst: 120, perMinute: 600 });
  const api = new ApiRouter(bearerAuth(createAccountQueries(deps.pool), limiter), { timeoutMs: deps.bodyTimeoutMs });

  const providerKeys = createProviderKeyQueries(deps.pool);
  const credentials = createProviderCredentials(providerKeys, deps.vault);

  const sshKeys = createSshKeyQueries(deps.pool);
  registerSshKeyRoutes(api, sshKeys);
  const instances = createInstanceQueries(deps.pool);
  registerProviderKeyRoutes(api, { queries: providerKeys, credentials, adapters: deps.adapters, instances });
  registerTemplateRoutes(api);
  const ledger = createLedgerQueries(deps.pool);
  registerComputeRoutes(api, {
    workflows: createInstanceClient({ temporal: deps.temporal, instances, bounds: deps.answerBounds }),
    adapters: deps.adapters,
    credentials,
    instances,
    sshKeys,
    balance: createBalanceGuard({ ledger, instances, pricing: deps.pricing, adapters: deps.adapters, credentials, logger: deps.logger }),
    launchTiming: deps.launchTiming,
  });
  registerScheduleRoutes(api, {
    queries: createScheduleQueries(deps.pool),
    // Runs launch with the same poll and meter intervals as API launches.
    workflows: createScheduleClient({ temporal: deps.temporal, timing: deps.launchTiming ?? { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 } }),
  });
  registerPricingRoutes(api, { cache: deps.pricing, queries: createPricingQueries(deps.pool) });
  const stripeSettings: StripeSettings = { returnBaseUrl: deps.publicBaseUrl, ...deps.stripe };
  registerBillingRoutes(api, {
    ledger,
    topups: createCreditTopupQueries(deps.pool),
    stripe: createStripeClient(stripeSettings),
    stripeSettings,
    workflows: createBillingClient(deps.temporal),
    logger: deps.logger,
  });
  registerRecommendationRoutes(api, { instances: createRecommendationInputQueries(deps.pool), pricing: deps.pricing });
  registerAlertRoutes(api, { alerts: createAlertQueries(deps.pool) });
  const webhookQueries = createWebhookQueries(deps.pool);
  registerWebhookRoutes(api, {
    queries: webhookQueries,
    workflows: createWebhookClient({ temporal: deps.temporal }),
    policy: { allowedHosts: deps.webhooks?.allowedHosts ?? [] },
    resolve: deps.webhooks?.resolve,
  });
  registerEventRoutes(api, { queries: webhookQueries });

  // Operational routes: not part of the versioned API, not in the OpenAPI document.
  api.router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  api.router.get('/readyz', async (ctx) => {
    const checks = await Promise.all([
      probe('postgres', () => deps.pool.query(sql.typeAlias('void')`SELECT`)),
      probe('temporal', () => deps.temporal.client.workflowService.getSystemInfo({})),
    ]);
    const ok = checks.every((c) => c.ok);
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ready' : 'not_ready', checks: Object.fromEntries(checks.map((c) => [c.name, c.ok ? 'ok' : c.error])) };
  });

  // Prometheus text: this process's series plus the ledger totals (read at scrape time). Not authenticated,
  // like /healthz: expose the API port to Prometheus on a private network only (README, Metrics).
  api.router.get('/metrics', async (ctx) => {
    const { contentType, body } = await renderMetrics({ ledgerTotals: () => ledger.totals() });
    ctx.type = contentType;
    ctx.body = body;
  });

  let openapi: object | undefined;
  const document = () => (openapi ??= buildOpenApiDocument(api.definitions, deps.publicBaseUrl));
  api.router.get('/v1/openapi.json', (ctx) => {
    ctx.body = document();
  });
  api.router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = renderDocsPage(document() as Parameters<typeof renderDocsPage>[0]);
  });

  app.on('error', logApplicationError(deps.logger));
  app.use(edge(deps.logger));
  app.use(serveConsole(deps.consoleDir));
  app.use(api.routes());
  return app;
}

async function probe(name: string, check: () => Promise<unknown>): Promise<{ name: string; ok: boolean; error?: string }> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2s')), 2000).unref())]);
    return { name, ok: true };
  } catch (err) {
    return { name, ok: false, error: (err as Error).message };
  }
}

/**
 * `createApp(deps)` builds the Koa application and never listens: the API process calls `.listen()`, tests
 * drive `app.callback()` through supertest.
 */
import Koa from 'koa';
import type { Client } from '@temporalio/client';
import { createAccountQueries } from '../db/queries/accounts';
import { createLedgerQueries } from '../db/queries/ledger';
import { createProviderKeyQueries } from '../db/queries/provider-keys';
import { createSshKeyQueries } from '../db/queries/ssh-keys';
import type { KeyVault } from '../domain/key-vault';
import { createPricingQueries } from '../db/queries/pricing';
import { createRecommendationInputQueries } from '../db/queries/recommendation-inputs';
import type { ProviderAdapter, ProviderId } from '../providers/types';
import type { PricingCache } from '../services/pricing-cache';
import { createProviderCredentials } from '../services/provider-credentials';
import type { Pool } from '../db/pool';
import { sql } from '../db/sql';
import type { Logger } from '../logger';
import { bearerAuth } from './auth';
import { edge } from './edge';
import { RateLimiter, type RateLimitSettings } from './rate-limit';
import { buildOpenApiDocument, renderDocsPage } from './openapi';
import { ApiRouter } from './route';
import { registerBillingRoutes } from './routes/billing';
import { registerComputeRoutes } from './routes/compute';
import { createInstanceQueries } from '../db/queries/instances';
import { createInstanceClient } from '../workflow-clients/instances';
import { registerPricingRoutes } from './routes/pricing';
import { registerProviderKeyRoutes } from './routes/provider-keys';
import { registerRecommendationRoutes } from './routes/recommendations';
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
  launchTiming?: { pollIntervalMs: number; meterIntervalMs: number; activityTimeoutMs?: number; continueAsNewAfter?: number };
  publicBaseUrl?: string;
  /** Webhook URL policy: hosts allowed over http and at non-public addresses (default none), and DNS. */
  webhooks?: { allowedHosts: string[]; resolve?: Resolver };
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: true });
  const limiter = new RateLimiter(deps.rateLimit ?? { burst: 120, perMinute: 600 });
  const api = new ApiRouter(bearerAuth(createAccountQueries(deps.pool), limiter));

  const providerKeys = createProviderKeyQueries(deps.pool);
  const credentials = createProviderCredentials(providerKeys, deps.vault);

  const sshKeys = createSshKeyQueries(deps.pool);
  registerSshKeyRoutes(api, sshKeys);
  registerProviderKeyRoutes(api, { queries: providerKeys, credentials, adapters: deps.adapters });
  registerTemplateRoutes(api);
  const instances = createInstanceQueries(deps.pool);
  registerComputeRoutes(api, {
    workflows: createInstanceClient({ temporal: deps.temporal, instances }),
    adapters: deps.adapters,
    credentials,
    instances,
    sshKeys,
    launchTiming: deps.launchTiming,
  });
  registerPricingRoutes(api, { cache: deps.pricing, queries: createPricingQueries(deps.pool) });
  registerBillingRoutes(api, { ledger: createLedgerQueries(deps.pool) });
  registerRecommendationRoutes(api, { instances: createRecommendationInputQueries(deps.pool), pricing: deps.pricing });
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

  let openapi: object | undefined;
  const document = () => (openapi ??= buildOpenApiDocument(api.definitions, deps.publicBaseUrl));
  api.router.get('/v1/openapi.json', (ctx) => {
    ctx.body = document();
  });
  api.router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = renderDocsPage(document() as Parameters<typeof renderDocsPage>[0]);
  });

  app.use(edge(deps.logger));
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

/**
 * The OpenAPI document exactly as the API serves it, built without a database or an engine: the routes are
 * registered (nothing connects at registration) and the document is read through the app itself. Used by
 * `npm run sdk:generate`; the SDK's drift test compares it with what a running app serves.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Pool } from '../db/pool';
import { createPricingQueries } from '../db/queries/pricing';
import { KeyVault } from '../domain/key-vault';
import { silentLogger } from '../logger';
import { createProviderAdapters } from '../providers';
import { PricingCache } from '../db/pricing-cache';
import { createApp } from './app';

export async function servedOpenApiDocument(): Promise<object> {
  const pool = {} as Pool;
  const app = createApp({
    pool,
    logger: silentLogger,
    temporal: { client: null as unknown as Client, taskQueue: 'openapi' },
    adapters: createProviderAdapters({ timeoutMs: 1000, logger: silentLogger }),
    vault: new KeyVault('openapi', randomBytes(32)),
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`);
    return (await res.json()) as object;
  } finally {
    server.close();
  }
}

/**
 * The servers the pricing benchmark drives, in one child process: the real API (`createApp`, every
 * middleware, the real PricingCache loaded from Postgres after a real refresh against the simulators) and
 * a bare Koa handler returning the very same bytes. Prints `{"api":port,"bare":port}` when ready.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { createPricingQueries, type ProviderOutcome } from '../src/db/queries/pricing';
import { createDatabasePool } from '../src/db/pool';
import { migrate } from '../src/db/migrate';
import { toStoredOffer } from '../src/domain/pricing';
import { createApp } from '../src/http/app';
import { ensureDatabase, startEmbeddedPostgres } from '../src/local/embedded-postgres';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import { PricingCache } from '../src/services/pricing-cache';
import { KeyVault } from '../src/domain/key-vault';
import { simulatorBaseUrls, startSimulators } from '../simulators';
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-bench-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 20000 + Math.floor(Math.random() * 20000) });
  await ensureDatabase(pg.url(), 'bench');
  await migrate(pg.url('bench'));
  const pool = await createDatabasePool(pg.url('bench'));
  const sims = await startSimulators();
  const adapters = createProviderAdapters({
    ...simulatorBaseUrls(sims),
    timeoutMs: 5000,
    logger: silentLogger,
  });
  const keys: Record<ProviderId, string> = { runpod: sims.runpod.createKey(), vastai: sims.vastai.createKey(), lambda: sims.lambda.createKey() };
  const outcomes = Object.fromEntries(
    await Promise.all(
      PROVIDERS.map(async (p) => [p, { ok: true, offers: (await adapters[p].listOffers(keys[p])).map(toStoredOffer) }] as [ProviderId, ProviderOutcome]),
    ),
  ) as Record<ProviderId, ProviderOutcome>;
  const queries = createPricingQueries(pool);
  await queries.recordRefresh(outcomes, new Date());
  const cache = new PricingCache(queries, silentLogger);
  await cache.start();
  const cached = cache.latest!;

  const app = createApp({
    pool,
    logger: silentLogger,
    temporal: { client: null as unknown as Client, taskQueue: 'bench' },
    adapters,
    vault: new KeyVault('bench', randomBytes(32)),
    pricing: cache,
    // Public pricing passes the per-address limiter (shared through Postgres): lifted so that it counts every
    // request but refuses none (autocannon comes from one address).
    rateLimit: { burst: 120, perMinute: 600, unauthenticatedPerMinute: 100_000_000 },
  });
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = cached.body;
  });
  const apiServer = app.listen(0, '127.0.0.1');
  const bareServer = bare.listen(0, '127.0.0.1');
  await Promise.all([apiServer, bareServer].map((s) => new Promise((r) => s.once('listening', r))));
  const port = (s: typeof apiServer) => (s.address() as { port: number }).port;
  process.stdout.write(JSON.stringify({ api: port(apiServer), bare: port(bareServer), bytes: cached.body.length, gpu_types: cached.snapshot.gpu_types.length }) + '\n');

  process.on('SIGTERM', async () => {
    apiServer.close();
    bareServer.close();
    await cache.stop();
    await sims.close();
    await pool.end();
    await pg.stop();
    process.exit(0);
  });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

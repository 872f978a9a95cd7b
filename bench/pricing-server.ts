/**
 * The servers the pricing benchmark drives, in one child process: the real API (`createApp`, every
 * middleware, the real PricingCache loaded from Postgres after a real refresh against the simulators, the
 * logger as shipped: one JSON line per request on stdout, which the benchmark points at a file) and a bare
 * Koa handler returning the very same bytes. Sends `{api, bare, bytes, gpu_types}` to the parent when ready.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import Koa from 'koa';
import { createPricingQueries, type ProviderOutcome } from '../src/db/queries/pricing';
import { toStoredOffer } from '../src/domain/pricing';
import { createApp } from '../src/http/app';
import { createLogger, silentLogger, type LogLevel } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import { PricingCache } from '../src/db/pricing-cache';
import { simulatorBaseUrls } from '../simulators';
import type { Client } from '@temporalio/client';
import { runBench, startBench } from './harness';

async function main(): Promise<void> {
  // The parent's SIGTERM stops the stack (servers, cache, simulators, Postgres, the folder) and ends the process.
  const stack = await startBench('pricing');
  const { pool } = await stack.database();
  const sims = await stack.simulators();
  const adapters = createProviderAdapters({
    ...simulatorBaseUrls(sims),
    timeoutMs: 5000,
    logger: silentLogger,
  });
  const keys: Record<ProviderId, string> = {
    runpod: sims.runpod.createKey(),
    vastai: sims.vastai.createKey(),
    lambda: sims.lambda.createKey(),
  };
  const outcomes = Object.fromEntries(
    await Promise.all(
      PROVIDERS.map(
        async (p) =>
          [p, { ok: true, offers: (await adapters[p].listOffers(keys[p])).map(toStoredOffer) }] as [
            ProviderId,
            ProviderOutcome,
          ],
      ),
    ),
  ) as Record<ProviderId, ProviderOutcome>;
  const queries = createPricingQueries(pool);
  await queries.recordRefresh(outcomes, new Date());
  const cache = new PricingCache(queries, silentLogger);
  await cache.start();
  stack.defer('the pricing cache', () => cache.stop());
  const cached = cache.latest!;

  const app = createApp({
    pool,
    // As shipped: info. BENCH_LOG_LEVEL=silent measures the pipeline without its request log.
    logger: createLogger((process.env.BENCH_LOG_LEVEL as LogLevel | undefined) ?? 'info', { process: 'api' }),
    temporal: { client: null as unknown as Client, taskQueue: 'bench' },
    adapters,
    vault: stack.vault,
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
  const [apiServer, bareServer] = [await stack.listen(app), await stack.listen(bare)];
  const port = (s: typeof apiServer) => Number(new URL(s.url).port);
  process.send!({
    api: port(apiServer),
    bare: port(bareServer),
    bytes: cached.body.length,
    gpu_types: cached.snapshot.gpu_types.length,
  });

  // bench:pricing BENCH_PROFILE=1: a CPU profile of exactly the measured window, written where asked.
  const inspector = new Session();
  inspector.connect();
  const post = <T>(method: string) =>
    new Promise<T>((resolve, reject) => inspector.post(method, (err, res) => (err ? reject(err) : resolve(res as T))));
  process.on('message', async (m: { profile?: 'start' | 'stop'; file?: string; cpu?: boolean }) => {
    if (m.cpu) {
      const { user, system } = process.cpuUsage();
      process.send!({ cpu: user + system });
    } else if (m.profile === 'start') {
      await post('Profiler.enable');
      await post('Profiler.start');
      process.send!({ profiling: true });
    } else if (m.profile === 'stop') {
      const { profile } = await post<{ profile: object }>('Profiler.stop');
      await writeFile(m.file!, JSON.stringify(profile));
      process.send!({ profiled: m.file });
    }
  });
}

runBench(main, { serve: true });

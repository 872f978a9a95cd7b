/**
 * `npm run bench:launch`: launch latency through the API (POST /v1/compute/launch → 201, i.e. update-with-start
 * on the real Temporal dev server, the worker's activities, Postgres) beside a direct adapter call to the same
 * simulator, in the same run; then sustained launches per second with N concurrent clients.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createPricingQueries } from '../src/db/queries/pricing';
import { createProviderKeyQueries } from '../src/db/queries/provider-keys';
import { createDatabasePool } from '../src/db/pool';
import { migrate } from '../src/db/migrate';
import { KeyVault } from '../src/domain/key-vault';
import { createApp } from '../src/http/app';
import { ensureDatabase, startEmbeddedPostgres } from '../src/local/embedded-postgres';
import { findOrBuildTool, TEMPORAL_CLI } from '../src/local/tool-binaries';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { PricingCache } from '../src/services/pricing-cache';
import { createProviderCredentials } from '../src/services/provider-credentials';
import { createWorker } from '../src/worker';
import { devServerSearchAttributeArgs } from '../workflows/contracts/search-attributes';
import { simulatorBaseUrls, startSimulators } from '../simulators';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-bench-launch-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 20000 + Math.floor(Math.random() * 20000) });
  await ensureDatabase(pg.url(), 'bench');
  await migrate(pg.url('bench'));
  const pool = await createDatabasePool(pg.url('bench'), { maximumPoolSize: 20 });
  const cli = await findOrBuildTool(TEMPORAL_CLI);
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' }, ip: '127.0.0.1', extraArgs: ['--log-level', 'error', ...devServerSearchAttributeArgs()] },
  });
  const address = env.connection.options.address;
  const sims = await startSimulators({ bootDelayMs: 1000 });
  const adapters = createProviderAdapters({
    ...simulatorBaseUrls(sims),
    timeoutMs: 5000,
    logger: silentLogger,
  });
  const vault = new KeyVault('bench', randomBytes(32));
  const credentials = createProviderCredentials(createProviderKeyQueries(pool), vault);
  const taskQueue = 'bench-launch';
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    deps: { pool, logger: silentLogger, adapters, credentials, pricingKeys: {} },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const app = createApp({
    pool,
    logger: silentLogger,
    temporal: { client: new Client({ connection }), taskQueue },
    adapters,
    vault,
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
    launchTiming: { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 },
    // Launches are what is measured, not a client's request limits (the defaults would answer 429 past ~12/s).
    rateLimit: { burst: 100_000, perMinute: 1_000_000 },
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { apiKey } = await createAccountQueries(pool).insertAccountWithKey('bench', { startingCreditMicros: 1_000_000_000 });
  const simKey = sims.runpod.createKey();
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  await fetch(`${api}/v1/settings/providers`, { method: 'POST', headers, body: JSON.stringify({ provider: 'runpod', api_key: simKey }) });
  const body = JSON.stringify({ provider: 'runpod', gpu_type: 'rtx-a6000' });
  const viaApi = async () => {
    const t0 = performance.now();
    const res = await fetch(`${api}/v1/compute/launch`, { method: 'POST', headers, body });
    if (res.status !== 201) throw new Error(`launch answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  let n = 0;
  const direct = async () => {
    const t0 = performance.now();
    await adapters.runpod.launch(simKey, { gpuType: 'rtx-a6000', gpuCount: 1, name: `direct-${n++}`, spot: false });
    return performance.now() - t0;
  };

  for (let i = 0; i < 5; i++) await Promise.all([viaApi(), direct()]); // warm-up (workflow bundle caches, JIT)
  const apiMs: number[] = [];
  const directMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    directMs.push(await direct());
    apiMs.push(await viaApi());
  }
  let launched = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        await viaApi();
        launched++;
      }
    }),
  );
  const row = (name: string, xs: number[]) => `${name.padEnd(34)} p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms`;
  process.stdout.write(
    [
      `launch latency, ${SAMPLES} sequential launches each (runpod simulator, alternating)`,
      row('direct adapter call (create pod)', directMs),
      row('API POST /v1/compute/launch → 201', apiMs),
      `overhead of the API (p50): ${(pct(apiMs, 50) - pct(directMs, 50)).toFixed(1)} ms`,
      `sustained: ${(launched / SECONDS).toFixed(1)} launches/s with ${CONCURRENCY} concurrent clients over ${SECONDS}s (${launched} launches, each a workflow)`,
      '',
    ].join('\n'),
  );

  server.close();
  worker.shutdown();
  await running.catch(() => undefined);
  // Every part is stopped even if one fails: a leftover dev server or Postgres would outlive the run.
  await Promise.allSettled([connection.close(), nativeConnection.close()]);
  await Promise.allSettled([env.teardown(), sims.close(), pool.end()]);
  await pg.stop();
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? JSON.stringify(err)}\n`);
  process.exit(1);
});

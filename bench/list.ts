/**
 * `npm run bench:list`: GET /v1/compute for an account with 1,000 instances across the three providers,
 * served from the fleet view (what the observers last listed): p50/p99 of sequential lists, throughput with N
 * concurrent clients, and provider requests per list (counted at the simulators, the observers' own rounds
 * included). Then the console's fleet page with the same fleet in Chromium beside the same rows as static HTML
 * (`bench/console-page.ts`). Real parts: embedded Postgres, the Temporal dev server, the worker's activities, the
 * simulators, Debian's Chromium.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
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
import type { LaunchSpec, ProviderId } from '../src/providers/types';
import { PricingCache } from '../src/db/pricing-cache';
import { createProviderCredentials } from '../src/providers/provider-credentials';
import { createWorker } from '../src/worker';
import { temporalDataConverter } from '../src/workflow-clients/payload-codec';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { devServerArgs } from '../src/local/dev-server';
import { simulatorBaseUrls, startSimulators } from '../simulators';
import { buildConsole } from '../console/build';
import { consoleFleetReport, measureConsoleFleet } from './console-page';

const INSTANCES = Number(process.env.LIST_INSTANCES ?? 1000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

async function listen(app: ReturnType<typeof createApp>): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-bench-list-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 20000 + Math.floor(Math.random() * 20000) });
  await ensureDatabase(pg.url(), 'bench');
  await migrate(pg.url('bench'));
  const pool = await createDatabasePool(pg.url('bench'), { maximumPoolSize: 20 });
  const cli = await findOrBuildTool(TEMPORAL_CLI);
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' }, ip: '127.0.0.1', extraArgs: ['--log-level', 'error', ...devServerArgs()] },
  });
  const address = env.connection.options.address;
  const sims = await startSimulators({ bootDelayMs: 200, recordLimit: 1_000_000 });
  const adapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 10_000, logger: silentLogger });
  const vault = new KeyVault('bench', randomBytes(32));
  const credentials = createProviderCredentials(createProviderKeyQueries(pool), vault);
  const taskQueue = 'bench-list';
  const consoleBuild = await buildConsole(path.join(dir, 'console'));
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    dataConverter: temporalDataConverter(vault),
    // 1,000 live instances in one account: past the default live-instance limit (20).
    deps: { pool, logger: silentLogger, adapters, vault, credentials, pricingKeys: {}, limits: { ...DEFAULT_LIMITS, live_instances: 1_000_000 } },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const appDeps = {
    pool,
    logger: silentLogger,
    temporal: { client: new Client({ connection, dataConverter: temporalDataConverter(vault) }), taskQueue },
    limits: { ...DEFAULT_LIMITS, live_instances: 1_000_000 },
    adapters,
    vault,
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
    // The real intervals: the observer lists every 60 s (its rounds are counted with the lists).
    launchTiming: { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 },
    rateLimit: { burst: 100_000, perMinute: 1_000_000 },
    consoleDir: consoleBuild.outDir,
  };
  const observed = await listen(createApp(appDeps));

  // One account, its three keys, 1,000 instances made at the providers (a third each).
  const { apiKey } = await createAccountQueries(pool).insertAccountWithKey('bench', { startingCreditMicros: 1_000_000_000 });
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const keys = { runpod: sims.runpod.createKey(), vastai: sims.vastai.createKey(), lambda: sims.lambda.createKey() } as const;
  for (const provider of ['runpod', 'vastai', 'lambda'] as const) {
    const res = await fetch(`${observed.url}/v1/settings/providers`, { method: 'POST', headers, body: JSON.stringify({ provider, api_key: keys[provider] }) });
    if (res.status !== 201) throw new Error(`connecting ${provider}: ${res.status} ${await res.text()}`);
  }
  await adapters.lambda.ensureSshKey(keys.lambda, { name: 'bench', publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchBenchBenchBenchBenchBenchBenchBench0 bench' });
  const specs: [ProviderId, LaunchSpec][] = Array.from({ length: INSTANCES }, (_, i) => {
    const provider = (['runpod', 'vastai', 'lambda'] as const)[i % 3]!;
    const spec: LaunchSpec =
      provider === 'lambda'
        ? { gpuType: 'h100-80gb-sxm', gpuCount: 8, name: `bench-${i}`, spot: false, region: 'us-east-1', sshKeyName: 'bench' }
        : { gpuType: 'rtx-a6000', gpuCount: 1, name: `bench-${i}`, spot: false };
    return [provider, spec];
  });
  for (let i = 0; i < specs.length; i += 20) {
    await Promise.all(specs.slice(i, i + 20).map(([p, spec]) => adapters[p].launch(keys[p], spec)));
  }

  // The whole body is read; it is parsed (and counted) only where said, so the client's JSON parsing (the same
  // 400 kB for both) does not weigh in the server's figures.
  const list = async (url: string, query = '', parse = false) => {
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/compute${query}`, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`list answered ${res.status}`);
    const ms = performance.now() - t0;
    return { ms, count: parse ? (JSON.parse(text) as { data: unknown[] }).data.length : INSTANCES };
  };
  // The first list waits for the account's first rounds; then warm-up (JIT, pools).
  let first = await list(observed.url, '?refresh=true', true);
  for (let i = 0; first.count !== INSTANCES && i < 20; i++) first = await list(observed.url, '?refresh=true', true);
  if (first.count !== INSTANCES) throw new Error(`the fleet view lists ${first.count} of ${INSTANCES} instances`);
  for (let i = 0; i < 5; i++) await list(observed.url);

  const providerRequests = () => sims.runpod.control.requests().length + sims.vastai.control.requests().length + sims.lambda.control.requests().length;
  const clear = () => (['runpod', 'vastai', 'lambda'] as const).forEach((p) => sims[p].control.clearRequests());
  const sequential: number[] = [];
  let requests = 0;
  for (let i = 0; i < SAMPLES; i++) {
    clear();
    const { ms, count } = await list(observed.url, '', i % 10 === 0);
    if (count !== INSTANCES) throw new Error(`the fleet view listed ${count} instances`);
    sequential.push(ms);
    requests += providerRequests();
  }
  const sustained = async (url: string) => {
    clear();
    let lists = 0;
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < until) {
          await list(url);
          lists++;
        }
      }),
    );
    return { perSecond: lists / SECONDS, lists, requests: providerRequests() };
  };
  const sustainedObserved = await sustained(observed.url);
  const consolePage = await measureConsoleFleet(observed.url, apiKey, INSTANCES);

  const row = (name: string, xs: number[], reqs: number) =>
    `${name.padEnd(30)} p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms   provider requests per list ${(reqs / xs.length).toFixed(2)}`;
  process.stdout.write(
    [
      `GET /v1/compute, ${INSTANCES} instances over runpod, vastai, lambda (one account), ${SAMPLES} sequential lists`,
      row('fleet view', sequential, requests),
      `sustained, ${CONCURRENCY} concurrent clients for ${SECONDS}s:`,
      `  fleet view   ${sustainedObserved.perSecond.toFixed(1).padStart(7)} lists/s  (${sustainedObserved.lists} lists, ${sustainedObserved.requests} provider requests, observer rounds included)`,
      ...consoleFleetReport(consolePage),
      '',
    ].join('\n'),
  );

  observed.server.close();
  worker.shutdown();
  await running.catch(() => undefined);
  await Promise.allSettled([connection.close(), nativeConnection.close()]);
  await Promise.allSettled([env.teardown(), sims.close(), pool.end()]);
  await pg.stop();
  await rm(dir, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? JSON.stringify(err)}\n`);
  process.exit(1);
});

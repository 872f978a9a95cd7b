/**
 * `npm run bench:list`: GET /v1/compute for an account with 1,000 instances across the three providers,
 * served from the fleet view (what the observers last listed): p50/p99 of sequential lists, throughput with N
 * concurrent clients, and provider requests per list (counted at the simulators, the observers' own rounds
 * included). Then the console's fleet page with the same fleet in Chromium beside the same rows as static HTML
 * (`bench/console-page.ts`). Real parts: embedded Postgres, the Temporal dev server, the worker's activities, the
 * simulators, Debian's Chromium.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createPricingQueries } from '../src/db/queries/pricing';
import { createProviderKeyQueries } from '../src/db/queries/provider-keys';
import { createApp } from '../src/http/app';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import type { LaunchSpec, ProviderId } from '../src/providers/types';
import { PricingCache } from '../src/db/pricing-cache';
import { createProviderCredentials } from '../src/providers/provider-credentials';
import { temporalDataConverter } from '../src/workflow-clients/payload-codec';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { simulatorBaseUrls } from '../simulators';
import { buildConsole } from '../console/build';
import { consoleFleetReport, measureConsoleFleet } from './console-page';
import { listen, pct, runBench, startBench } from './harness';

const INSTANCES = Number(process.env.LIST_INSTANCES ?? 1000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function main(): Promise<void> {
  const stack = await startBench('list');
  const { pool } = await stack.database('bench', 20);
  const { address } = await stack.temporal();
  const sims = await stack.simulators({ bootDelayMs: 200, recordLimit: 1_000_000 });
  const adapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 10_000, logger: silentLogger });
  const vault = stack.vault;
  const credentials = createProviderCredentials(createProviderKeyQueries(pool), vault);
  const taskQueue = 'bench-list';
  const consoleBuild = await buildConsole(path.join(stack.dir, 'console'));
  // 1,000 live instances in one account: past the default live-instance limit (20).
  const limits = { ...DEFAULT_LIMITS, live_instances: 1_000_000 };
  const worker = await stack.worker(taskQueue, {
    pool,
    logger: silentLogger,
    adapters,
    vault,
    credentials,
    pricingKeys: {},
    limits,
  });
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
  const { apiKey } = await createAccountQueries(pool).insertAccountWithKey('bench', {
    startingCreditMicros: 1_000_000_000,
  });
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const keys = {
    runpod: sims.runpod.createKey(),
    vastai: sims.vastai.createKey(),
    lambda: sims.lambda.createKey(),
  } as const;
  for (const provider of ['runpod', 'vastai', 'lambda'] as const) {
    const res = await fetch(`${observed.url}/v1/settings/providers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ provider, api_key: keys[provider] }),
    });
    if (res.status !== 201) throw new Error(`connecting ${provider}: ${res.status} ${await res.text()}`);
  }
  await adapters.lambda.ensureSshKey(keys.lambda, {
    name: 'bench',
    publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchBenchBenchBenchBenchBenchBenchBench0 bench',
  });
  const specs: [ProviderId, LaunchSpec][] = Array.from({ length: INSTANCES }, (_, i) => {
    const provider = (['runpod', 'vastai', 'lambda'] as const)[i % 3]!;
    const spec: LaunchSpec =
      provider === 'lambda'
        ? {
            gpuType: 'h100-80gb-sxm',
            gpuCount: 8,
            name: `bench-${i}`,
            spot: false,
            region: 'us-east-1',
            sshKeyName: 'bench',
          }
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

  const providerRequests = () =>
    sims.runpod.control.requests().length +
    sims.vastai.control.requests().length +
    sims.lambda.control.requests().length;
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
    `${name.padEnd(30)} p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   ` +
    `p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms   ` +
    `provider requests per list ${(reqs / xs.length).toFixed(2)}`;
  process.stdout.write(
    [
      `GET /v1/compute, ${INSTANCES} instances over runpod, vastai, lambda (one account), ${SAMPLES} sequential lists`,
      row('fleet view', sequential, requests),
      `sustained, ${CONCURRENCY} concurrent clients for ${SECONDS}s:`,
      `  fleet view   ${sustainedObserved.perSecond.toFixed(1).padStart(7)} lists/s  ` +
        `(${sustainedObserved.lists} lists, ${sustainedObserved.requests} provider requests, observer rounds included)`,
      ...consoleFleetReport(consolePage),
      '',
    ].join('\n'),
  );

  observed.server.close();
  worker.shutdown();
  // The API's own client; the stack closes the rest (worker, dev server, simulators, Postgres, the folder).
  await connection.close();
}

runBench(main);

/**
 * `npm run bench:launch`: launch latency through the API (POST /v1/compute/launch → 201, i.e. update-with-start
 * on the real Temporal dev server, the worker's activities, Postgres) beside a direct adapter call to the same
 * simulator, in the same run; then sustained launches per second with N concurrent clients.
 *
 * The sequential launches are also split into phases (medians): the API's database calls for authentication
 * and for admission (everything the API reads before it calls Temporal), the update-with-start call minus
 * what the worker does inside it (= workflow start, task dispatch and the update's round trips), the create
 * at the provider, the worker's database calls (persist), and the rest (HTTP, parsing, answer). Measured by
 * timing wrappers around the API's pool, the Temporal client, the worker's adapters and the worker's pool:
 * no production code is instrumented.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { Client } from '@temporalio/client';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createPricingQueries } from '../src/db/queries/pricing';
import { createProviderKeyQueries } from '../src/db/queries/provider-keys';
import { createApp } from '../src/http/app';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { PricingCache } from '../src/db/pricing-cache';
import { createProviderCredentials } from '../src/providers/provider-credentials';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { simulatorBaseUrls } from '../simulators';
import { pct, runBench, startBench } from './harness';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

type Phase =
  | 'auth'
  | 'admission'
  | 'workflow start + update'
  | 'create at provider'
  | 'persist (worker DB)'
  | 'rest (HTTP, parsing, answer)'
  | 'observer DB meanwhile (overlaps)';
const PHASES: Phase[] = [
  'auth',
  'admission',
  'workflow start + update',
  'create at provider',
  'persist (worker DB)',
  'rest (HTTP, parsing, answer)',
  'observer DB meanwhile (overlaps)',
];
/**
 * The launch's own worker statements: intent row, SSH key, create counter, provider key, created row,
 * boot deadline.
 */
const LAUNCH_SQL = new RegExp(
  [
    'INSERT INTO instances',
    String.raw`UPDATE instances SET updated_at = now\(\) WHERE id`,
    'FROM ssh_keys',
    'create_attempts',
    'FROM provider_keys',
    'SET provider_instance_id',
    'started_at - created_at',
  ].join('|'),
);
/** The launch being measured (sequential part only): what each wrapper adds its time to. */
let current: { phases: Map<Phase, number>; inTemporal: boolean } | undefined;
const add = (phase: Phase, ms: number) => current?.phases.set(phase, (current.phases.get(phase) ?? 0) + ms);

/** `target` with every method timed: `phaseOf` names where the time goes (from the method's arguments). */
function timedMethods<T extends object>(target: T, phaseOf: (args: unknown[]) => Phase | undefined): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value = Reflect.get(obj, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const phase = phaseOf(args);
        const t0 = performance.now();
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        if (phase && result instanceof Promise) return result.finally(() => add(phase, performance.now() - t0));
        return result;
      };
    },
  });
}
const sqlOf = (args: unknown[]) => String((args[0] as { sql?: unknown } | undefined)?.sql ?? '');

/** A `/proc/…/stat` file: the name, the parent's pid, utime + stime in ms (clock ticks of 10 ms, CLK_TCK 100). */
function readStat(file: string): { ppid: number; name: string; ms: number } {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    ppid: Number(fields[1]),
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    ms: (Number(fields[11]) + Number(fields[12])) * 10,
  };
}

/**
 * CPU time (ms) so far of this process and of every process it started, by name: the Temporal dev server,
 * Postgres (its backends are the embedded server's children), this node process (API, worker, simulators,
 * clients). Read from /proc (Linux); utime + stime in clock ticks of 10 ms (CLK_TCK 100).
 */
function cpuMsByProcess(): Map<string, number> {
  const stats = new Map<number, { ppid: number; name: string; ms: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.set(Number(entry), readStat(`/proc/${entry}/stat`));
    } catch {
      // ended meanwhile
    }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, st] of stats) {
      if (!mine.has(pid) && mine.has(st.ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  const byName = new Map<string, number>();
  for (const pid of mine) {
    const st = stats.get(pid)!;
    const name =
      pid === process.pid
        ? 'node (API, worker, simulators, clients)'
        : st.name.startsWith('postgres')
          ? 'postgres'
          : st.name.startsWith('temporal')
            ? 'temporal dev server'
            : st.name;
    byName.set(name, (byName.get(name) ?? 0) + st.ms);
  }
  return byName;
}

/**
 * CPU time (ms) so far of each thread of this process: `main` (API, activities, simulators, clients) and the
 * others by name and id. Node 20 names its own threads (the workflow thread, V8's and libuv's helpers) all
 * `node`; the workflow thread is the busiest of those. The worker's Rust core runs in `tokio-runtime-w`.
 */
function cpuMsByThread(): Map<string, number> {
  const byThread = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const { name, ms } = readStat(`/proc/self/task/${tid}/stat`);
      byThread.set(Number(tid) === process.pid ? 'main' : `${name}#${tid}`, ms);
    } catch {
      // ended meanwhile
    }
  }
  return byThread;
}

/** History events by type over `histories`, divided by `per`, as `TYPE n.n` (the types given, in order). */
async function eventsPer(
  histories: Promise<{ events?: object[] | null }>[],
  per: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const history of await Promise.all(histories)) {
    for (const e of history.events ?? []) {
      // The event's type is the one `…EventAttributes` field it carries.
      const [field] = Object.entries(e).find(([k, v]) => k.endsWith('EventAttributes') && v) ?? ['unknown'];
      const type = field.replace(/EventAttributes$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      counts.set(type, (counts.get(type) ?? 0) + 1 / per);
    }
  }
  return counts;
}

/**
 * What one launch costs Temporal, from the histories (load-independent, unlike the timings): the events of the
 * sustained phase's launch workflows (a sample, each from start to where it waits after the boot), and the
 * events of the account's observer (every run of it) over all launches of the bench.
 */
async function temporalCostPerLaunch(client: Client, allLaunches: number): Promise<string[]> {
  // The last launches boot (the simulator's 1 s) and are marked running: let them settle first.
  await new Promise((r) => setTimeout(r, 6000));
  const sample: string[] = [];
  // The account's other workflows that a launch wakes: its observer and its spend workflow (every run of each).
  const others = new Map<string, string[]>([
    ['observeProviderInstances', []],
    ['balanceDepletion', []],
  ]);
  for await (const w of client.workflow.list()) {
    if (others.has(w.type)) others.get(w.type)!.push(`${w.workflowId}/${w.runId}`);
    else if (w.type === 'launchInstance' && sample.length < 30) sample.push(w.workflowId);
  }
  const launches = await eventsPer(
    sample.map((id) => client.workflow.getHandle(id).fetchHistory()),
    sample.length,
  );
  const perLaunch = (runs: string[]) =>
    eventsPer(
      runs.map((ref) => {
        const [workflowId, runId] = ref.split('/');
        return client.workflow.getHandle(workflowId!, runId).fetchHistory();
      }),
      allLaunches,
    );
  const observer = await perLaunch(others.get('observeProviderInstances')!);
  const spend = await perLaunch(others.get('balanceDepletion')!);
  const show = (counts: Map<string, number>) =>
    [...counts.entries()]
      .filter(([, n]) => n >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([type, n]) => `${type.toLowerCase()} ${n.toFixed(1)}`)
      .join(', ');
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0).toFixed(1);
  return [
    `Temporal per launch (history events; workflow tasks = workflow_task_completed):`,
    `  launch workflow (${sample.length} of the latest, until it waits after the boot): ` +
      `${total(launches)} events: ${show(launches)}`,
    `  observer (${others.get('observeProviderInstances')!.length} runs over ${allLaunches} launches): ` +
      `${total(observer)} events: ${show(observer)}`,
    `  spend workflow (${others.get('balanceDepletion')!.length} runs over ${allLaunches} launches): ` +
      `${total(spend)} events: ${show(spend)}`,
  ];
}

async function main(): Promise<void> {
  const stack = await startBench('launch');
  const { pool } = await stack.database('bench', 20);
  const { client } = await stack.temporal();
  const sims = await stack.simulators({ bootDelayMs: 1000 });
  const adapters = createProviderAdapters({
    ...simulatorBaseUrls(sims),
    timeoutMs: 5000,
    logger: silentLogger,
  });
  const vault = stack.vault;
  const taskQueue = 'bench-launch';
  // The worker's own adapters and pool, timed (the direct calls below use the untimed adapters).
  const workerAdapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 5000, logger: silentLogger });
  workerAdapters.runpod = timedMethods(workerAdapters.runpod, () => 'create at provider');
  // The observer of earlier launches writes meanwhile (same pool): its statements are counted apart.
  const workerPool = timedMethods(pool, (args) =>
    current?.inTemporal
      ? LAUNCH_SQL.test(sqlOf(args))
        ? 'persist (worker DB)'
        : 'observer DB meanwhile (overlaps)'
      : undefined,
  );
  await stack.worker(taskQueue, {
    pool: workerPool,
    logger: silentLogger,
    adapters: workerAdapters,
    vault,
    credentials: createProviderCredentials(createProviderKeyQueries(workerPool), vault),
    pricingKeys: {},
    // Every launch of the run stays live in one account: past the default live-instance limit (20).
    limits: { ...DEFAULT_LIMITS, live_instances: 1_000_000 },
    // As src/main-worker.ts gives it: a started instance wakes the account's spend workflow (its depletion moment).
    temporal: { client, taskQueue },
  });
  // The update-with-start call: everything from the API's call to Temporal until the update's answer.
  const updateWithStart = client.workflow.executeUpdateWithStart.bind(client.workflow);
  client.workflow.executeUpdateWithStart = (async (...args: Parameters<typeof updateWithStart>) => {
    if (current) current.inTemporal = true;
    const t0 = performance.now();
    try {
      return await updateWithStart(...args);
    } finally {
      add('workflow start + update', performance.now() - t0);
      if (current) current.inTemporal = false;
    }
  }) as typeof updateWithStart;
  const apiPool = timedMethods(pool, (args) =>
    current?.inTemporal ? undefined : /service_keys/.test(sqlOf(args)) ? 'auth' : 'admission',
  );
  const app = createApp({
    pool: apiPool,
    logger: silentLogger,
    temporal: { client, taskQueue },
    adapters,
    vault,
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
    launchTiming: { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 },
    // Launches are what is measured, not a client's request limits (the defaults would answer 429 past ~12/s).
    rateLimit: { burst: 100_000, perMinute: 1_000_000 },
    // The API's admission counts live instances too (the worker's limit above is the same one).
    limits: { ...DEFAULT_LIMITS, live_instances: 1_000_000 },
  });
  const { url: api } = await stack.listen(app);

  const { apiKey } = await createAccountQueries(pool).insertAccountWithKey('bench', {
    startingCreditMicros: 1_000_000_000,
  });
  const simKey = sims.runpod.createKey();
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  await fetch(`${api}/v1/settings/providers`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ provider: 'runpod', api_key: simKey }),
  });
  const body = JSON.stringify({ provider: 'runpod', gpu_type: 'rtx-a6000' });
  let launchCount = 0;
  // The clients are a load generator: plain `http.request` on kept-alive sockets, like wrk, not `fetch` (undici's
  // streams cost about as much CPU per request as some of the service's own steps, on the same 2 cores).
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const launchUrl = new URL(`${api}/v1/compute/launch`);
  const postLaunch = () =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        launchUrl,
        { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const viaApi = async () => {
    const t0 = performance.now();
    const res = await postLaunch();
    if (res.status !== 201) throw new Error(`launch answered ${res.status}: ${res.text}`);
    launchCount++;
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
  const phases = new Map<Phase, number[]>(PHASES.map((p) => [p, []]));
  for (let i = 0; i < SAMPLES; i++) {
    directMs.push(await direct());
    current = { phases: new Map(), inTemporal: false };
    const total = await viaApi();
    const measured = current.phases;
    current = undefined;
    apiMs.push(total);
    // The worker's time is inside the update-with-start call: report the call without it.
    const worker = (measured.get('create at provider') ?? 0) + (measured.get('persist (worker DB)') ?? 0);
    measured.set('workflow start + update', (measured.get('workflow start + update') ?? 0) - worker);
    const known = [...measured.entries()]
      .filter(([p]) => p !== 'observer DB meanwhile (overlaps)')
      .reduce((a, [, ms]) => a + ms, 0);
    measured.set('rest (HTTP, parsing, answer)', total - known);
    for (const p of PHASES) phases.get(p)!.push(measured.get(p) ?? 0);
  }
  let launched = 0;
  const cpuBefore = cpuMsByProcess();
  const threadsBefore = cpuMsByThread();
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        await viaApi();
        launched++;
      }
    }),
  );
  const cpuAfter = cpuMsByProcess();
  const threadsAfter = cpuMsByThread();
  // Grouped by name, except `main` and the busiest other `node` thread (the workflow thread).
  const threadDeltas = [...threadsAfter.entries()].map(
    ([t, ms]) => [t, (ms - (threadsBefore.get(t) ?? 0)) / launched] as const,
  );
  const busiestNode = threadDeltas.filter(([t]) => t.startsWith('node#')).sort((a, b) => b[1] - a[1])[0]?.[0];
  const cpuPerThread = new Map<string, number>();
  for (const [t, ms] of threadDeltas) {
    const group =
      t === 'main'
        ? 'main'
        : t === busiestNode
          ? 'workflow thread (busiest other node thread)'
          : `other ${t.slice(0, t.indexOf('#'))} threads`;
    cpuPerThread.set(group, (cpuPerThread.get(group) ?? 0) + ms);
  }
  const cpuPerLaunch = [...cpuAfter.entries()]
    .map(([name, ms]) => [name, (ms - (cpuBefore.get(name) ?? 0)) / launched] as const)
    .filter(([, ms]) => ms >= 0.5)
    .sort((a, b) => b[1] - a[1]);
  const cpuTotal = cpuPerLaunch.reduce((a, [, ms]) => a + ms, 0);
  const temporalCost = await temporalCostPerLaunch(client, launchCount);
  const row = (name: string, xs: number[]) =>
    `${name.padEnd(34)} p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms`;
  process.stdout.write(
    [
      `launch latency, ${SAMPLES} sequential launches each (runpod simulator, alternating)`,
      row('direct adapter call (create pod)', directMs),
      row('API POST /v1/compute/launch → 201', apiMs),
      `overhead of the API (p50): ${(pct(apiMs, 50) - pct(directMs, 50)).toFixed(1)} ms`,
      'phases of one launch (p50 each; the p50s need not add up to the total):',
      ...PHASES.map((p) => `  ${p.padEnd(32)} ${pct(phases.get(p)!, 50).toFixed(1).padStart(6)} ms`),
      `sustained: ${(launched / SECONDS).toFixed(1)} launches/s with ${CONCURRENCY} concurrent clients ` +
        `over ${SECONDS}s (${launched} launches, each a workflow)`,
      `CPU per launch in the sustained phase: ${cpuTotal.toFixed(1)} ms ` +
        `(${cpuPerLaunch.map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ')})`,
      `  of it in this node process, by thread: ${[...cpuPerThread.entries()]
        .filter(([, ms]) => ms >= 0.1)
        .sort((a, b) => b[1] - a[1])
        .map(([t, ms]) => `${t} ${ms.toFixed(1)}`)
        .join(', ')}`,
      ...temporalCost,
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
      '',
    ].join('\n'),
  );

  agent.destroy();
}

runBench(main);

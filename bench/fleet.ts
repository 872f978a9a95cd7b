/**
 * `npm run bench:fleet`: what a fleet of managed instances costs to watch (one observer workflow per (account,
 * provider) listing its instances).
 *
 * For each size N in FLEET_SIZES: N instances launched through the API (POST /v1/compute/launch,
 * the real launch workflow) over FLEET_ACCOUNTS accounts and the three simulated providers, half of the Vast
 * instances spot; once all run, a window of FLEET_WINDOW during which a few spot instances are preempted at the
 * simulator. Counted over the window: requests at the simulators, the Temporal dev server's `action` counter,
 * the CPU seconds of the worker process (src/main-worker.ts, a child process: /proc/<pid>/stat) and of the
 * Temporal server; and the time from each preemption to its `spot.preempted` event row.
 *
 * Time is compressed by FLEET_TIME_SCALE: every interval (observation, spot observation, metering, boot polls)
 * is divided by it, so the window stands for FLEET_TIME_SCALE times as much time at real scale, and counts are
 * reported per real-scale instance-hour and account-provider-minute. Real PostgreSQL (embedded), the real
 * Temporal dev server, the real adapters against the simulators.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import sshpk from 'sshpk';
import { z } from 'zod';
import { parseDurationMs } from '../src/config';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createPricingQueries } from '../src/db/queries/pricing';
import type { Pool } from '../src/db/pool';
import { sql } from '../src/db/sql';
import { KeyVault } from '../src/domain/key-vault';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { createApp } from '../src/http/app';
import type { RunningPostgres } from '../src/local/embedded-postgres';
import { findOrBuildTool, TEMPORAL_CLI } from '../src/local/tool-binaries';
import { createLogger, silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import type { ProviderId } from '../src/providers/types';
import { PricingCache } from '../src/db/pricing-cache';
import { devServerArgs } from '../src/local/dev-server';
import { simulatorBaseUrls, type Simulators } from '../simulators';
import type { LaunchTiming } from '../workflows/contracts/launch';
import { pct, randomPort, runBench, startBench } from './harness';

const PROVIDERS: ProviderId[] = ['runpod', 'vastai', 'lambda'];

const SIZES = (process.env.FLEET_SIZES ?? '100,300,1000').split(',').map((s) => Number(s.trim()));
const WINDOW_MS = parseDurationMs(process.env.FLEET_WINDOW ?? '60s');
const SCALE = Number(process.env.FLEET_TIME_SCALE ?? 10);
const ACCOUNTS = Number(process.env.FLEET_ACCOUNTS ?? 4);
const PREEMPTIONS = Number(process.env.FLEET_PREEMPTIONS ?? 8);
const LAUNCH_CONCURRENCY = Number(process.env.FLEET_LAUNCH_CONCURRENCY ?? 16);
/** Real-scale intervals, read like the service reads them (same variables, same defaults). */
const REAL = {
  observeMs: parseDurationMs(process.env.INSTANCE_OBSERVE_INTERVAL ?? '60s'),
  spotObserveMs: parseDurationMs(process.env.INSTANCE_OBSERVE_SPOT_INTERVAL ?? '10s'),
  meterMs: parseDurationMs(process.env.METER_INTERVAL ?? '1h'),
  bootPollMaxMs: 3_000,
};
const scaled = (ms: number) => Math.max(1, Math.round(ms / SCALE));
const TIMING = {
  pollIntervalMs: scaled(REAL.observeMs),
  spotPollIntervalMs: scaled(REAL.spotObserveMs),
  meterIntervalMs: scaled(REAL.meterMs),
  bootPollMaxMs: scaled(REAL.bootPollMaxMs),
} satisfies LaunchTiming;
/** Compact duration for the worker's environment (the service's own pattern: whole s, m or h). */
const durationEnv = (ms: number) => `${Math.max(1, Math.round(ms / 1000))}s`;

const REPO_ROOT = path.resolve(__dirname, '..');
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const log = (line: string) => process.stderr.write(`[fleet ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** User + system CPU seconds a process has used so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5) (utime, stime); `fields` starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Every child process running now (the Temporal server, the current worker): killed if the bench is interrupted. */
const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The dev server as our own child, so its CPU can be read and its metrics scraped. */
async function startTemporal(
  dir: string,
): Promise<{ address: string; metricsUrl: string; child: ChildProcess; stop(): Promise<void> }> {
  const cli = await findOrBuildTool(TEMPORAL_CLI);
  if (!cli) throw new Error('bench:fleet needs the Temporal CLI (npm run tools:install)');
  for (let attempt = 0; ; attempt++) {
    const port = randomPort();
    const metricsPort = port + 1;
    const out = openSync(path.join(dir, `temporal-${attempt}.log`), 'a');
    const child = track(
      spawn(
        cli,
        [
          'server',
          'start-dev',
          '--headless',
          '--ip',
          '127.0.0.1',
          '--port',
          String(port),
          '--metrics-port',
          String(metricsPort),
          '--log-level',
          'error',
          ...devServerArgs(),
        ],
        { stdio: ['ignore', out, out] },
      ),
    );
    closeSync(out);
    const address = `127.0.0.1:${port}`;
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    try {
      await waitFor(
        'the Temporal dev server',
        async () => {
          if (child.exitCode !== null) throw Object.assign(new Error('exited'), { exited: true });
          const res = await fetch(metricsUrl);
          if (!res.ok) return undefined;
          const connection = await Connection.connect({ address, connectTimeout: 1000 });
          try {
            await connection.workflowService.getSystemInfo({});
          } finally {
            await connection.close();
          }
          return true;
        },
        60_000,
      );
      return { address, metricsUrl, child, stop: () => stopChild(child) };
    } catch (err) {
      await stopChild(child);
      if (attempt >= 3) throw err;
    }
  }
}

interface ServerCounters {
  /** The server's `action` counter by action type. */
  actions: Map<string, number>;
  /** Workflow tasks completed (frontend RespondWorkflowTaskCompleted requests). */
  workflowTasks: number;
  /** chargeInstance activities completed: meter ticks, plus the final charge of an instance that ended. */
  charges: number;
}

/** The dev server's counters for one namespace, read from its Prometheus endpoint. */
async function scrapeServer(metricsUrl: string, namespace = 'default'): Promise<ServerCounters> {
  const text = await (await fetch(metricsUrl)).text();
  const actions = new Map<string, number>();
  let workflowTasks = 0;
  let charges = 0;
  for (const line of text.split('\n')) {
    const brace = line.indexOf('{');
    if (brace < 0 || line.startsWith('#')) continue;
    const name = line.slice(0, brace);
    const labels = line.slice(brace + 1, line.lastIndexOf('}'));
    if (!labels.includes(`namespace="${namespace}"`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (name === 'action') {
      const type = /action_type="([^"]*)"/.exec(labels)?.[1] ?? '?';
      actions.set(type, (actions.get(type) ?? 0) + value);
    } else if (
      name === 'service_requests' &&
      labels.includes('operation="RespondWorkflowTaskCompleted"') &&
      labels.includes('service_name="frontend"')
    ) {
      workflowTasks += value;
    } else if (name === 'activity_end_to_end_latency_count' && labels.includes('activityType="chargeInstance"')) {
      charges += value;
    }
  }
  return { actions, workflowTasks, charges };
}

function diffCounts(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out.set(k, v - (before.get(k) ?? 0));
  return out;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const top = (m: Map<string, number>, n = 6) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

function ed25519Key(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const key = sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'pem');
  key.comment = 'fleet@bench';
  return key.toString('ssh');
}

interface Infra {
  dir: string;
  pg: RunningPostgres;
  dbUrl: string;
  pool: Pool;
  temporal: Awaited<ReturnType<typeof startTemporal>>;
  client: Client;
  connection: Connection;
  sims: Simulators;
  vault: KeyVault;
  masterKey: Buffer;
}

interface PhaseResult {
  n: number;
  launchSeconds: number;
  spot: number;
  instanceHours: number;
  accountProviderMinutes: number;
  requests: Map<string, number>;
  actions: Map<string, number>;
  workflowTasks: number;
  /** Meter ticks (chargeInstance activities) in the window. */
  meterTicks: number;
  workerCpu: number;
  temporalCpu: number;
  /** The machine's 1-minute load average at the end of the window (it is shared). */
  loadAverage: number;
  windowMs: number;
  /** Per preemption: to the event row, to the workflow noticing (ended_at), and from noticing to the row. */
  preemptions: { measuredMs: number; detectMs: number; recordMs: number }[];
  preemptionsMissed: number;
}

/**
 * The meter probe: a short window in which metering is all that happens (observation intervals of a day, a
 * meter interval of a second or two), giving what one meter tick costs. A fleet window is far
 * shorter than a compressed meter interval and all its instances were launched within a few minutes, so its
 * ticks fall in it all at once or (usually) not at all; the fleet figures therefore count the ticks that fell in
 * the window out and the expected number (one per instance per real METER_INTERVAL) in, at the probe's cost.
 */
interface Probe {
  meterMs: number;
  windowMs: number;
}
const PROBE: Probe = { meterMs: 2_000, windowMs: 20_000 };

async function runPhase(infra: Infra, n: number, probe?: Probe): Promise<PhaseResult> {
  const { pool, sims, client } = infra;
  const taskQueue = probe ? 'fleet-meter-probe' : `fleet-${n}`;
  const timing: typeof TIMING = probe
    ? { ...TIMING, pollIntervalMs: 86_400_000, meterIntervalMs: probe.meterMs }
    : TIMING;
  const windowLength = probe?.windowMs ?? WINDOW_MS;
  const label = probe ? `meter probe (${n} instances, meter ${probe.meterMs} ms)` : `N=${n}`;
  log(`${label}: starting the worker (task queue ${taskQueue})`);
  const workerLog = path.join(infra.dir, `worker-${n}${probe ? '-probe' : ''}.log`);
  const out = openSync(workerLog, 'a');
  const worker = track(
    spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main-worker.ts')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        DATABASE_URL: infra.dbUrl,
        DATABASE_POOL_SIZE: '20',
        TEMPORAL_ADDRESS: infra.temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        MASTER_ENCRYPTION_KEY: infra.masterKey.toString('base64'),
        MASTER_ENCRYPTION_KEY_ID: 'k1',
        ...Object.fromEntries(
          Object.entries(simulatorBaseUrls(sims)).map(([k, v]) => [
            k.replace('BaseUrl', '').toUpperCase() + '_API_BASE_URL',
            v,
          ]),
        ),
        INSTANCE_OBSERVE_INTERVAL: durationEnv(TIMING.pollIntervalMs),
        INSTANCE_OBSERVE_SPOT_INTERVAL: durationEnv(TIMING.spotPollIntervalMs),
        METER_INTERVAL: durationEnv(TIMING.meterIntervalMs),
        // Nothing else of the worker's own may talk to the providers or tick during the window.
        RECONCILE_INTERVAL: '1000h',
        PRICING_REFRESH_INTERVAL: '1000h',
        ALERT_MONITOR_TICK: '1000h',
        WEBHOOK_DISPATCH_TICK: '1000h',
        // FLEET_SIZES/FLEET_ACCOUNTS instances per account: past the default live-instance limit (20).
        LIMIT_LIVE_INSTANCES: '1000000',
      },
    }),
  );
  closeSync(out);
  const workerExited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
  let server: Server | undefined;
  try {
    await waitFor(
      'the worker to poll',
      async () => {
        if (worker.exitCode !== null) throw new Error(`the worker exited (${worker.exitCode}); see ${workerLog}`);
        return (await readFile(workerLog, 'utf8')).includes('"worker polling"') ? true : undefined;
      },
      120_000,
    );

    // The API in this process, handing the compressed timing to every launch it starts.
    const app = createApp({
      pool,
      // The API's admission counts live instances too: the same limit as the worker's LIMIT_LIVE_INSTANCES.
      limits: { ...DEFAULT_LIMITS, live_instances: 1_000_000 },
      // Errors only: a 500 prints its cause.
      logger: createLogger('error'),
      temporal: { client, taskQueue },
      adapters: createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 10_000, logger: silentLogger }),
      vault: infra.vault,
      pricing: new PricingCache(createPricingQueries(pool), silentLogger),
      rateLimit: { burst: 1_000_000, perMinute: 1_000_000 },
      launchTiming: timing,
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server!.once('listening', r));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // Accounts, each with its own key at every provider and a default SSH key (Lambda needs one).
    const accounts: { id: string; headers: Record<string, string>; simKeys: Record<ProviderId, string> }[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const { account, apiKey } = await createAccountQueries(pool).insertAccountWithKey(
        `fleet-${n}${probe ? '-probe' : ''}-${a}`,
        { startingCreditMicros: 1_000_000_000_000 },
      );
      const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
      const simKeys = {
        runpod: sims.runpod.createKey(),
        vastai: sims.vastai.createKey(),
        lambda: sims.lambda.createKey(),
      };
      for (const provider of PROVIDERS) {
        const res = await fetch(`${api}/v1/settings/providers`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ provider, api_key: simKeys[provider] }),
        });
        if (!res.ok) throw new Error(`connecting ${provider} answered ${res.status}: ${await res.text()}`);
      }
      const res = await fetch(`${api}/v1/ssh-keys`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'fleet', public_key: ed25519Key() }),
      });
      if (res.status !== 201) throw new Error(`adding an SSH key answered ${res.status}: ${await res.text()}`);
      accounts.push({ id: account.id, headers, simKeys });
    }
    const accountIds = accounts.map((a) => a.id);

    // Launch: instance i goes to account i % A and, round-robin per account, to a provider;
    // every other Vast one is spot.
    log(`${label}: launching ${n} instances through the API (${LAUNCH_CONCURRENCY} concurrent)`);
    const launchStarted = performance.now();
    const launchCpu = [cpuSeconds(worker.pid!), cpuSeconds(infra.temporal.child.pid!), process.cpuUsage()] as const;
    let next = 0;
    let launchFailure: unknown = null;
    // allSettled, and every lane stops at the first failure: no launch may still be in flight at teardown.
    await Promise.allSettled(
      Array.from({ length: LAUNCH_CONCURRENCY }, async () => {
        for (let i = next++; i < n && launchFailure === null; i = next++) {
          const account = accounts[i % ACCOUNTS]!;
          const turn = Math.floor(i / ACCOUNTS);
          const provider = PROVIDERS[turn % PROVIDERS.length]!;
          const spot = !probe && provider === 'vastai' && Math.floor(turn / PROVIDERS.length) % 2 === 0;
          const body =
            provider === 'lambda'
              ? { provider, gpu_type: 'h100-80gb-sxm', region: 'us-east-1' }
              : { provider, gpu_type: 'rtx-a6000', spot };
          for (let attempt = 0; ; attempt++) {
            const res = await fetch(`${api}/v1/compute/launch`, {
              method: 'POST',
              headers: { ...account.headers, 'Idempotency-Key': `fleet-${i}` },
              body: JSON.stringify(body),
            });
            const text = await res.text();
            if (res.status === 201) break;
            // 503: the launch is still waiting for the provider; the same key resumes it.
            if (res.status !== 503 || attempt >= 5) {
              launchFailure ??= new Error(`launch ${i} (${provider}) answered ${res.status}: ${text}`);
              return;
            }
          }
        }
      }),
    );
    if (launchFailure) throw launchFailure;
    const launchSeconds = (performance.now() - launchStarted) / 1000;
    const counts = z.object({ running: z.number(), ended: z.number() });
    await waitFor(
      `all ${n} instances running`,
      async () => {
        const c = await pool.one(sql.type(counts)`
          SELECT count(*) FILTER (WHERE status = 'running')::int AS running,
                 count(*) FILTER (WHERE status IN ('failed', 'terminated', 'stopped'))::int AS ended
          FROM instances WHERE account_id = ANY(${sql.array(accountIds, 'text')})`);
        if (c.ended > 0) throw new Error(`${c.ended} instances ended before the window`);
        return c.running === n ? true : undefined;
      },
      60_000 + n * 200,
      500,
    );
    const allRunning = (performance.now() - launchStarted) / 1000;
    const benchCpu = process.cpuUsage(launchCpu[2]);
    log(
      `${label}: launched in ${fmt(launchSeconds)} s (${fmt(n / launchSeconds)}/s), ` +
        `all running after ${fmt(allRunning)} s; CPU meanwhile: ` +
        `worker ${fmt(cpuSeconds(worker.pid!) - launchCpu[0])} s, ` +
        `Temporal ${fmt(cpuSeconds(infra.temporal.child.pid!) - launchCpu[1])} s, ` +
        `this process (API, simulators, Postgres client) ${fmt((benchCpu.user + benchCpu.system) / 1e6)} s; ` +
        `load average ${fmt(os.loadavg()[0]!)}`,
    );
    // One steady observation interval first: whatever watched the boots settles into its steady pace.
    await sleep(Math.min(timing.pollIntervalMs, 2 * timing.meterIntervalMs));

    const spotRows = await pool.any(sql.type(z.object({ account_id: z.string(), provider_instance_id: z.string() }))`
      SELECT account_id, provider_instance_id FROM instances
      WHERE spot AND status = 'running' AND account_id = ANY(${sql.array(accountIds, 'text')})`);
    const victims = [...spotRows].sort(() => Math.random() - 0.5).slice(0, probe ? 0 : PREEMPTIONS);
    // Preempted within the window, early enough to be noticed before it closes.
    const latestOffset = Math.max(1000, windowLength - 2 * TIMING.pollIntervalMs - 2000);
    const offsets = victims.map(() => Math.floor(500 + Math.random() * (latestOffset - 500))).sort((a, b) => a - b);

    // The window.
    for (const s of [sims.runpod, sims.vastai, sims.lambda]) s.control.clearRequests();
    const serverBefore = await scrapeServer(infra.temporal.metricsUrl);
    const workerCpuBefore = cpuSeconds(worker.pid!);
    const temporalCpuBefore = cpuSeconds(infra.temporal.child.pid!);
    const windowStart = Date.now();
    const preempted: { pid: string; at: number }[] = [];
    const preempting = (async () => {
      for (let k = 0; k < victims.length; k++) {
        await sleep(Math.max(0, windowStart + offsets[k]! - Date.now()));
        const v = victims[k]!;
        const account = accounts.find((a) => a.id === v.account_id)!;
        preempted.push({ pid: v.provider_instance_id, at: Date.now() });
        sims.vastai.control.preempt(account.simKeys.vastai, v.provider_instance_id);
      }
    })();
    await sleep(windowLength);
    await preempting;
    const windowMs = Date.now() - windowStart;
    const loadAverage = os.loadavg()[0]!;
    const serverAfter = await scrapeServer(infra.temporal.metricsUrl);
    const workerCpu = cpuSeconds(worker.pid!) - workerCpuBefore;
    const temporalCpu = cpuSeconds(infra.temporal.child.pid!) - temporalCpuBefore;
    const requests = new Map<string, number>();
    for (const provider of PROVIDERS) {
      for (const r of sims[provider].control.requests()) {
        if (r.at > windowStart + windowMs) continue;
        const label = `${provider} ${r.method} ${r.route ?? r.path}`;
        requests.set(label, (requests.get(label) ?? 0) + 1);
      }
      sims[provider].control.clearRequests();
    }

    // Preemption → its spot.preempted row (the row's commit time), waiting past the window for stragglers. The
    // instance's ended_at is the moment its workflow noticed: before it, the wait for the next observation (an
    // interval, compressed); after it, charging, terminating and recording (real time, not compressed).
    const eventRow = z.object({ pid: z.string(), event_ms: z.number(), ended_ms: z.number().nullable() });
    const seen = new Map<string, { eventMs: number; endedMs: number | null }>();
    await waitFor(
      'the spot.preempted events',
      async () => {
        const rows = await pool.any(sql.type(eventRow)`
          SELECT e.data->>'instance_id' AS pid, (extract(epoch FROM e.created_at) * 1000)::float8 AS event_ms,
                 (extract(epoch FROM i.ended_at) * 1000)::float8 AS ended_ms
          FROM events e
          JOIN instances i ON i.account_id = e.account_id AND i.provider_instance_id = e.data->>'instance_id'
          WHERE e.type = 'spot.preempted' AND e.account_id = ANY(${sql.array(accountIds, 'text')})`);
        for (const r of rows) seen.set(r.pid, { eventMs: r.event_ms, endedMs: r.ended_ms });
        return preempted.every((p) => seen.has(p.pid)) ? true : undefined;
      },
      Math.max(30_000, 3 * TIMING.pollIntervalMs),
      200,
    ).catch(() => undefined);
    const preemptions = preempted.flatMap((p) => {
      const s = seen.get(p.pid);
      if (!s) return [];
      const noticedMs = Math.min(s.eventMs, Math.max(p.at, s.endedMs ?? s.eventMs));
      return [{ measuredMs: s.eventMs - p.at, detectMs: noticedMs - p.at, recordMs: s.eventMs - noticedMs }];
    });

    // Real-scale exposure: every instance ran the whole window, except the preempted ones after their preemption.
    const lostMs = preempted.reduce((sum, p) => sum + (windowStart + windowMs - p.at), 0);
    const instanceHours = ((n * windowMs - lostMs) * SCALE) / 3_600_000;
    const accountProviderMinutes = (ACCOUNTS * PROVIDERS.length * windowMs * SCALE) / 60_000;
    return {
      n,
      launchSeconds,
      spot: spotRows.length,
      instanceHours,
      accountProviderMinutes,
      requests,
      actions: diffCounts(serverAfter.actions, serverBefore.actions),
      workflowTasks: serverAfter.workflowTasks - serverBefore.workflowTasks,
      // A preemption's own final charge is part of the preemption, not a meter tick.
      meterTicks: Math.max(0, serverAfter.charges - serverBefore.charges - preemptions.length),
      workerCpu,
      temporalCpu,
      loadAverage,
      windowMs,
      preemptions,
      preemptionsMissed: preempted.length - preemptions.length,
    };
  } finally {
    // Nothing of this phase may run on into the next: every open workflow is terminated, then the worker stops.
    log(`${label}: tearing down`);
    server?.close();
    await terminateAllWorkflows(client).catch((err: unknown) =>
      log(`terminating workflows failed: ${(err as Error).message}`),
    );
    await stopChild(worker);
    await workerExited;
  }
}

async function terminateAllWorkflows(client: Client): Promise<void> {
  await waitFor(
    'no open workflows',
    async () => {
      const ids: string[] = [];
      for await (const w of client.workflow.list({ query: 'ExecutionStatus="Running"' })) ids.push(w.workflowId);
      if (ids.length === 0) return true;
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          for (let i = next++; i < ids.length; i = next++) {
            await client.workflow
              .getHandle(ids[i]!)
              .terminate('bench:fleet phase over')
              .catch(() => undefined); // already closed
          }
        }),
      );
      return undefined;
    },
    300_000,
    500,
  );
}

function describe(r: PhaseResult): string[] {
  const req = total(r.requests);
  const act = total(r.actions);
  const hours = r.instanceHours;
  /** The median of one of the preemption timings, in seconds with two decimals. */
  const p50s = (ms: (p: PhaseResult['preemptions'][number]) => number) => fmt(pct(r.preemptions.map(ms), 50) / 1000, 2);
  const missed = r.preemptionsMissed ? ` (${r.preemptionsMissed} more never recorded)` : '';
  return [
    `N=${r.n}: ${r.n} instances (${r.spot} spot) over ${ACCOUNTS} accounts × ${PROVIDERS.length} providers; ` +
      `launched through the API in ${fmt(r.launchSeconds)} s (${fmt(r.n / r.launchSeconds)}/s)`,
    `  window: ${fmt(r.windowMs / 1000, 0)} s = ${fmt((r.windowMs * SCALE) / 60_000)} min at real scale, ` +
      `${fmt(hours, 2)} real-scale instance-hours, ${fmt(r.accountProviderMinutes, 0)} account-provider-minutes; ` +
      `load average ${fmt(r.loadAverage, 1)}`,
    `  provider requests ${String(req).padStart(7)}  ${fmt(req / hours, 2).padStart(8)} per instance-hour  ` +
      `${fmt(req / r.accountProviderMinutes, 2).padStart(7)} per account-provider-minute   (${top(r.requests)})`,
    `  meter ticks in the window ${r.meterTicks}, ${fmt(expectedTicks(r), 1)} expected at real scale ` +
      `(one per instance per ${REAL.meterMs / 60_000} min): the summary below counts those at the meter probe's cost`,
    `  Temporal actions  ${String(act).padStart(7)}  ${fmt(act / hours, 2).padStart(8)} per instance-hour   ` +
      `(${top(r.actions)}); workflow tasks ${r.workflowTasks} (${fmt(r.workflowTasks / hours, 2)} per instance-hour)`,
    `  worker CPU        ${fmt(r.workerCpu, 2).padStart(7)} s ${fmt(r.workerCpu / hours, 3).padStart(8)} s per ` +
      `instance-hour  (${fmt((100 * r.workerCpu) / (r.windowMs / 1000), 0)}% of one core); ` +
      `Temporal server CPU ${fmt(r.temporalCpu, 2)} s (${fmt(r.temporalCpu / hours, 3)} s per instance-hour)`,
    `  preemption → spot.preempted row, ${r.preemptions.length} preemptions${missed}: ` +
      `measured p50 ${p50s((p) => p.measuredMs)} s ` +
      `(max ${fmt(Math.max(...r.preemptions.map((p) => p.measuredMs)) / 1000, 2)} s) = ` +
      `noticed p50 ${p50s((p) => p.detectMs)} s + recorded p50 ${p50s((p) => p.recordMs)} s; ` +
      `at real scale (noticed × ${SCALE} + recorded) p50 ${fmt(realPreemptionP50(r))} s`,
  ];
}

/**
 * Seconds from preemption to event at real scale: the wait to be noticed scales with the intervals,
 * the recording does not.
 */
function realPreemptionP50(r: PhaseResult): number {
  return (
    pct(
      r.preemptions.map((p) => p.detectMs * SCALE + p.recordMs),
      50,
    ) / 1000
  );
}

interface Figures {
  perAccountProviderMinute: number;
  actionsPerInstanceHour: number;
  cpuPerInstanceHour: number;
  requestsPerInstanceHour: number;
  preemptionP50s: number;
}

interface TickCost {
  actions: number;
  requests: number;
  workerCpu: number;
  workflowTasks: number;
}

/** What one meter tick costs, from the probe. */
function tickCost(probe: PhaseResult): TickCost {
  const ticks = Math.max(1, probe.meterTicks);
  return {
    actions: total(probe.actions) / ticks,
    requests: total(probe.requests) / ticks,
    workerCpu: probe.workerCpu / ticks,
    workflowTasks: probe.workflowTasks / ticks,
  };
}

/** Meter ticks an instance-hour at real scale carries: one per instance per real METER_INTERVAL. */
const expectedTicks = (r: PhaseResult) => (r.instanceHours * 3_600_000) / REAL.meterMs;

/** The window's figures with its meter ticks replaced by the expected number at the probe's cost per tick. */
function figures(r: PhaseResult, tick: TickCost): Figures {
  const extra = expectedTicks(r) - r.meterTicks;
  const requests = total(r.requests) + extra * tick.requests;
  return {
    perAccountProviderMinute: requests / r.accountProviderMinutes,
    requestsPerInstanceHour: requests / r.instanceHours,
    actionsPerInstanceHour: (total(r.actions) + extra * tick.actions) / r.instanceHours,
    cpuPerInstanceHour: (r.workerCpu + extra * tick.workerCpu) / r.instanceHours,
    preemptionP50s: realPreemptionP50(r),
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const stack = await startBench('fleet');
  const results: PhaseResult[] = [];
  let tick: TickCost | undefined;
  // Ctrl-C or SIGTERM: nothing of the bench may outlive it (worker, Temporal, Postgres, the data directory).
  try {
    const { url: dbUrl, pool } = await stack.database('bench', 20);
    const pg = await stack.postgres();
    const temporal = await startTemporal(stack.dir);
    stack.defer('the Temporal dev server', () => temporal.stop());
    // The spawned workers encrypt payloads with keys derived from the stack's master key: the bench's client too.
    const { client, connection } = await stack.connectTemporal(temporal.address);
    // Every exchange of a window is kept (counted by route), however big the fleet.
    const sims = await stack.simulators({ bootDelayMs: 1000, recordLimit: 10_000_000 });
    // Stopped first: a phase's worker still running when the bench is interrupted.
    stack.defer('the worker processes', () => children.forEach((child) => child.kill('SIGKILL')));
    const infra: Infra = {
      dir: stack.dir,
      pg,
      dbUrl,
      pool,
      temporal,
      client,
      connection,
      sims,
      vault: stack.vault,
      masterKey: stack.masterKey,
    };

    log(
      `time compressed ${SCALE}×: observe ${TIMING.pollIntervalMs} ms, spot ${TIMING.spotPollIntervalMs} ms, ` +
        `meter ${TIMING.meterIntervalMs} ms, boot polls ≤ ${TIMING.bootPollMaxMs} ms; window ${WINDOW_MS} ms`,
    );
    {
      const r = await runPhase(infra, ACCOUNTS * PROVIDERS.length, PROBE);
      const t = (tick = tickCost(r));
      process.stdout.write(
        `meter probe: ${r.meterTicks} ticks in ${fmt(r.windowMs / 1000, 0)} s; ` +
          `per tick ${fmt(t.actions, 2)} Temporal actions (${top(r.actions, 8)}), ` +
          `${fmt(t.workflowTasks, 2)} workflow tasks, ${fmt(t.requests, 2)} provider requests, ` +
          `${fmt(t.workerCpu * 1000, 1)} ms worker CPU\n`,
      );
    }
    for (const n of SIZES) {
      const r = await runPhase(infra, n);
      results.push(r);
      process.stdout.write(`${describe(r).join('\n')}\n`);
    }
  } finally {
    await stack.stop();
  }

  const lines: string[] = [
    '',
    `bench:fleet: time compressed ${SCALE}× (every interval divided by ${SCALE}: ` +
      `observe ${REAL.observeMs / 1000} s → ${TIMING.pollIntervalMs} ms, ` +
      `spot ${REAL.spotObserveMs / 1000} s → ${TIMING.spotPollIntervalMs} ms, ` +
      `meter ${REAL.meterMs / 60_000} min → ${TIMING.meterIntervalMs / 1000} s); ` +
      `figures per real-scale instance-hour and account-provider-minute, ` +
      `meter ticks at the expected rate (meter probe); ` +
      `preemption: the wait to be noticed × ${SCALE}, plus the recording as measured`,
    `wall time ${fmt((performance.now() - started) / 1000, 0)} s ` +
      `for FLEET_SIZES=${SIZES.join(',')} FLEET_WINDOW=${WINDOW_MS / 1000}s`,
  ];
  const final: string[] = [];
  for (const n of SIZES) {
    const bat = figures(
      results.find((r) => r.n === n)!,
      tick!,
    );
    const headline =
      `${fmt(bat.perAccountProviderMinute, 2)} provider requests per account-provider-minute, ` +
      `${fmt(bat.actionsPerInstanceHour, 0)} Temporal actions per instance-hour, ` +
      `preemption to event p50 ${fmt(bat.preemptionP50s)} s`;
    lines.push(`N=${n}: ${headline}; worker ${fmt(bat.cpuPerInstanceHour, 3)} CPU s per instance-hour`);
    final.push(`fleet N=${n}: ${headline}`);
  }
  process.stdout.write(`${[...lines, ...final].join('\n')}\n`);
}

runBench(main);

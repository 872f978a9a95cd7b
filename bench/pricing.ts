/**
 * `npm run bench:pricing`: throughput and latency of GET /v1/pricing through the whole API beside a bare
 * Koa handler returning the same bytes, measured in the same run, alternating rounds so drift hits both.
 * The servers run in a child process (its request log, one JSON line per request as shipped, goes to a file);
 * autocannon drives them from this one.
 *
 * `BENCH_PROFILE=1`: instead, drives only the API for BENCH_SECONDS under `node --cpu-prof` and prints where
 * the server's CPU went (self time by part, inclusive time by middleware stage).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { summarizeCpuProfile } from './cpu-profile';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROFILE = process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'bare';
/** `BENCH_PROFILE=bare`: the same profile of the bare Koa server, to compare with. */
const PROFILE_BARE = process.env.BENCH_PROFILE === 'bare';
/** `BENCH_KEEP_LOG=1`: leave the API's request log (one JSON line per request) in its folder for a look. */
const KEEP_LOG = process.env.BENCH_KEEP_LOG === '1';

interface Round {
  /**
   * The server process's CPU time per answered request (user + system), µs:
   * what load on the machine disturbs least.
   */
  cpuUs?: number;
  rps: number;
  p50: number;
  p99: number;
}

function run(url: string, duration: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, pipelining: 1 }, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0)
        return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve({
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        requests: result.requests.total,
      } as Round);
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuo-bench-pricing-'));
  const logFile = path.join(dir, 'api.log');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'pricing-server.ts')], {
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ api: number; bare: number; bytes: number; gpu_types: number }>(
    (resolve, reject) => {
      child.once('message', (m) => resolve(m as { api: number; bare: number; bytes: number; gpu_types: number }));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    },
  );
  const apiUrl = `http://127.0.0.1:${ready.api}/v1/pricing`;
  const bareUrl = `http://127.0.0.1:${ready.bare}/`;
  if (PROFILE) return profile(child, PROFILE_BARE ? bareUrl : apiUrl, dir);
  try {
    await run(apiUrl, 2); // warm-up (JIT, connection pools)
    await run(bareUrl, 2);
    const api: Round[] = [];
    const bare: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      api.push(await withCpu(child, () => run(apiUrl, SECONDS)));
      bare.push(await withCpu(child, () => run(bareUrl, SECONDS)));
    }
    const summary = (rs: Round[]) => ({
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
    });
    const a = summary(api);
    const b = summary(bare);
    const line = (name: string, s: Round) =>
      `${name.padEnd(28)} ${s.rps.toFixed(0).padStart(8)} req/s   ` +
      `p50 ${s.p50.toFixed(1).padStart(5)} ms   p99 ${s.p99.toFixed(1).padStart(5)} ms`;
    const apiCpuUs = median(api.map((r) => r.cpuUs!));
    const bareCpuUs = median(bare.map((r) => r.cpuUs!));
    const logPlace = KEEP_LOG ? logFile : 'a file removed at the end (BENCH_KEEP_LOG=1 keeps it)';
    process.stdout.write(
      [
        `GET /v1/pricing: ${ready.bytes} bytes, ${ready.gpu_types} GPU types; ${CONNECTIONS} connections, ` +
          `${ROUNDS} alternating rounds of ${SECONDS}s (medians)`,
        line('API GET /v1/pricing', a),
        line('bare Koa, same bytes', b),
        `throughput ratio (API / bare): ${(a.rps / b.rps).toFixed(2)}   ` +
          `(per round: ${api.map((r, i) => (r.rps / bare[i]!.rps).toFixed(2)).join(', ')})`,
        `server CPU per request: API ${apiCpuUs.toFixed(1)} µs, bare ${bareCpuUs.toFixed(1)} µs; ` +
          `CPU ratio (bare / API): ${(bareCpuUs / apiCpuUs).toFixed(2)}`,
        `request log: ${statSync(logFile).size} bytes written to ${logPlace}; ` +
          `load average ${os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(', ')}`,
        '',
      ].join('\n'),
    );
  } finally {
    child.kill('SIGTERM');
    // The request log of a run is 10–120 MB: kept only when asked for (it filled /tmp over many runs).
    if (!KEEP_LOG) {
      if (child.exitCode === null && child.signalCode === null)
        await new Promise((resolve) => child.once('exit', resolve));
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Runs a round and adds the server's CPU time per request (asked of the child before and after). */
async function withCpu(child: ChildProcess, round: () => Promise<Round>): Promise<Round> {
  const cpu = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpu: number }).cpu));
      child.send({ cpu: true });
    });
  const before = await cpu();
  const r = await round();
  const used = (await cpu()) - before;
  return { ...r, cpuUs: used / (r as Round & { requests: number }).requests };
}

async function profile(child: ChildProcess, apiUrl: string, dir: string): Promise<void> {
  const ask = (message: object) =>
    new Promise<void>((resolve) => {
      child.once('message', () => resolve());
      child.send(message);
    });
  const file = path.join(dir, 'api.cpuprofile');
  try {
    await run(apiUrl, 2); // warm-up (JIT)
    await ask({ profile: 'start' });
    const r = await run(apiUrl, SECONDS);
    await ask({ profile: 'stop', file });
    const lines = readFileSync(path.join(dir, 'api.log'), 'utf8').split('\n').filter(Boolean).length;
    process.stdout.write(
      `${PROFILE_BARE ? 'bare Koa' : 'API GET /v1/pricing'} under the profiler: ${r.rps.toFixed(0)} req/s; ` +
        `${lines} request log lines; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}\n` +
        `${summarizeCpuProfile(file)}\n`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});

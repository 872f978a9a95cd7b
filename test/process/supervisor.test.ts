/**
 * The local default's supervision on its own, with small stand-in children: restarts with doubling backoff,
 * a stable child resets the backoff, a child that cannot be spawned is retried rather than fatal, output is
 * kept per child, and stop() ends the child, cancels a pending restart, and removes the pid file.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../src/logger';
import { SupervisedProcess } from '../../src/local/supervisor';
import { eventually } from '../helpers/process';

jest.setTimeout(60_000);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-supervisor-'));
});

function supervise(script: string, backoff = { initialMs: 50, maxMs: 400 }, keepRunning = () => true) {
  const lines: Record<string, unknown>[] = [];
  const child = new SupervisedProcess({
    name: 'worker',
    command: process.execPath,
    args: ['-e', script],
    env: { ...process.env },
    logFile: path.join(dir, 'worker.log'),
    pidFile: path.join(dir, 'worker.pid'),
    backoff,
    logger: createLogger('info', { process: 'local' }, (line) =>
      lines.push(JSON.parse(line) as Record<string, unknown>),
    ),
    keepRunning,
  });
  return { child, lines, restartsLogged: () => lines.filter((l) => l.msg === 'child exited unexpectedly; restarting') };
}

it('restarts a child that keeps dying, doubling the delay up to the maximum, and logs each restart', async () => {
  // The maximum is far above a node start-up, so no life counts as stable (that would reset the delay).
  const { child, restartsLogged } = supervise('console.log(JSON.stringify({msg:"up"})); process.exit(3)', {
    initialMs: 50,
    maxMs: 5_000,
  });
  child.start();
  const logged = await eventually(
    'five restarts',
    () => (restartsLogged().length >= 5 ? restartsLogged() : undefined),
    30_000,
    20,
  );
  await child.stop();
  expect(logged.slice(0, 5).map((l) => l.restart_in_ms)).toEqual([50, 100, 200, 400, 800]);
  expect(logged[0]).toMatchObject({ level: 'error', process: 'local', child: 'worker', code: 3, signal: null });
  // Every life's output is kept in the child's log file, unchanged.
  const kept = (await readFile(path.join(dir, 'worker.log'), 'utf8')).split('\n').filter(Boolean);
  expect(kept.length).toBeGreaterThanOrEqual(5);
  expect(kept.every((l) => l === '{"msg":"up"}')).toBe(true);
});

it('starts again from the shortest delay once a child has stayed up for the maximum delay', async () => {
  // Lives 300 ms, then dies; with a 200 ms maximum every death counts as a fresh failure.
  const { child, restartsLogged } = supervise('setTimeout(() => process.exit(1), 300)', { initialMs: 50, maxMs: 200 });
  child.start();
  const logged = await eventually(
    'three restarts',
    () => (restartsLogged().length >= 3 ? restartsLogged() : undefined),
    30_000,
    20,
  );
  await child.stop();
  expect(logged.slice(0, 3).map((l) => l.restart_in_ms)).toEqual([50, 50, 50]);
});

it('retries a child that cannot be spawned at all, instead of failing the stack', async () => {
  const lines: Record<string, unknown>[] = [];
  const child = new SupervisedProcess({
    name: 'api',
    command: path.join(dir, 'no-such-binary'),
    args: [],
    env: {},
    logFile: path.join(dir, 'api.log'),
    pidFile: path.join(dir, 'api.pid'),
    backoff: { initialMs: 50, maxMs: 100 },
    logger: createLogger('info', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    keepRunning: () => true,
  });
  child.start();
  await eventually(
    'two restarts',
    () => (lines.filter((l) => String(l.msg).includes('restarting')).length >= 2 ? true : undefined),
    10_000,
    20,
  );
  await child.stop();
  expect(lines.find((l) => String(l.msg).includes('restarting'))).toMatchObject({
    child: 'api',
    err: { message: expect.stringContaining('ENOENT') },
  });
});

it('stop() ends a running child, keeps its pid file only while it lives, and never restarts it', async () => {
  const { child, restartsLogged, lines } = supervise('setInterval(() => {}, 1000)');
  child.start();
  const pid = await eventually(
    'the pid file',
    async () =>
      existsSync(path.join(dir, 'worker.pid'))
        ? Number(await readFile(path.join(dir, 'worker.pid'), 'utf8'))
        : undefined,
    10_000,
    20,
  );
  expect(pid).toBe(child.pid);
  await child.stop();
  expect(() => process.kill(pid, 0)).toThrow();
  expect(existsSync(path.join(dir, 'worker.pid'))).toBe(false);
  expect(restartsLogged()).toEqual([]);
  expect(lines.map((l) => l.msg)).toEqual(['child started', 'child stopped']);
});

it('does not restart a child that exits while the stack is stopping', async () => {
  let stopping = false;
  const { child, restartsLogged } = supervise('setInterval(() => {}, 1000)', undefined, () => !stopping);
  child.start();
  const pid = await eventually('the child', () => child.pid, 10_000, 20);
  stopping = true;
  process.kill(pid, 'SIGINT'); // Ctrl-C reaches the children directly, before the supervisor stops them
  await eventually('the child gone', () => (child.pid === undefined ? true : undefined), 10_000, 20);
  await child.stop();
  expect(restartsLogged()).toEqual([]);
});

it('turns an uncaught exception and a Node warning into one JSON line each (API and worker install this)', () => {
  const script = [
    "const { createLogger, logUncaughtFailures } = require('./src/logger');",
    "logUncaughtFailures(createLogger('info', { process: 'api' }));",
    "process.emitWarning('something is deprecated', 'DeprecationWarning');",
    "setTimeout(() => { throw new Error('boom'); }, 50);",
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: path.resolve(__dirname, '../..'),
    encoding: 'utf8',
  });
  expect(run.status).toBe(1);
  const lines = `${run.stdout}${run.stderr}`.split('\n').filter(Boolean);
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(parsed).toEqual([
    expect.objectContaining({
      level: 'warn',
      msg: 'node warning',
      name: 'DeprecationWarning',
      message: 'something is deprecated',
      process: 'api',
    }),
    expect.objectContaining({ level: 'error', msg: 'uncaught exception', err: { name: 'Error', message: 'boom' } }),
  ]);
});

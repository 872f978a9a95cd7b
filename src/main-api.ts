/** The API process: Postgres pool, Temporal client, `createApp(deps).listen()`. */
import { sealStartupScripts } from './db/queries/schedule-scripts';
import type { Server } from 'node:http';
import {
  accountLimitsFromConfig,
  fleetSettingsFromConfig,
  launchTimingFromConfig,
  loadConfigOrExit,
  providerAdapterSettings,
  requireSettings,
  webhookSettings,
  ConfigError,
} from './config';
import { KeyVault } from './domain/key-vault';
import { createProviderAdapters } from './providers';
import { createPricingQueries } from './db/queries/pricing';
import { PricingCache } from './db/pricing-cache';
import { createDatabasePool } from './db/pool';
import { checkReadiness, createApp } from './http/app';
import { createOpsApp, opsBindHost } from './http/ops';
import { renderMetrics } from './metrics';
import { createLogger, logUncaughtFailures } from './logger';
import { connectTemporalClient } from './workflow-clients/connection';
import { PayloadEncryptionCodec, temporalDataConverter } from './workflow-clients/payload-codec';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MASTER_ENCRYPTION_KEY']);
  const logger = createLogger(config.LOG_LEVEL, { process: 'api' });
  logUncaughtFailures(logger);
  const vault = KeyVault.fromConfig(
    config.MASTER_ENCRYPTION_KEY_ID,
    config.MASTER_ENCRYPTION_KEY!,
    config.MASTER_ENCRYPTION_PREVIOUS_KEYS,
  );
  const adapters = createProviderAdapters(providerAdapterSettings(config, logger));
  const pool = await createDatabasePool(config.DATABASE_URL!, { maximumPoolSize: config.DATABASE_POOL_SIZE });
  // Startup scripts still in plaintext (written before sealing) or sealed with a rotated-out key: sealed now.
  const scripts = await sealStartupScripts(pool, vault);
  if (scripts)
    logger.info('startup scripts sealed with the current master key', { count: scripts, key_id: vault.keyId });
  const client = await connectTemporalClient({
    address: config.TEMPORAL_ADDRESS!,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    dataConverter: temporalDataConverter(vault),
  });
  const pricing = new PricingCache(createPricingQueries(pool), logger, { databaseUrl: config.DATABASE_URL });
  await pricing.start();
  const temporal = { client, taskQueue: config.TEMPORAL_TASK_QUEUE };
  const app = createApp({
    pricing,
    pool,
    logger,
    temporal,
    adapters,
    vault,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    stripe: {
      secretKey: config.STRIPE_SECRET_KEY,
      apiBaseUrl: config.STRIPE_API_BASE_URL,
      webhookSecret: config.STRIPE_WEBHOOK_SECRET,
      returnBaseUrl:
        config.PUBLIC_BASE_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`,
    },
    rateLimit: {
      burst: config.RATE_LIMIT_BURST,
      perMinute: config.RATE_LIMIT_PER_MINUTE,
      unauthenticatedPerMinute: config.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
      authFailuresPerMinute: config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
    },
    answerBounds: {
      launchMs: config.LAUNCH_ANSWER_WITHIN,
      lifecycleMs: config.LIFECYCLE_ANSWER_WITHIN,
    },
    bodyTimeoutMs: config.HTTP_BODY_TIMEOUT,
    admissionWindowMs: config.BALANCE_ADMISSION_WINDOW,
    webhooks: { allowedHosts: webhookSettings(config).allowedHosts },
    launchTiming: launchTimingFromConfig(config),
    limits: accountLimitsFromConfig(config),
    scheduleMinIntervalMs: config.SCHEDULE_MIN_INTERVAL,
    fleet: fleetSettingsFromConfig(config),
    logs: { keepAliveMs: config.LOG_KEEPALIVE_INTERVAL },
    trustProxyHops: config.TRUST_PROXY,
  });
  const server: Server = app.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    logger.info('api listening', { url: `http://${config.HOST}:${port}` });
  });

  // The operations listener: metrics, the Temporal codec endpoints, readiness (src/http/ops.ts).
  const opsHost = opsBindHost(config.OPS_HOST, config.OPS_TOKEN);
  if (opsHost !== config.OPS_HOST)
    logger.warn('OPS_TOKEN is not set: the operations listener binds to loopback only', {
      asked: config.OPS_HOST,
      bound: opsHost,
    });
  const ops = createOpsApp({
    logger,
    token: config.OPS_TOKEN,
    codec: new PayloadEncryptionCodec(vault),
    corsOrigins: config.OPS_CORS_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    metrics: () => renderMetrics(),
    ready: () => checkReadiness({ pool, temporal, logger }),
  });
  const opsServer: Server = ops.listen(config.OPS_PORT, opsHost, () => {
    const address = opsServer.address();
    const port = typeof address === 'object' && address ? address.port : config.OPS_PORT;
    logger.info('operations listener', {
      url: `http://${opsHost.includes(':') ? `[${opsHost}]` : opsHost}:${port}`,
      token_required: Boolean(config.OPS_TOKEN),
    });
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('api stopping', { signal });
    server.close();
    server.closeIdleConnections?.();
    opsServer.close();
    await Promise.allSettled([pricing.stop(), pool.end(), client.connection.close()]);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else createLogger('debug', { process: 'api' }).error('api failed to start', { err });
  process.exit(1);
});

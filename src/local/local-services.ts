/**
 * The services `npm start` runs beside the API and the worker when none are configured: Stripe (stripe-mock),
 * the provider simulators and the Temporal dev server.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { ProviderId } from '../providers/types';
import { startSimulators } from '../../simulators';
import { devServerArgs } from './dev-server';
import type { LocalState } from './local-state';
import { startStripeMock, STRIPE_MOCK_SECRET_KEY } from './stripe-mock';
import { findOrBuildTool, findTool, STRIPE_MOCK, TEMPORAL_CLI } from './tool-binaries';

/**
 * Stripe for top-ups: the real one when STRIPE_SECRET_KEY is set (with STRIPE_WEBHOOK_SECRET and, optionally,
 * STRIPE_API_BASE_URL from the environment), otherwise stripe-mock with a generated webhook secret.
 * A stripe-mock already built is started before this resolves. One that must first be built from Go source (a
 * minute or more, once per machine) is built and started in the background: the API is pointed at its port from
 * the start, top-ups answer 503 until it answers, and a log line says when it does.
 */
export async function startLocalStripe(config: Config, previous: LocalState | undefined, logger: Logger) {
  if (config.STRIPE_SECRET_KEY) {
    logger.info('STRIPE_SECRET_KEY set: top-ups go to Stripe');
    return {
      env: {},
      webhookSecret: config.STRIPE_WEBHOOK_SECRET,
      label: `Stripe (${config.STRIPE_API_BASE_URL ?? 'api.stripe.com'})`,
      stop: async () => {},
    };
  }
  const webhookSecret =
    config.STRIPE_WEBHOOK_SECRET ?? previous?.stripe_webhook_secret ?? `whsec_${randomBytes(24).toString('base64')}`;
  const baseUrl = `http://127.0.0.1:${config.LOCAL_STRIPE_MOCK_PORT}`;
  const env = {
    STRIPE_SECRET_KEY: STRIPE_MOCK_SECRET_KEY,
    STRIPE_API_BASE_URL: baseUrl,
    STRIPE_WEBHOOK_SECRET: webhookSecret,
  };
  const log = (m: string) => logger.info(m);
  const unavailable = (err: unknown) => {
    logger.warn('stripe-mock could not start (run `npm run tools:install`); credit top-ups answer 503 until it can', {
      err,
    });
    return { env: {}, webhookSecret: undefined, label: 'not available (stripe-mock missing)', stop: async () => {} };
  };
  const built = await findTool(STRIPE_MOCK, log);
  if (built) {
    try {
      const mock = await startStripeMock({ port: config.LOCAL_STRIPE_MOCK_PORT, binary: built, log });
      return { env, webhookSecret, label: `stripe-mock ${mock.baseUrl}`, stop: () => mock.stop() };
    } catch (err) {
      return unavailable(err);
    }
  }
  let stopped = false;
  const starting = startStripeMock({ port: config.LOCAL_STRIPE_MOCK_PORT, log }).then(
    async (mock) => {
      if (stopped) await mock.stop();
      else logger.info('stripe-mock is up: credit top-ups work', { url: mock.baseUrl });
      return mock;
    },
    (err: unknown) => {
      unavailable(err);
      return undefined;
    },
  );
  return {
    env,
    webhookSecret,
    label: `stripe-mock ${baseUrl} (being built once from source: top-ups answer 503 until a line says it is up)`,
    stop: async () => {
      stopped = true;
      await (await starting)?.stop();
    },
  };
}

const BASE_URL_VARS = ['RUNPOD_API_BASE_URL', 'VASTAI_API_BASE_URL', 'LAMBDA_API_BASE_URL'] as const;

/**
 * The provider simulators run unless real provider base URLs are configured. Their keys are kept in
 * local.json so a restart accepts the same keys (simulated instances do not survive a restart).
 */
export async function startLocalSimulators(previous: LocalState | undefined, logger: Logger) {
  if (BASE_URL_VARS.some((v) => process.env[v])) {
    logger.info('provider base URLs configured: using the real providers, no simulators');
    return undefined;
  }
  const keys = previous?.sandbox_provider_keys;
  const sims = await startSimulators({
    keys: keys ? { runpod: [keys.runpod], vastai: [keys.vastai], lambda: [keys.lambda] } : undefined,
    bootDelayMs: 5_000,
  });
  const sandboxKeys: Record<ProviderId, string> = keys ?? {
    runpod: sims.runpod.createKey(),
    vastai: sims.vastai.createKey(),
    lambda: sims.lambda.createKey(),
  };
  return { sims, sandboxKeys };
}

/** What startLocalSimulators started: the simulators and the sandbox key of each, or nothing. */
export type LocalSimulators = Awaited<ReturnType<typeof startLocalSimulators>>;

/** The Temporal dev server under DATA_DIR, unless TEMPORAL_ADDRESS names one to use. */
export async function startTemporal(config: Config, dataDir: string, logger: Logger, codecEndpoint: string) {
  if (config.TEMPORAL_ADDRESS)
    return { address: config.TEMPORAL_ADDRESS, uiUrl: config.TEMPORAL_UI_URL ?? null, stop: async () => {} };
  const cli = await findOrBuildTool(TEMPORAL_CLI, (m) => logger.info(m));
  if (!cli)
    logger.warn('no Temporal CLI and no Go toolchain found; falling back to the SDK download of the dev server');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      ip: '127.0.0.1',
      port: config.LOCAL_TEMPORAL_PORT,
      ui: true,
      uiPort: config.LOCAL_TEMPORAL_UI_PORT,
      dbFilename: path.join(dataDir, 'temporal.db'),
      namespace: config.TEMPORAL_NAMESPACE,
      // Our search attributes are registered at every start (the flag is idempotent on an existing database).
      // The UI asks the API's operations listener to decode our encrypted payloads (docs/security.md).
      extraArgs: ['--log-level', 'error', '--ui-codec-endpoint', codecEndpoint, ...devServerArgs()],
    },
  });
  return {
    address: `127.0.0.1:${config.LOCAL_TEMPORAL_PORT}`,
    uiUrl: `http://127.0.0.1:${config.LOCAL_TEMPORAL_UI_PORT}`,
    stop: () => env.teardown(),
  };
}

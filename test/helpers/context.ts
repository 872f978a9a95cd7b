/**
 * Per-test-file context: a fresh database, a Temporal client on the run's dev server, the provider
 * simulators (when asked for) with adapters pointed at them, and the Koa app driven in-process through
 * supertest. `newAccount()` returns an account and a ready authorization header.
 */
import { createHash } from 'node:crypto';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import request from 'supertest';
import type Koa from 'koa';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { createPricingQueries, type ProviderOutcome } from '../../src/db/queries/pricing';
import { toStoredOffer } from '../../src/domain/pricing';
import { PricingCache } from '../../src/db/pricing-cache';
import { createProviderKeyQueries } from '../../src/db/queries/provider-keys';
import { createProviderCredentials } from '../../src/providers/provider-credentials';
import type { Pool } from '../../src/db/pool';
import type { WorkerDeps } from '../../src/worker';
import { KeyVault } from '../../src/domain/key-vault';
import { createApp, type AppDeps } from '../../src/http/app';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { ed25519Key } from '../fixtures/ssh-keys';
import { silentLogger } from '../../src/logger';
import { createProviderAdapters } from '../../src/providers';
import { simulatorBaseUrls, startSimulators, type Simulators } from '../../simulators';
import { createTestDatabase, type TestDatabase } from './db';
import { TEST_DATA_CONVERTER, uniqueTaskQueue } from './temporal';
import { assertNoZeroChargesOfPricedInstances } from './zero-charges';

export interface TestContext {
  db: TestDatabase;
  /** `db.sql`: rows of one plain SQL query on the file's database. */
  sql: TestDatabase['sql'];
  temporal: Client;
  deps: AppDeps;
  app: Koa;
  http: ReturnType<typeof request>;
  /** Present when created with `{simulators: true}`. */
  sims: Simulators;
  /**
   * A new account with a service key. It starts with {@link TEST_STARTING_CREDIT_DOLLARS} of `credit_grant`
   * (launches need balance); pass `{credit: 0}` for an empty balance.
   */
  newAccount(
    name?: string,
    options?: { credit?: number },
  ): Promise<{ accountId: string; apiKey: string; auth: { Authorization: string } }>;
  /**
   * Activity dependencies for a worker that serves this context: its adapters (pointed at the simulators when
   * asked for) and the provider keys accounts connect through its API; `overrides` add the rest.
   */
  workerDeps(overrides?: Partial<WorkerDeps>): WorkerDeps;
  /**
   * A new account (as `newAccount`) with a fresh simulator key connected for `provider` through the API and,
   * unless `sshKey: false`, a default SSH key.
   */
  connectedAccount(
    provider: ProviderId,
    options?: { sshKey?: boolean },
  ): Promise<{ accountId: string; apiKey: string; auth: { Authorization: string }; simKey: string; publicKey: string }>;
  /**
   * Every simulator's offers recorded as a pricing refresh at `at` would leave them (scheduled runs, plan, alerts read
   * them).
   */
  recordSimulatorPrices(at?: Date): Promise<void>;
  /** Fails (after cleaning up) when the file's ledger holds a $0 charge for a priced instance (./zero-charges). */
  close(): Promise<void>;
}

/** Starting credit of `newAccount()`: generous, so launches in tests are never refused for balance. */
export const TEST_STARTING_CREDIT_DOLLARS = 1000;

/**
 * The tests' master key vault: one fixed key, so what an API in a test seals (provider keys, webhook secrets)
 * a worker in the same test opens. Tests that need a foreign key make their own KeyVault.
 */
export function testVault(): KeyVault {
  return new KeyVault('test', TEST_MASTER_KEY);
}
/** The key of {@link testVault} (id `test`). */
export const TEST_MASTER_KEY = createHash('sha256').update('gpu-orchestrator test master key').digest();

/** App dependencies for tests; adapters default to an address where nothing listens. */
export function testAppDeps(pool: Pool, overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    pool,
    logger: silentLogger,
    temporal: { client: null as unknown as Client, taskQueue: uniqueTaskQueue() },
    adapters: createProviderAdapters({
      runpodBaseUrl: 'http://127.0.0.1:9/v2',
      vastaiBaseUrl: 'http://127.0.0.1:9',
      lambdaBaseUrl: 'http://127.0.0.1:9/api/v1',
      timeoutMs: 2000,
      logger: silentLogger,
    }),
    vault: testVault(),
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
    // Suites with every-minute schedules; test/api/limits.test.ts checks the 5 min default's refusal.
    scheduleMinIntervalMs: 60_000,
    // Suites send many public and badly keyed requests from one address; test/api/shared-rate-limit.test.ts
    // and test/process/shared-rate-limit.test.ts check these limits.
    rateLimit: { burst: 120, perMinute: 600, unauthenticatedPerMinute: 1_000_000, authFailuresPerMinute: 1_000_000 },
    // A followed log notices its end within a quarter second (default 1 s).
    logs: { statusPollMs: 250 },
    ...overrides,
  };
}

export async function createTestContext(
  options: {
    simulators?: boolean;
    providerTimeoutMs?: number;
    launchTiming?: AppDeps['launchTiming'];
    answerBounds?: AppDeps['answerBounds'];
    stripe?: AppDeps['stripe'];
    fleet?: AppDeps['fleet'];
    /**
     * BALANCE_ADMISSION_WINDOW of the API (default 1 h): compressed, a small balance can launch a fleet it covers for
     * seconds.
     */
    admissionWindowMs?: number;
    /** Jobs' (and scheduled runs') wait for capacity: compressed, a refused attempt is followed at once. */
    jobBackoff?: AppDeps['jobBackoff'];
  } = {},
): Promise<TestContext> {
  const db = await createTestDatabase();
  const connection = await connectTemporal({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection, dataConverter: TEST_DATA_CONVERTER });
  const sims = options.simulators ? await startSimulators({ bootDelayMs: 200 }) : undefined;
  const deps = testAppDeps(db.pool, {
    temporal: { client: temporal, taskQueue: uniqueTaskQueue() },
    launchTiming: options.launchTiming,
    answerBounds: options.answerBounds,
    stripe: options.stripe,
    fleet: options.fleet,
    ...(options.admissionWindowMs !== undefined ? { admissionWindowMs: options.admissionWindowMs } : {}),
    ...(options.jobBackoff ? { jobBackoff: options.jobBackoff } : {}),
    ...(sims
      ? {
          adapters: createProviderAdapters({
            ...simulatorBaseUrls(sims),
            timeoutMs: options.providerTimeoutMs ?? 2000,
            logger: silentLogger,
          }),
        }
      : {}),
  });
  const app = createApp(deps);
  const accounts = createAccountQueries(db.pool);
  return {
    db,
    sql: db.sql,
    temporal,
    deps,
    app,
    http: request(app.callback()),
    sims: sims as Simulators,
    async newAccount(name = 'test account', { credit = TEST_STARTING_CREDIT_DOLLARS } = {}) {
      const { account, apiKey } = await accounts.insertAccountWithKey(name, {
        startingCreditMicros: Math.round(credit * 1_000_000),
      });
      return { accountId: account.id, apiKey, auth: { Authorization: `Bearer ${apiKey}` } };
    },
    workerDeps(overrides = {}) {
      return testActivityDeps(db.pool, {
        adapters: deps.adapters,
        credentials: createProviderCredentials(createProviderKeyQueries(db.pool), deps.vault),
        ...overrides,
      });
    },
    async connectedAccount(provider, { sshKey = true } = {}) {
      const { account, apiKey } = await accounts.insertAccountWithKey('test account', {
        startingCreditMicros: Math.round(TEST_STARTING_CREDIT_DOLLARS * 1_000_000),
      });
      const auth = { Authorization: `Bearer ${apiKey}` };
      if (!sims) throw new Error('connectedAccount needs createTestContext({ simulators: true })');
      const simKey = sims[provider].createKey();
      const http = request(app.callback());
      await http.post('/v1/settings/providers').set(auth).send({ provider, api_key: simKey }).expect(201);
      const publicKey = ed25519Key();
      if (sshKey) await http.post('/v1/ssh-keys').set(auth).send({ name: 'laptop', public_key: publicKey }).expect(201);
      return { accountId: account.id, apiKey, auth, simKey, publicKey };
    },
    async recordSimulatorPrices(at = new Date()) {
      if (!sims) throw new Error('recordSimulatorPrices needs createTestContext({ simulators: true })');
      const outcomes = {} as Record<ProviderId, ProviderOutcome>;
      for (const p of PROVIDERS)
        outcomes[p] = { ok: true, offers: (await deps.adapters[p].listOffers(sims[p].createKey())).map(toStoredOffer) };
      await createPricingQueries(db.pool).recordRefresh(outcomes, at);
    },
    async close() {
      try {
        await assertNoZeroChargesOfPricedInstances(db);
      } finally {
        await sims?.close();
        await connection.close();
        await db.drop();
      }
    },
  };
}

/** Activity dependencies for tests: adapters default to an address where nothing listens. */
export function testActivityDeps(pool: Pool, overrides: Partial<WorkerDeps> = {}): WorkerDeps {
  const app = testAppDeps(pool);
  return {
    pool,
    logger: silentLogger,
    adapters: app.adapters,
    pricingKeys: {},
    vault: app.vault,
    credentials: createProviderCredentials(createProviderKeyQueries(pool), app.vault),
    // Test files share one Temporal server: each worker gets its own alert monitor.
    alertMonitor: { workflowId: uniqueTaskQueue('alert-monitor'), tickMs: 5 * 60_000 },
    // A schedule's run is a job: its wrapper reports to this address (where nothing listens) unless a test
    // serves the API for it; the provider's own end is then the fallback.
    jobs: { publicBaseUrl: 'http://127.0.0.1:9', vault: app.vault },
    ...overrides,
  };
}

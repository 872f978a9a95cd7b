/**
 * The worker is a real child process (`src/main-worker.ts`), killed with SIGKILL at the worst moments and
 * started again: right after the provider accepted a create, in the middle of metering, and right after a
 * terminate answered (the instance stays out of the live list).
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { KeyVault } from '../../src/domain/key-vault';
import { temporalDataConverter } from '../../src/workflow-clients/payload-codec';
import { createProviderAdapters } from '../../src/providers';
import { silentLogger } from '../../src/logger';
import { simulatorBaseUrls, startSimulators, type Simulators } from '../../simulators';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { testAppDeps } from '../helpers/context';
import { eventually, runEntry, killProcess } from '../helpers/process';
import { uniqueTaskQueue } from '../helpers/temporal';
import { createAccountQueries } from '../../src/db/queries/accounts';

jest.setTimeout(150_000);

let db: TestDatabase;
let sims: Simulators;
let connection: Connection;
let http: ReturnType<typeof request>;
const masterKey = randomBytes(32);
const taskQueue = uniqueTaskQueue('crash');
const workers: ReturnType<typeof runEntry>[] = [];

function startWorker() {
  const worker = runEntry('src/main-worker.ts', [], {
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MASTER_ENCRYPTION_KEY: masterKey.toString('base64'),
    MASTER_ENCRYPTION_KEY_ID: 'crash',
    RUNPOD_API_BASE_URL: sims.runpod.baseUrl,
    VASTAI_API_BASE_URL: sims.vastai.baseUrl,
    LAMBDA_API_BASE_URL: sims.lambda.baseUrl,
    PRICING_REFRESH_INTERVAL: '1h',
    LOG_LEVEL: 'info',
  });
  workers.push(worker);
  return worker;
}

const killWorker = killProcess;

beforeAll(async () => {
  [db, sims] = await Promise.all([createTestDatabase(), startSimulators({ bootDelayMs: 300 })]);
  connection = await connectTemporal({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const app = createApp(
    testAppDeps(db.pool, {
      temporal: {
        client: new Client({ connection, dataConverter: temporalDataConverter(new KeyVault('crash', masterKey)) }),
        taskQueue,
      },
      vault: new KeyVault('crash', masterKey),
      adapters: createProviderAdapters({
        ...simulatorBaseUrls(sims),
        timeoutMs: 2000,
        logger: silentLogger,
      }),
      launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 700, activityTimeoutMs: 3000 },
    }),
  );
  http = request(app.callback());
});

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) await killWorker(w);
  await connection.close();
  await sims.close();
  await db.drop();
});

it(
  'keeps exactly one instance and exact charges when ' + 'the worker dies after the create and during metering',
  async () => {
    const { account, apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('crash test', {
      startingCreditMicros: 1_000_000_000,
    });
    const auth = { Authorization: `Bearer ${apiKey}` };
    const simKey = sims.vastai.createKey();
    await http.post('/v1/settings/providers').set(auth).send({ provider: 'vastai', api_key: simKey }).expect(201);
    await http.post('/v1/ssh-keys').set(auth).send({ name: 'k', public_key: ed25519Key() }).expect(201);

    let worker = startWorker();
    // The create takes effect at once, but its answer arrives late: the worker dies in between.
    sims.vastai.control.setLatency(4_000, {
      match: { method: 'PUT', path: /^\/api\/v0\/asks\// },
      afterHandling: true,
    });
    const launching = http.post('/v1/compute/launch').set(auth).send({ provider: 'vastai', gpu_type: 'rtx-a6000' });
    const launched = launching.then((r) => r); // start the request now
    await eventually(
      'the provider to accept the create',
      () => (sims.vastai.control.instances(simKey).length === 1 ? true : undefined),
      60_000,
    );
    await killWorker(worker);
    sims.vastai.control.setLatency(0);
    worker = startWorker();

    let res = await launched;
    // A launch that outlives the answer bound (the worker is restarting) answers 503 with its Idempotency-Key:
    // retrying with that key joins the same launch.
    for (let tries = 0; res.status === 503 && tries < 5; tries++) {
      expect(res.body.error.code).toBe('service_unavailable');
      res = await http
        .post('/v1/compute/launch')
        .set(auth)
        .set('Idempotency-Key', res.headers['idempotency-key']!)
        .send({ provider: 'vastai', gpu_type: 'rtx-a6000' });
    }
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    expect(sims.vastai.control.instances(simKey).map((i) => i.id)).toEqual([id]);
    expect(await db.sql('SELECT id FROM instances WHERE account_id = $1', [account.id])).toHaveLength(1);

    // Metering: a few charges, a kill, a restart, more charges.
    const chargeCount = async () =>
      (
        await db.sql<{ n: string }>(
          `SELECT count(*) AS n FROM ledger_entries WHERE account_id = $1 AND type = 'instance_charge'`,
          [account.id],
        )
      )[0]!.n;
    await eventually('two charges', async () => (Number(await chargeCount()) >= 2 ? true : undefined), 30_000);
    await killWorker(worker);
    const before = Number(await chargeCount());
    worker = startWorker();
    await eventually(
      'charges after the restart',
      async () => (Number(await chargeCount()) >= before + 2 ? true : undefined),
      60_000,
    );

    const terminated = await http.post(`/v1/compute/${id}/terminate`).set(auth);
    expect(terminated.status).toBe(200);
    expect(terminated.body.status).toBe('terminated');
    // The worker dies right after the terminate answered: the next list leaves the instance out, whatever the
    // observers' last round listed, and so does a list refreshed by the restarted worker.
    await killWorker(worker);
    const liveIds = async (query = '') =>
      ((await http.get(`/v1/compute${query}`).set(auth).expect(200)).body.data as { id: string }[]).map((i) => i.id);
    expect(await liveIds()).not.toContain(id);
    worker = startWorker();
    const restarted = worker;
    await eventually('the restarted worker to poll', async () =>
      restarted.output().includes('"worker polling"') ? true : undefined,
    );
    expect(await liveIds('?refresh=true')).not.toContain(id);
    expect((await http.get(`/v1/compute/${id}`).set(auth).expect(200)).body).toMatchObject({
      status: 'terminated',
      end_kind: 'terminated',
    });

    // No interval charged twice, none skipped: the charges add up to price × (metered_through − started_at).
    const [row] = await db.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string }>(
      'SELECT started_at, metered_through, price_per_hour_micros FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    const expected = Math.round(
      (Number(row!.price_per_hour_micros) * (row!.metered_through.getTime() - row!.started_at.getTime())) / 3_600_000,
    );
    const [sum] = await db.sql<{ total: string; n: string; keys: string }>(
      `SELECT sum(amount_micros) AS total, count(*) AS n, count(DISTINCT idempotency_key) AS keys
     FROM ledger_entries WHERE account_id = $1 AND type = 'instance_charge'`,
      [account.id],
    );
    expect(-Number(sum!.total)).toBe(expected);
    expect(sum!.keys).toBe(sum!.n);
    expect(sims.vastai.control.instances(simKey)).toEqual([]);
    await killWorker(worker);
  },
);

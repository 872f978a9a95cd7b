/**
 * A scheduled run (a job, its attempt a launch) survives its worker: workers are real child processes
 * (`src/main-worker.ts`), two polling the task queue as a deployment of two would. The one running the run's
 * create is killed with SIGKILL right after the provider accepted the create, and a replacement starts; while the
 * run is metering, the one that ran the launch workflow's latest task is killed too. Exactly one instance exists,
 * and max_cost still stops the run: the terminate reaches the provider after the cap was reached, and the charges
 * run exactly to the moment the provider carried it out (how soon after the cap is asserted in workflow time,
 * test/workflows/schedule-run.test.ts). (Naming the worker to kill from Temporal's own record, instead of having
 * one worker and restarting it, means no test phase waits for a worker process to start.)
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { KeyVault } from '../../src/domain/key-vault';
import { temporalDataConverter } from '../../src/workflow-clients/payload-codec';
import { createProviderAdapters } from '../../src/providers';
import { silentLogger } from '../../src/logger';
import { createPricingQueries, type ProviderOutcome } from '../../src/db/queries/pricing';
import { toStoredOffer } from '../../src/domain/pricing';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { simulatorBaseUrls, startSimulators, type Simulators } from '../../simulators';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { testAppDeps } from '../helpers/context';
import { eventually, runEntry, killProcess } from '../helpers/process';
import { uniqueTaskQueue } from '../helpers/temporal';
import { createAccountQueries } from '../../src/db/queries/accounts';

jest.setTimeout(240_000);

// The launch's look at a booting instance.
const POLL_MS = 2_000;
let db: TestDatabase;
let sims: Simulators;
let connection: Connection;
let temporal: Client;
let http: ReturnType<typeof request>;
const masterKey = randomBytes(32);
const taskQueue = uniqueTaskQueue('sched-crash');
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
    // info: its "worker polling" line says when it is up.
    LOG_LEVEL: 'info',
  });
  workers.push(worker);
  return worker;
}

const killWorker = killProcess;

/** Resolves once every given worker logs that it polls (they start in parallel). */
const polling = (...ws: ReturnType<typeof runEntry>[]) =>
  eventually(
    'the workers polling',
    () => {
      const dead = ws.find((w) => w.child.exitCode !== null || w.child.signalCode !== null);
      if (dead) throw new Error(`a worker exited during start-up: ${dead.output().slice(-2000)}`);
      return ws.every((w) => w.output().includes('"worker polling"')) ? true : undefined;
    },
    120_000,
    100,
  );

/**
 * The worker process that started the workflow's latest workflow task (Temporal records its identity, the
 * SDK's default pid@host): the one running it now (a local activity runs inside that task) or holding it in
 * its cache.
 */
async function holderOf(workflowId: string) {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const identity = (history.events ?? []).filter((e) => e.workflowTaskStartedEventAttributes).at(-1)
    ?.workflowTaskStartedEventAttributes?.identity;
  const w = workers.find((x) => `${x.child.pid}@${os.hostname()}` === identity);
  if (!w) throw new Error(`no worker of this test has the identity ${identity}`);
  expect(w.child.exitCode === null && w.child.signalCode === null).toBe(true);
  return w;
}

beforeAll(async () => {
  [db, sims] = await Promise.all([createTestDatabase(), startSimulators({ bootDelayMs: 300 })]);
  connection = await connectTemporal({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  temporal = new Client({ connection, dataConverter: temporalDataConverter(new KeyVault('crash', masterKey)) });
  const deps = testAppDeps(db.pool, {
    temporal: { client: temporal, taskQueue },
    vault: new KeyVault('crash', masterKey),
    adapters: createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 2000, logger: silentLogger }),
    launchTiming: { pollIntervalMs: POLL_MS, meterIntervalMs: 3_000, activityTimeoutMs: 3000 },
  });
  http = request(createApp(deps).callback());
  const outcomes = {} as Record<ProviderId, ProviderOutcome>;
  for (const p of PROVIDERS)
    outcomes[p] = { ok: true, offers: (await deps.adapters[p].listOffers(sims[p].createKey())).map(toStoredOffer) };
  await createPricingQueries(db.pool).recordRefresh(outcomes, new Date());
});

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) await killWorker(w);
  await connection.close();
  await sims.close();
  await db.drop();
});

it(
  'keeps exactly one instance and still stops at max_cost when the worker dies ' +
    'after the create and while metering',
  async () => {
    const [first, second] = [startWorker(), startWorker()];
    const { account, apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('schedule crash test', {
      startingCreditMicros: 1_000_000_000,
    });
    const auth = { Authorization: `Bearer ${apiKey}` };
    const simKey = sims.runpod.createKey();
    await http.post('/v1/settings/providers').set(auth).send({ provider: 'runpod', api_key: simKey }).expect(201);
    await http.post('/v1/ssh-keys').set(auth).send({ name: 'k', public_key: ed25519Key() }).expect(201);
    // rtx-4090 on runpod at $0.69/h: $0.0058 lasts about 30 s of running (a kill, its sticky-queue timeout and a
    // worker's start on a loaded machine fit in it).
    const maxCost = 0.0058;
    const schedule = (
      await http
        .post('/v1/schedules')
        .set(auth)
        .send({ name: 'crash', gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 29 2 *', max_cost: maxCost })
        .expect(201)
    ).body as { id: string };

    const runs = async () =>
      (await http.get(`/v1/schedules/${schedule.id}/runs`).set(auth).expect(200)).body.data as {
        id: string;
        status: string;
        instance_id: string;
        cost: number;
        price_per_hour: number;
        started_at: string;
        job_id: string;
      }[];

    await polling(first, second);
    // The create takes effect at once, but its answer arrives late: the worker running it dies in between.
    sims.runpod.control.setLatency(4_000, { match: { method: 'POST', path: '/v2/pods' }, afterHandling: true });
    await http.post(`/v1/schedules/${schedule.id}/trigger`).set(auth).expect(202);
    await eventually(
      'the provider to accept the create',
      () => (sims.runpod.control.instances(simKey).length === 1 ? true : undefined),
      90_000,
      50,
    );
    const [launching] = await runs();
    // The create runs as a local activity inside the launch's current workflow task: the run's job's first attempt.
    const launchId = `launch-${account.id}-${launching!.job_id}-1`;
    await killWorker(await holderOf(launchId));
    sims.runpod.control.setLatency(0);
    startWorker();

    const running = await eventually(
      'the run to be running',
      async () => (await runs()).find((r) => r.status === 'running'),
      90_000,
      250,
    );
    await eventually(
      'a charge',
      async () => {
        const [n] = await db.sql<{ n: string }>(`SELECT count(*) AS n FROM ledger_entries WHERE account_id = $1`, [
          account.id,
        ]);
        return Number(n!.n) >= 1 ? true : undefined;
      },
      60_000,
    );
    // Mid-metering: the run waits on its cost deadline, the launch workflow on its poll timer. The worker that ran
    // the launch's latest workflow task (so holds it in its cache) dies; the other carries on.
    await killWorker(await holderOf(launchId));

    const stopped = await eventually(
      'the run to stop at max_cost',
      async () => (await runs()).find((r) => r.status !== 'running' && r.status !== 'launching'),
      120_000,
      250,
    );
    expect(stopped).toMatchObject({ id: running.id, status: 'stopped_max_cost', instance_id: running.instance_id });
    // Stopped after max_cost was reached, charged exactly to the provider's end: the first terminate RunPod carried
    // out came after the moment price × elapsed reached the cap, metering ran to (at least) that moment, and the
    // cost is price × (metered_through − started_at).
    const [row] = await db.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string }>(
      'SELECT started_at, metered_through, price_per_hour_micros FROM instances WHERE account_id = $1',
      [account.id],
    );
    const priceMicros = Number(row!.price_per_hour_micros);
    const capReachedAt = row!.started_at.getTime() + Math.floor((maxCost * 1e6 * 3_600_000) / priceMicros);
    // (A terminate retried after a worker's death finds the pod gone: RunPod carried out the first.)
    const terminates = sims.runpod.control
      .requests({ method: 'POST', path: `/v2/pods/${stopped.instance_id}/action`, key: simKey })
      .filter((r) => (r.body as { action?: string }).action === 'terminate' && r.status === 204);
    expect(terminates).toHaveLength(1);
    const terminatedAt = terminates[0]!.at;
    expect(terminatedAt).toBeGreaterThanOrEqual(capReachedAt);
    expect(row!.metered_through.getTime()).toBeGreaterThanOrEqual(terminatedAt);
    expect(stopped.cost).toBe(
      Math.round((priceMicros * (row!.metered_through.getTime() - row!.started_at.getTime())) / 3_600_000) / 1e6,
    );
    expect(stopped.cost).toBeGreaterThanOrEqual(maxCost - 0.000001); // the cap's moment is floored to the ms

    // Exactly one instance: one create reached the provider, one row, and it is gone at the end.
    expect(sims.runpod.control.requests({ method: 'POST', path: '/v2/pods' })).toHaveLength(1);
    expect(await db.sql('SELECT id FROM instances WHERE account_id = $1', [account.id])).toHaveLength(1);
    await eventually(
      'the pod to be terminated',
      () => (sims.runpod.control.instances(simKey).length === 0 ? true : undefined),
      30_000,
    );
    // Charges: one per interval, never twice, summing to the run's cost.
    const [sum] = await db.sql<{ total: string; n: string; keys: string }>(
      'SELECT sum(amount_micros) AS total, count(*) AS n, count(DISTINCT idempotency_key) AS keys ' +
        "FROM ledger_entries WHERE account_id = $1 AND type = 'instance_charge'",
      [account.id],
    );
    expect(sum!.keys).toBe(sum!.n);
    expect(-Number(sum!.total) / 1e6).toBe(stopped.cost);
  },
);

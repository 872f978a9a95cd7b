/**
 * A job survives its worker: workers are real child processes (`src/main-worker.ts`), two polling the task queue
 * as a deployment of two would. The one carrying out the attempt's create is killed with SIGKILL while Vast holds
 * the create's answer (the instance exists, the worker never hears of it), and the one carrying out the attempt's
 * terminate is killed while Vast holds that request. Simulator latency makes both windows certain: the kill is
 * asserted to fall between the request's arrival and its answer. A replacement starts after each kill. The job
 * still ends succeeded with one instance, nothing left running, and its cost equal to the ledger.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createTestContext, TEST_MASTER_KEY, type TestContext } from '../helpers/context';
import { eventually, killProcess, runEntry } from '../helpers/process';
import { TEST_MASTER_KEY_ENV } from '../helpers/temporal';
import { jobAttemptRowId } from '../../workflows/contracts/jobs';

jest.setTimeout(240_000);

let t: TestContext;
let server: Server;
let publicBaseUrl: string;
const workers: ReturnType<typeof runEntry>[] = [];

function startWorker() {
  const worker = runEntry('src/main-worker.ts', [], {
    DATABASE_URL: t.db.url,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: t.deps.temporal.taskQueue,
    // The test's Temporal payload key, and the API's key (the job's sealed env) as one still readable.
    ...TEST_MASTER_KEY_ENV,
    MASTER_ENCRYPTION_PREVIOUS_KEYS: `test:${TEST_MASTER_KEY.toString('base64')}`,
    RUNPOD_API_BASE_URL: t.sims.runpod.baseUrl,
    VASTAI_API_BASE_URL: t.sims.vastai.baseUrl,
    LAMBDA_API_BASE_URL: t.sims.lambda.baseUrl,
    PUBLIC_BASE_URL: publicBaseUrl,
    PRICING_REFRESH_INTERVAL: '1h',
    // info: its "worker polling" line says when it is up.
    LOG_LEVEL: 'info',
  });
  workers.push(worker);
  return worker;
}

const polling = (...ws: ReturnType<typeof runEntry>[]) =>
  eventually(
    'the workers polling',
    () => {
      const dead = ws.find((w) => w.child.exitCode !== null || w.child.signalCode !== null);
      if (dead) throw new Error(`a worker exited during start-up: ${dead.output().slice(-2000)}`);
      return ws.every((w) => w.output().includes('"worker polling"')) ? true : undefined;
    },
    120_000,
  );

/** The worker of this test whose Temporal identity (the SDK's default pid@host) is `identity`. */
function workerWith(identity: string | null | undefined) {
  const w = workers.find((x) => `${x.child.pid}@${os.hostname()}` === identity);
  if (!w) throw new Error(`no worker of this test has the identity ${identity}`);
  expect(w.child.exitCode === null && w.child.signalCode === null).toBe(true);
  return w;
}

/** The worker that started the workflow's latest task: the create runs as a local activity inside it. */
async function workflowTaskHolder(workflowId: string) {
  const history = await t.temporal.workflow.getHandle(workflowId).fetchHistory();
  return workerWith(
    (history.events ?? []).filter((e) => e.workflowTaskStartedEventAttributes).at(-1)
      ?.workflowTaskStartedEventAttributes?.identity,
  );
}

/** The worker running the workflow's pending (regular) activity, the terminate. */
async function activityHolder(workflowId: string) {
  return eventually('the terminate activity to be started', async () => {
    const { raw } = await t.temporal.workflow.getHandle(workflowId).describe();
    const identity = raw.pendingActivities?.find((a) => a.lastWorkerIdentity)?.lastWorkerIdentity;
    return identity ? workerWith(identity) : undefined;
  });
}

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: {
      pollIntervalMs: 1_000,
      meterIntervalMs: 2_000,
      spotPollIntervalMs: 1_000,
      activityTimeoutMs: 3_000,
    },
  });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  publicBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.sims.vastai.control.setBootDelay(300);
  await t.recordSimulatorPrices();
});
afterAll(async () => {
  for (const w of workers) await killProcess(w);
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

it('a worker SIGKILLed during the create and during the end: one instance, no leak, cost = ledger', async () => {
  const vast = t.sims.vastai.control;
  const createMatch = { method: 'PUT', path: /^\/api\/v0\/asks\// };
  const terminateMatch = { method: 'DELETE', path: /^\/api\/v0\/instances\/\d+\/?$/ };
  const a = await t.connectedAccount('vastai', { sshKey: false });
  await polling(startWorker(), startWorker());

  // The create takes effect at once and its answer is held: the worker running it dies in between.
  vast.setLatency(8_000, { match: createMatch, afterHandling: true });
  const res = await t.http
    .post('/v1/jobs')
    .set(a.auth)
    // Outlasts a worker's recovery (a workflow task's timeout) so the instance is metered before the exit.
    .send({
      gpu: 'rtx-4090',
      template: 'pytorch',
      command: 'echo started; sleep 25; exit 0',
      providers: ['vastai'],
      spot_policy: 'on-demand',
    })
    .expect(201);
  const jobId = res.body.id as string;
  const launchId = jobAttemptRowId(a.accountId, jobId, 1);
  await eventually(
    'Vast to have made the instance and hold the answer',
    () => (vast.instances(a.simKey).length === 1 && vast.pending(createMatch).length === 1 ? true : undefined),
    60_000,
    50,
  );
  const createHolder = await workflowTaskHolder(launchId);
  await killProcess(createHolder);
  const createKilledAt = Date.now();
  vast.setLatency(0);
  startWorker();
  // The kill fell inside the window: Vast answered that create only after the worker had died.
  const firstCreate = await eventually('the held create to be answered', () => vast.requests(createMatch)[0]);
  expect(firstCreate.at).toBeGreaterThanOrEqual(createKilledAt);

  const job = () => t.http.get(`/v1/jobs/${jobId}`).set(a.auth).expect(200);
  await eventually(
    'the attempt to run',
    async () => ((await job()).body.attempts[0]?.started_at ? true : undefined),
    90_000,
  );
  // The end: the terminate is held before Vast carries it out, and the worker running it dies meanwhile.
  vast.setLatency(6_000, { match: terminateMatch });
  await eventually(
    'Vast to hold the terminate',
    () => (vast.pending(terminateMatch).length === 1 ? true : undefined),
    90_000,
    50,
  );
  const terminateHolder = await activityHolder(launchId);
  await killProcess(terminateHolder);
  const terminateKilledAt = Date.now();
  vast.setLatency(0);
  startWorker();
  const firstTerminate = await eventually('the held terminate to be answered', () => vast.requests(terminateMatch)[0]);
  expect(firstTerminate.at).toBeGreaterThanOrEqual(terminateKilledAt);

  const ended = await eventually(
    'the job to end',
    async () => {
      const body = (await job()).body as { status: string };
      return ['succeeded', 'failed', 'cancelled'].includes(body.status) ? (await job()).body : undefined;
    },
    120_000,
    250,
  );
  expect(ended).toMatchObject({ status: 'succeeded', exit_code: 0 });
  expect(ended.attempts).toEqual([expect.objectContaining({ end_reason: 'exited', exit_code: 0 })]);
  const instanceId = ended.attempts[0].instance_id as string;

  // One instance: one create carried out at Vast, one row; none left running.
  expect(vast.requests(createMatch).filter((r) => r.status === 200)).toHaveLength(1);
  expect(await t.sql('SELECT id FROM instances WHERE account_id = $1', [a.accountId])).toEqual([{ id: launchId }]);
  expect(vast.instances(a.simKey)).toEqual([]);
  // Exact cost: each interval charged once, the charges = price × (metered_through − started_at) = the job's cost.
  const [row] = await t.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string }>(
    'SELECT started_at, metered_through, price_per_hour_micros FROM instances WHERE provider_instance_id = $1',
    [instanceId],
  );
  const [sum] = await t.sql<{ total: string; n: string; keys: string }>(
    `SELECT -sum(amount_micros) AS total, count(*) AS n, count(DISTINCT idempotency_key) AS keys
     FROM ledger_entries WHERE account_id = $1 AND type = 'instance_charge' AND instance_id = $2`,
    [a.accountId, instanceId],
  );
  expect(sum!.keys).toBe(sum!.n);
  expect(Number(sum!.total)).toBe(
    Math.round(
      (Number(row!.price_per_hour_micros) * (row!.metered_through.getTime() - row!.started_at.getTime())) / 3_600_000,
    ),
  );
  expect(Math.round(ended.cost * 1e6)).toBe(Number(sum!.total));
  expect(Number(sum!.total)).toBeGreaterThan(0);
});

/**
 * `npm run histories:record`: records the replay corpus of this commit. Starts its own stack (embedded Postgres,
 * the Temporal dev server, the provider simulators, stripe-mock, a worker and the webhook dispatcher, all
 * in-process through the test helpers, with compressed settings), drives every workflow family through its main
 * paths, and saves each workflow's history as `History` protobuf bytes (payloads sealed with the tests' Temporal
 * key) to `test/fixtures/histories/<workflowType>/<release>-<scenario>.pb`, where <release> is the short hash of
 * HEAD. test/workflows/replay.test.ts replays every file there on today's code.
 *
 * Record from released code, before changing a workflow (docs/operations.md, "Deploys"). Open workflows are
 * recorded as far as they got: the history so far replays too. Takes about a minute.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import request from 'supertest';
import { migrate } from '../src/db/migrate';
import { createLedgerQueries } from '../src/db/queries/ledger';
import { createApp } from '../src/http/app';
import { devServerArgs } from '../src/local/dev-server';
import { ensureDatabase, startEmbeddedPostgres } from '../src/local/embedded-postgres';
import { findOrBuildTool, TEMPORAL_CLI } from '../src/local/tool-binaries';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import { depletionWorkflowId } from '../workflows/contracts/billing';
import { jobAttemptRowId } from '../workflows/contracts/jobs';
import { observerWorkflowId } from '../workflows/contracts/observation';
import { ed25519Key } from '../test/fixtures/ssh-keys';
import { createTestContext, testVault, type TestContext } from '../test/helpers/context';
import { freePort } from '../test/helpers/ports';
import { eventually } from '../test/helpers/process';
import { checkoutCompletedEvent, signedDelivery, startTestStripe } from '../test/helpers/stripe';
import { createTemporalTestEnv } from '../test/helpers/temporal';
import { startReceiver, startWebhookDispatcher } from '../test/helpers/webhooks';

const ROOT = path.resolve(__dirname, '..');
const HISTORIES = path.join(ROOT, 'test/fixtures/histories');
const RELEASE = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
/** Compressed timings: a meter interval of a second, boots of 300 ms, idle-stop minutes of 300 ms, a 2 s grace. */
const TIMING = { pollIntervalMs: 300, meterIntervalMs: 1_000, bootPollMaxMs: 300, idleStopMinuteMs: 300 };
const GRACE_MS = 2_000;
const WAIT_MS = 60_000;

const saved: string[] = [];

/** Starts Postgres (a migrated template each context clones) and the dev server, as the tests' global setup does. */
async function startServices(dir: string) {
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), port: pgPort, fsync: false });
  await ensureDatabase(pg.url(), 'histories_template');
  await migrate(pg.url('histories_template'));
  // The dev server as a plain child process: the SDK's own launcher would install the Temporal runtime before the
  // test helpers do.
  const cli = await findOrBuildTool(TEMPORAL_CLI, (m) => process.stderr.write(m + '\n'));
  if (!cli) throw new Error('no Temporal CLI: run `npm run tools:install`');
  const server = spawn(
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(temporalPort),
      '--headless',
      '--log-level',
      'error',
      ...devServerArgs(),
    ],
    {
      stdio: 'ignore',
    },
  );
  await eventually(
    'the Temporal dev server',
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = connect(temporalPort, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        }).on('error', () => resolve(undefined));
      }),
    WAIT_MS,
    200,
  );
  process.env.TEST_PG_ADMIN_URL = pg.url();
  process.env.TEST_PG_TEMPLATE = 'histories_template';
  process.env.TEST_TEMPORAL_ADDRESS = `127.0.0.1:${temporalPort}`;
  return {
    stop: async () => {
      server.kill('SIGTERM');
      await pg.stop();
    },
  };
}

/**
 * Saves one run's history (the latest run of `workflowId` unless `runId`) as <workflowType>/<release>-<scenario>.pb.
 */
async function save(client: Client, scenario: string, workflowId: string, runId?: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const type = (await handle.describe()).type;
  const history = await handle.fetchHistory();
  const dir = path.join(HISTORIES, type);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${RELEASE}-${scenario}.pb`);
  await writeFile(file, proto.api.history.v1.History.encode(history).finish());
  saved.push(`${type}/${path.basename(file)} (${history.events?.length ?? 0} events)`);
}

/** The ids of every run of a workflow type so far (visibility lags a little: waits for at least one). */
async function idsOfType(client: Client, type: string): Promise<string[]> {
  return eventually(
    `a ${type} run in visibility`,
    async () => {
      const ids: string[] = [];
      for await (const w of client.workflow.list({ query: `WorkflowType = '${type}'` })) ids.push(w.workflowId);
      return ids.length > 0 ? ids : undefined;
    },
    WAIT_MS,
    200,
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-histories-'));
  // Undone in reverse order, whatever failed.
  const cleanups: (() => Promise<unknown>)[] = [() => rm(dir, { recursive: true, force: true })];
  try {
    const services = await startServices(dir);
    cleanups.push(services.stop);
    const stripe = await startTestStripe();
    cleanups.push(() => stripe.mock.stop());
    const t: TestContext = await createTestContext({ simulators: true, stripe: stripe.settings, launchTiming: TIMING });
    cleanups.push(() => t.close().catch((err: Error) => process.stderr.write(`context close: ${err.message}\n`)));
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const env = await createTemporalTestEnv();
    cleanups.push(() => env.close());
    const client = t.temporal;
    const taskQueue = t.deps.temporal.taskQueue;
    // Jobs: the API listens, so the simulated containers' wrapper reaches the exit endpoint.
    const jobsApi = createApp(t.deps).listen(0, '127.0.0.1');
    await new Promise((resolve) => jobsApi.once('listening', resolve));
    cleanups.push(() => new Promise((resolve) => jobsApi.close(resolve)));
    const jobsBaseUrl = `http://127.0.0.1:${(jobsApi.address() as { port: number }).port}`;
    await env.startWorker(
      t.workerDeps({
        jobs: { publicBaseUrl: jobsBaseUrl, vault: testVault() },
        temporal: { client, taskQueue },
        balanceGraceMs: GRACE_MS,
        pricingKeys: Object.fromEntries(PROVIDERS.map((p) => [p, t.sims[p].createKey()])),
        webhooks: {
          databaseUrl: t.db.url,
          settings: {
            allowedHosts: ['127.0.0.1'],
            retryScheduleMs: [200, 200, 200],
            timeoutMs: 2_000,
            dispatchTickMs: 500,
          },
        },
      }),
      taskQueue,
    );
    const dispatcher = await startWebhookDispatcher({ client, taskQueue, databaseUrl: t.db.url, tickMs: 500 });
    cleanups.push(() => dispatcher.stop());
    for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
    await t.recordSimulatorPrices();
    const http = request(createApp({ ...t.deps, webhooks: { allowedHosts: ['127.0.0.1'] } }).callback());
    await recordLaunches(t, http, client);
    await recordSchedule(t, http, client);
    await recordDepletion(t, http, client, stripe.settings.webhookSecret);
    await recordWebhooks(t, http, client, receiver, dispatcher.workflows.dispatcherId);
    await recordMaintenance(client, taskQueue);
    await recordJob(t, http, client);
    const monitors = await idsOfType(client, 'alertMonitor');
    await save(client, 'evaluating', monitors[0]!);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
  process.stdout.write(
    `recorded ${saved.length} histories of release ${RELEASE} under ${path.relative(ROOT, HISTORIES)}:\n  ` +
      `${saved.join('\n  ')}\n`,
  );
}

const launchBody = (provider: ProviderId, extra: Record<string, unknown> = {}) => ({
  provider,
  gpu_type: 'rtx-a6000',
  ...extra,
});

async function rowStatus(
  t: TestContext,
  providerInstanceId: string,
): Promise<{ id: string; status: string } | undefined> {
  return (
    await t.sql<{ id: string; status: string }>('SELECT id, status FROM instances WHERE provider_instance_id = $1', [
      providerInstanceId,
    ])
  )[0];
}

async function untilStatus(t: TestContext, providerInstanceId: string, status: string): Promise<string> {
  return eventually(
    `${providerInstanceId} ${status}`,
    async () => {
      const row = await rowStatus(t, providerInstanceId);
      return row?.status === status ? row.id : undefined;
    },
    WAIT_MS,
    100,
  );
}

/**
 * launchInstance: running (open, charged), stopped, terminated, preempted, idle-stopped, stopped-then-started,
 * stopped-storage-then-started; and the observer.
 */
async function recordLaunches(t: TestContext, http: ReturnType<typeof request>, client: Client): Promise<void> {
  const charged = (rowId: string) =>
    eventually(
      `a charge of ${rowId}`,
      async () =>
        (await t.sql('SELECT 1 FROM instances WHERE id = $1 AND metered_through > started_at', [rowId])).length > 0
          ? true
          : undefined,
      WAIT_MS,
    );

  const running = await t.connectedAccount('runpod');
  const pod = (await http.post('/v1/compute/launch').set(running.auth).send(launchBody('runpod')).expect(201)).body
    .id as string;
  const podRow = await untilStatus(t, pod, 'running');
  await charged(podRow);
  await save(client, 'running', podRow);
  await save(client, 'watching-one', observerWorkflowId(running.accountId, 'runpod'));

  await http.post(`/v1/compute/${pod}/stop`).set(running.auth).expect(200);
  await save(client, 'stopped', podRow);

  const box = await t.connectedAccount('vastai');
  const boxId = (await http.post('/v1/compute/launch').set(box.auth).send(launchBody('vastai')).expect(201)).body
    .id as string;
  const boxRow = await untilStatus(t, boxId, 'running');
  await charged(boxRow);
  await http.post(`/v1/compute/${boxId}/terminate`).set(box.auth).expect(200);
  await client.workflow.getHandle(boxRow).result();
  await save(client, 'terminated', boxRow);

  const spot = await t.connectedAccount('vastai');
  const spotId = (
    await http
      .post('/v1/compute/launch')
      .set(spot.auth)
      .send(launchBody('vastai', { spot: true }))
      .expect(201)
  ).body.id as string;
  const spotRow = await untilStatus(t, spotId, 'running');
  t.sims.vastai.control.preempt(spot.simKey, spotId, 'remove');
  await client.workflow.getHandle(spotRow).result();
  await save(client, 'preempted', spotRow);
  // The observer ends a round after it has nothing left to watch.
  const spotObserver = client.workflow.getHandle(observerWorkflowId(spot.accountId, 'vastai'));
  await spotObserver.result();
  await save(client, 'spot-preempted-then-done', spotObserver.workflowId);

  // The simulators report 0 % utilization unless told otherwise: idle from the start.
  const idle = await t.connectedAccount('vastai');
  const idleRule = { utilization_below_percent: 20, for_minutes: 2 };
  const idleId = (
    await http
      .post('/v1/compute/launch')
      .set(idle.auth)
      .send(launchBody('vastai', { gpu_type: 'rtx-4090', idle_stop: idleRule }))
      .expect(201)
  ).body.id as string;
  const idleRow = await untilStatus(t, idleId, 'running');
  await client.workflow.getHandle(idleRow).result();
  await save(client, 'idle-stopped', idleRow);

  await http.post(`/v1/compute/${pod}/terminate`).set(running.auth).expect(200);
  await client.workflow.getHandle(podRow).result();
  await save(client, 'stopped-then-terminated', podRow);

  // A pod stopped for a few meter intervals (its workflow sleeps from boundary to boundary), then started again
  // at RunPod: the observer sees it running and metering resumes.
  const resumed = await t.connectedAccount('runpod');
  const resumedPod = (await http.post('/v1/compute/launch').set(resumed.auth).send(launchBody('runpod')).expect(201))
    .body.id as string;
  const resumedRow = await untilStatus(t, resumedPod, 'running');
  await http.post(`/v1/compute/${resumedPod}/stop`).set(resumed.auth).expect(200);
  await new Promise((r) => setTimeout(r, 3 * TIMING.meterIntervalMs));
  const started = await fetch(`${t.sims.runpod.baseUrl}/pods/${resumedPod}/action`, {
    method: 'POST',
    headers: { authorization: `Bearer ${resumed.simKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'start' }),
  });
  if (started.status !== 200) throw new Error(`the simulator answered ${started.status} to start`);
  await untilStatus(t, resumedPod, 'running');
  await save(client, 'stopped-then-started', resumedRow);

  // A pod with a 100 GB volume stopped for a few meter intervals (its storage charged at each boundary), then
  // started through the API (a start update) and terminated.
  const stored = await t.connectedAccount('runpod');
  const storedPod = (
    await http
      .post('/v1/compute/launch')
      .set(stored.auth)
      .send(launchBody('runpod', { volume_gb: 100 }))
      .expect(201)
  ).body.id as string;
  const storedRow = await untilStatus(t, storedPod, 'running');
  await http.post(`/v1/compute/${storedPod}/stop`).set(stored.auth).expect(200);
  await eventually(
    'three storage charges',
    async () =>
      (
        await t.sql("SELECT 1 FROM ledger_entries WHERE type = 'instance_storage_charge' AND account_id = $1", [
          stored.accountId,
        ])
      ).length >= 3
        ? true
        : undefined,
    WAIT_MS,
  );
  await http.post(`/v1/compute/${storedPod}/start`).set(stored.auth).expect(200);
  await http.post(`/v1/compute/${storedPod}/terminate`).set(stored.auth).expect(200);
  await client.workflow.getHandle(storedRow).result();
  await save(client, 'stopped-storage-then-started', storedRow);
}

/**
 * scheduleRun: a triggered run stopped at max_duration_hours, with its launch child; a run whose job's script exits 3,
 * with its job.
 */
async function recordSchedule(t: TestContext, http: ReturnType<typeof request>, client: Client): Promise<void> {
  const account = await t.newAccount();
  await http
    .post('/v1/settings/providers')
    .set(account.auth)
    .send({ provider: 'runpod', api_key: t.sims.runpod.createKey() })
    .expect(201);
  await http.post('/v1/ssh-keys').set(account.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
  // Feb 29th at 03:17: never fires by itself; the run comes from `trigger`. 0.001 h = 3.6 s.
  const schedule = (
    await http
      .post('/v1/schedules')
      .set(account.auth)
      .send({
        name: 'nightly',
        gpu: 'rtx-4090',
        template: 'pytorch',
        cron: '17 3 29 2 *',
        max_duration_hours: 0.001,
        prefer_spot: false,
      })
      .expect(201)
  ).body as { id: string };
  await http.post(`/v1/schedules/${schedule.id}/trigger`).set(account.auth).expect(202);
  const run = await eventually(
    'the run to stop at max_duration_hours',
    async () => {
      const runs = (await http.get(`/v1/schedules/${schedule.id}/runs`).set(account.auth).expect(200)).body.data as {
        status: string;
        instance_id: string | null;
      }[];
      return runs.find((r) => r.status === 'stopped_max_duration');
    },
    WAIT_MS * 2,
    200,
  );
  const [runWorkflow] = await idsOfType(client, 'scheduleRun');
  await client.workflow.getHandle(runWorkflow!).result();
  await save(client, 'stopped-max-duration', runWorkflow!);
  const launchRow = await untilStatus(t, run.instance_id!, 'terminated');
  await client.workflow.getHandle(launchRow).result();
  await save(client, 'scheduled-run-max-duration', launchRow);

  // A run is a job: its startup script exits 3, the wrapper reports it, the run fails with that exit code.
  const failing = (
    await http
      .post('/v1/schedules')
      .set(account.auth)
      .send({
        name: 'nightly-failing',
        gpu: 'rtx-4090',
        template: 'pytorch',
        cron: '17 3 29 2 *',
        prefer_spot: false,
        startup_script: 'echo nightly; sleep 2; exit 3',
      })
      .expect(201)
  ).body as { id: string };
  await http.post(`/v1/schedules/${failing.id}/trigger`).set(account.auth).expect(202);
  const failed = await eventually(
    'the run to fail with exit code 3',
    async () => {
      const runs = (await http.get(`/v1/schedules/${failing.id}/runs`).set(account.auth).expect(200)).body.data as {
        status: string;
        job_id: string | null;
        exit_code: number | null;
      }[];
      return runs.find((r) => r.status === 'failed' && r.exit_code === 3);
    },
    WAIT_MS * 2,
    200,
  );
  const [failingRow] = await t.sql<{ workflow_id: string }>(
    'SELECT workflow_id FROM schedule_runs WHERE schedule_id = $1',
    [failing.id],
  );
  const failingRun = failingRow!.workflow_id;
  await client.workflow.getHandle(failingRun).result();
  await save(client, 'job-exit-3', failingRun);
  await save(client, 'scheduled-exit-3', `job-${failed.job_id}`);
}

/** runJob: a Vast spot attempt preempted, then an on-demand attempt whose command exits 0 (the exit report). */
async function recordJob(t: TestContext, http: ReturnType<typeof request>, client: Client): Promise<void> {
  const account = await t.newAccount();
  const key = t.sims.vastai.createKey();
  await http.post('/v1/settings/providers').set(account.auth).send({ provider: 'vastai', api_key: key }).expect(201);
  const job = (
    await http
      .post('/v1/jobs')
      .set(account.auth)
      .send({
        gpu: 'rtx-4090',
        template: 'pytorch',
        command: 'echo trained; sleep 3; exit 0',
        env: { SECRET: 'not in history' },
        providers: ['vastai'],
        retry: { on: ['preemption'], max_attempts: 2, within: '1h', on_demand_after_preemptions: 1 },
      })
      .expect(201)
  ).body as { id: string };
  const first = await eventually(
    'the first attempt to run',
    async () => {
      const j = (await http.get(`/v1/jobs/${job.id}`).set(account.auth).expect(200)).body as {
        attempts: { started_at: string | null; instance_id: string }[];
      };
      return j.attempts[0]?.started_at ? j.attempts[0] : undefined;
    },
    WAIT_MS,
    200,
  );
  t.sims.vastai.control.preempt(key, first.instance_id);
  await client.workflow.getHandle(`job-${job.id}`).result();
  await save(client, 'preempted-then-succeeded', `job-${job.id}`);
  await recordJobExitBeforeSeen(t, http, client);
}

/**
 * launchInstance: a job attempt whose command reports its exit before the instance was seen running (every look
 * at the account's instances fails), so the terminate comes first.
 */
async function recordJobExitBeforeSeen(t: TestContext, http: ReturnType<typeof request>, client: Client) {
  const account = await t.newAccount();
  const key = t.sims.vastai.createKey();
  await http.post('/v1/settings/providers').set(account.auth).send({ provider: 'vastai', api_key: key }).expect(201);
  // Every look fails (the observer's lists, the look before an end): nothing sees the instance running.
  t.sims.vastai.control.serverErrors(10_000, { match: { key, method: 'GET', path: /^\/api\/v[01]\/instances\// } });
  const job = (
    await http
      .post('/v1/jobs')
      .set(account.auth)
      .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'exit 0', providers: ['vastai'] })
      .expect(201)
  ).body as { id: string };
  await client.workflow.getHandle(`job-${job.id}`).result();
  const launchId = jobAttemptRowId(account.accountId, job.id, 1);
  await client.workflow.getHandle(launchId).result();
  await save(client, 'job-exit-before-seen', launchId);
}

/** balanceDepletion: a grace that ran out (instances ended), and a top-up during the grace (idle once terminated). */
async function recordDepletion(
  t: TestContext,
  http: ReturnType<typeof request>,
  client: Client,
  stripeWebhookSecret: string,
): Promise<void> {
  const ledger = createLedgerQueries(t.db.pool);
  const drain = async (accountId: string, instanceId: string, leftMicros: number) =>
    ledger.postEntry({
      accountId,
      type: 'instance_charge',
      amountMicros: -((await ledger.getBalance(accountId)) - leftMicros),
      description: 'GPU time (elsewhere)',
      instanceId,
      idempotencyKey: `drain-${randomBytes(6).toString('hex')}`,
    });
  const depleted = async (accountId: string) =>
    eventually(
      'billing.balance_depleted',
      async () =>
        (await t.sql("SELECT 1 FROM events WHERE account_id = $1 AND type = 'billing.balance_depleted'", [accountId]))
          .length > 0
          ? true
          : undefined,
      WAIT_MS,
    );

  const ended = await t.connectedAccount('vastai');
  const endedId = (await http.post('/v1/compute/launch').set(ended.auth).send(launchBody('vastai')).expect(201)).body
    .id as string;
  await untilStatus(t, endedId, 'running');
  await drain(ended.accountId, endedId, 5);
  await depleted(ended.accountId);
  await client.workflow.getHandle(depletionWorkflowId(ended.accountId)).result();
  await save(client, 'instances-ended', depletionWorkflowId(ended.accountId));

  const topped = await t.connectedAccount('vastai');
  const toppedId = (await http.post('/v1/compute/launch').set(topped.auth).send(launchBody('vastai')).expect(201)).body
    .id as string;
  await untilStatus(t, toppedId, 'running');
  await drain(topped.accountId, toppedId, 5);
  await depleted(topped.accountId);
  const session = await http.post('/v1/billing/credit').set(topped.auth).send({ amount: 50 }).expect(201);
  const paid = signedDelivery(
    checkoutCompletedEvent({ id: session.body.session_id, accountId: topped.accountId, amountTotalCents: 5000 }),
    stripeWebhookSecret,
  );
  await http
    .post('/v1/billing/stripe/webhook')
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', paid.signature)
    .send(paid.body)
    .expect(200);
  await eventually(
    'the depletion episode to close',
    async () =>
      (
        await t.sql<{ open: boolean }>(
          'SELECT depleted_at IS NOT NULL AS open FROM account_balances WHERE account_id = $1',
          [topped.accountId],
        )
      )[0]?.open
        ? undefined
        : true,
    WAIT_MS,
  );
  await http.post(`/v1/compute/${toppedId}/terminate`).set(topped.auth).expect(200);
  await client.workflow.getHandle(depletionWorkflowId(topped.accountId)).result();
  await save(client, 'topped-up-then-idle', depletionWorkflowId(topped.accountId));
}

/** webhookDispatcher and webhookDelivery: a test event whose first attempt fails and whose retry succeeds. */
async function recordWebhooks(
  t: TestContext,
  http: ReturnType<typeof request>,
  client: Client,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  dispatcherId: string,
): Promise<void> {
  const account = await t.newAccount();
  const hook = (
    await http
      .post('/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/hook'), events: ['webhook.test'] })
      .expect(201)
  ).body as { id: string };
  receiver.plan('/hook', [500]);
  await http
    .post(`/v1/webhooks/${hook.id}/test`)
    .set(account.auth)
    .expect((res) => {
      if (res.status >= 300) throw new Error(`webhook test answered ${res.status}`);
    });
  await eventually(
    'the retried delivery to succeed',
    () => (receiver.on('/hook').some((r) => r.status === 200) ? true : undefined),
    WAIT_MS,
  );
  const [delivery] = await idsOfType(client, 'webhookDelivery');
  await client.workflow.getHandle(delivery!).result();
  await save(client, 'failed-then-delivered', delivery!);
  await save(client, 'dispatching', dispatcherId);
}

/** healthProbe, pricingRefresh and reconcileInstances, started directly (their schedules start the same workflows). */
async function recordMaintenance(client: Client, taskQueue: string): Promise<void> {
  const run = async (type: string, args: unknown[], scenario: string) => {
    const workflowId = `record-${type}-${randomBytes(4).toString('hex')}`;
    await client.workflow.execute(type, { taskQueue, workflowId, args });
    await save(client, scenario, workflowId);
  };
  await run('healthProbe', [{ message: 'record' }], 'probe');
  await run('pricingRefresh', [], 'all-providers');
  await run('reconcileInstances', [], 'pass');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`histories:record failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);

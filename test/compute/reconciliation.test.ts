/**
 * Reconciliation (`reconcileInstances`, run by the `instance-reconciliation` schedule) on the real dev
 * server: instances of ours that no workflow manages are terminated or adopted per configuration, rows
 * whose instance vanished are finished with a final charge, and everything else is left alone: live
 * launches, and the account's own instances that we did not create.
 */
import { randomBytes } from 'node:crypto';
import { createInstanceQueries } from '../../src/db/queries/instances';
import type { ProviderId } from '../../src/providers/types';
import { reconcileInstances } from '../../workflows';
import { createTestContext, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, uniqueTaskQueue, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';
import { terminated } from '../helpers/terminate';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
const timing = { pollIntervalMs: 1_000, meterIntervalMs: 1_000, bootPollMaxMs: 300 };
const adoptQueue = uniqueTaskQueue('adopt');

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: timing });
  temporal = await createTemporalTestEnv();
  const temporalClient = { client: t.temporal, taskQueue: t.deps.temporal.taskQueue };
  // One worker per setting; adopted instances' workflows run on the main queue either way.
  await temporal.startWorker(
    t.workerDeps({ temporal: temporalClient, reconcile: { orphans: 'terminate', launchTiming: timing } }),
    t.deps.temporal.taskQueue,
  );
  await temporal.startWorker(
    t.workerDeps({ temporal: temporalClient, reconcile: { orphans: 'adopt', launchTiming: timing } }),
    adoptQueue,
  );
  t.sims.runpod.control.setBootDelay(300);
  t.sims.vastai.control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

function reconcile(mode: 'terminate' | 'adopt') {
  return t.temporal.workflow.execute(reconcileInstances, {
    taskQueue: mode === 'adopt' ? adoptQueue : t.deps.temporal.taskQueue,
    workflowId: `reconcile-test-${randomBytes(4).toString('hex')}`,
  });
}

async function launchRunning(a: { auth: { Authorization: string } }, provider: ProviderId) {
  const res = await t.http.post('/v1/compute/launch').set(a.auth).send({ provider, gpu_type: 'rtx-a6000' });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  const [row] = await eventually(`${id} running`, async () => {
    const r = await t.sql<{ id: string; started_at: Date | null }>(
      'SELECT id, started_at FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    return r[0]?.started_at ? r : undefined;
  });
  return { id, rowId: row!.id };
}

/** An operator (or a bug) ends the workflow: the instance runs on with nobody watching it. */
async function killWorkflow(rowId: string) {
  await t.temporal.workflow.getHandle(rowId).terminate('killed by the test');
}

const rowOf = async (id: string) =>
  (
    await t.sql<{ status: string; end_reason: string | null; warnings: string[]; metered_through: Date | null }>(
      'SELECT status, end_reason, warnings, metered_through FROM instances WHERE provider_instance_id = $1',
      [id],
    )
  )[0]!;

it(
  'terminates an instance of ours that a failed launch left behind, ' +
    "and leaves live launches and the account's own instances alone",
  async () => {
    const a = await t.connectedAccount('runpod');
    const live = await launchRunning(a, 'runpod');
    // A launch failed, and its compensation never reached the provider: the row says failed, the pod runs.
    const queries = createInstanceQueries(t.db.pool);
    await queries.insertIntent({
      id: `launch-${a.accountId}-lost`,
      accountId: a.accountId,
      requestHash: 'x',
      provider: 'runpod',
      providerName: 'job-0123456789',
      name: 'job',
      gpuType: 'rtx-a6000',
      gpuCount: 1,
      spot: false,
      region: null,
      dockerImage: null,
      warnings: [],
    });
    await queries.markLaunchFailed(`launch-${a.accountId}-lost`, 'the test says so');
    const spec = { gpuType: 'rtx-a6000' as const, gpuCount: 1, spot: false };
    const leaked = await t.deps.adapters.runpod.launch(a.simKey, { ...spec, name: 'job-0123456789' });
    const own = await t.deps.adapters.runpod.launch(a.simKey, { ...spec, name: 'my-own-pod' });

    const summary = await reconcile('terminate');
    expect(summary.terminated).toBeGreaterThanOrEqual(1);
    const remaining = t.sims.runpod.control
      .instances(a.simKey)
      .map((i) => i.id)
      .sort();
    expect(remaining).toEqual([live.id, own.id].sort());
    expect(remaining).not.toContain(leaked.id);
    expect((await rowOf(live.id)).status).toBe('running');
    await terminated(t.http, a.auth, live.id);
  },
);

it(
  'terminates a running instance whose workflow is gone (terminate setting), ' + 'with the reason in its record',
  async () => {
    const a = await t.connectedAccount('runpod');
    const { id, rowId } = await launchRunning(a, 'runpod');
    await killWorkflow(rowId);
    await reconcile('terminate');
    expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]);
    const row = await rowOf(id);
    expect(row.status).toBe('terminated');
    expect(row.end_reason).toMatch(/reconciliation/);
    const res = await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'terminated', end_reason: expect.stringMatching(/reconciliation/) });
  },
);

it(
  'adopts a running instance whose workflow is gone (adopt setting): ' +
    'managed again, metered from the adoption, warned about',
  async () => {
    const a = await t.connectedAccount('vastai');
    const { id, rowId } = await launchRunning(a, 'vastai');
    await killWorkflow(rowId);
    const adoptedAt = Date.now();
    const summary = await reconcile('adopt');
    expect(summary.adopted).toBe(1);
    const description = await t.temporal.workflow.getHandle(rowId).describe();
    expect(description.status.name).toBe('RUNNING');
    await eventually('a charge after the adoption', async () => {
      const row = await rowOf(id);
      return row.metered_through && row.metered_through.getTime() > adoptedAt + 500 ? true : undefined;
    });
    const listed = (await t.http.get('/v1/compute').set(a.auth)).body.data.find((i: { id: string }) => i.id === id);
    expect(listed.warnings.join(' ')).toMatch(/Adopted by reconciliation/);
    const res = await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('terminated');
    expect(t.sims.vastai.control.instances(a.simKey)).toEqual([]);
  },
);

it(
  'finishes a row whose instance vanished at the provider while nobody watched, ' + 'with a final charge and event',
  async () => {
    const a = await t.connectedAccount('vastai');
    const { id, rowId } = await launchRunning(a, 'vastai');
    await killWorkflow(rowId);
    const before = (await rowOf(id)).metered_through!.getTime();
    await t.deps.adapters.vastai.terminate(a.simKey, id);
    const summary = await reconcile('terminate');
    expect(summary.finished).toBe(1);
    const row = await rowOf(id);
    expect(row.status).toBe('terminated');
    expect(row.metered_through!.getTime()).toBeGreaterThan(before);
    const events = await t.sql<{ type: string; data: { reason?: string } }>(
      'SELECT type, data FROM events WHERE account_id = $1 ORDER BY created_at',
      [a.accountId],
    );
    expect(events.map((e) => e.type)).toEqual(['instance.started', 'instance.terminated']);
    expect(events[1]!.data.reason).toMatch(/no longer knows/);
  },
);

it('ended here, run on by its provider: not listed live, its record terminating; reconciliation ends it', async () => {
  const a = await t.connectedAccount('runpod');
  const { id, rowId } = await launchRunning(a, 'runpod');
  await killWorkflow(rowId);
  // Ended on our side, but the terminate did not stick: the pod still runs at RunPod.
  await createInstanceQueries(t.db.pool).markEnded(rowId, 'terminated', 'instance.terminated', new Date());
  type Detail = { status: string; provider_status: string | null; warnings?: string[]; provider_view?: object };
  const detail = async () => (await t.http.get(`/v1/compute/${id}`).set(a.auth).expect(200)).body as Detail;
  const liveIds = async () =>
    ((await t.http.get('/v1/compute?refresh=true').set(a.auth).expect(200)).body.data as { id: string }[]).map(
      (i) => i.id,
    );

  expect(await liveIds()).not.toContain(id);
  const stillRunning = await eventually('a round after the end to list the pod', async () => {
    await liveIds();
    const d = await detail();
    return d.provider_view ? d : undefined;
  });
  expect(stillRunning).toMatchObject({
    status: 'terminating',
    provider_status: 'RUNNING',
    provider_view: { status: 'running', provider_status: 'RUNNING' },
  });
  expect(stillRunning.warnings!.join(' ')).toMatch(
    /runpod still lists it \(RUNNING\); the service keeps terminating it/,
  );

  await reconcile('terminate');
  expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]);
  expect(await liveIds()).not.toContain(id);
  const ended = await eventually('the record to read terminated', async () => {
    await liveIds();
    const d = await detail();
    return d.status === 'terminated' ? d : undefined;
  });
  expect(ended.provider_status).toBeNull();
});

const PROVIDERS = ['runpod', 'vastai', 'lambda'] as const;
type Provider = (typeof PROVIDERS)[number];

/** Each provider's create call, as the adapter sends it. */
const CREATE = {
  runpod: { method: 'POST', path: /^\/v2\/pods$/ },
  vastai: { method: 'PUT', path: /^\/api\/v0\/asks\/[^/]+\/?$/ },
  lambda: { method: 'POST', path: /\/instance-operations\/launch$/ },
} as const;

const launchBody = (provider: Provider) =>
  provider === 'lambda'
    ? { provider, gpu_type: 'h100-80gb-sxm', region: 'us-east-1' }
    : { provider, gpu_type: 'rtx-a6000' };

/** The account's instances as GET /v1/compute lists them after a fresh look at the provider. */
async function listed(auth: { Authorization: string }) {
  const res = await t.http.get('/v1/compute?refresh=true').set(auth);
  expect(res.status).toBe(200);
  return res.body.data as { id: string; managed: boolean }[];
}

// The providers side by side in one test: reconciliation looks at every account, so these must not overlap the
// tests above that leave an instance without its workflow on purpose.
it(
  'a create the provider is still processing when its call times out is never sent twice ' +
    '(12 s of latency on create, each provider): one instance per launch, none unmanaged after a reconciliation',
  async () => {
    const launches = await Promise.all(
      PROVIDERS.map(async (provider) => {
        const a = await t.connectedAccount(provider);
        const sim = t.sims[provider].control;
        // The adapters here time out after 2 s; the provider waits 12 s before it even starts on the create.
        sim.setLatency(12_000, { match: { ...CREATE[provider], key: a.simKey } });
        try {
          const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody(provider));
          expect(res.status).toBe(201);
          return { provider, a, id: res.body.id as string };
        } finally {
          sim.setLatency(0, { match: { key: a.simKey } });
        }
      }),
    );
    await reconcile('terminate');
    for (const { provider, a, id } of launches) {
      const sim = t.sims[provider].control;
      expect((await listed(a.auth)).map((i) => [i.id, i.managed])).toEqual([[id, true]]);
      expect(sim.instances(a.simKey).map((i) => i.id)).toEqual([id]);
      expect(sim.requests({ ...CREATE[provider], key: a.simKey })).toHaveLength(1);
      await terminated(t.http, a.auth, id);
    }
  },
);

it(
  "ends, within one reconciliation, a second instance carrying a live launch's tagged name " + '(each provider)',
  async () => {
    const launches = await Promise.all(
      PROVIDERS.map(async (provider) => {
        const a = await t.connectedAccount(provider);
        const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody(provider));
        expect(res.status).toBe(201);
        const id = res.body.id as string;
        const [row] = await t.sql<{ provider_name: string }>(
          'SELECT provider_name FROM instances WHERE provider_instance_id = $1',
          [id],
        );
        // What a create sent twice leaves: the provider made the launch's instance twice under its name.
        const extra = await t.deps.adapters[provider].launch(a.simKey, {
          ...(provider === 'lambda'
            ? { gpuType: 'h100-80gb-sxm' as const, region: 'us-east-1', sshKeyName: 'laptop' }
            : { gpuType: 'rtx-a6000' as const }),
          gpuCount: 1,
          spot: false,
          name: row!.provider_name,
        });
        return { provider, a, id, extra: extra.id };
      }),
    );
    for (const { a, id, extra } of launches) {
      expect((await listed(a.auth)).map((i) => i.id).sort()).toEqual([id, extra].sort());
    }
    await reconcile('terminate');
    for (const { provider, a, id } of launches) {
      expect(t.sims[provider].control.instances(a.simKey).map((i) => i.id)).toEqual([id]);
      expect((await listed(a.auth)).map((i) => [i.id, i.managed])).toEqual([[id, true]]);
      expect((await rowOf(id)).status).toBe('running');
      await terminated(t.http, a.auth, id);
    }
  },
);

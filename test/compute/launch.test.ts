/**
 * Instances end to end on the real Temporal dev server, real Postgres and the provider simulators:
 * launch through the API → launchInstance workflow → running → instance.started → charges → terminate →
 * final charge → instance.terminated. Short poll/meter intervals keep it fast; nothing sleeps to wait.
 */
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { createTestContext, TEST_STARTING_CREDIT_DOLLARS, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';
import { terminated } from '../helpers/terminate';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 1_000 } });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Auth = { Authorization: string };

const launchBody = (provider: ProviderId, extra: Record<string, unknown> = {}) => ({
  provider,
  gpu_type: provider === 'lambda' ? 'h100-80gb-sxm' : 'rtx-a6000',
  ...(provider === 'lambda' ? { region: 'us-east-1' } : {}),
  ...extra,
});

const events = (accountId: string) =>
  t.sql<{ type: string; data: Record<string, unknown> }>(
    'SELECT type, data FROM events WHERE account_id = $1 ORDER BY created_at',
    [accountId],
  );
const transactions = async (auth: Auth) =>
  (await t.http.get('/v1/billing/transactions?type=instance_charge').set(auth)).body.data as {
    amount: number;
    instance_id: string;
    balance_after: number;
  }[];

async function waitForStatus(auth: Auth, id: string, status: string) {
  return eventually(
    `instance ${id} to be ${status}`,
    async () => {
      const res = await t.http.get('/v1/compute').set(auth);
      const found = (res.body.data as { id: string; status: string }[]).find((i) => i.id === id);
      return found?.status === status ? found : undefined;
    },
    30_000,
    150,
  );
}

it.concurrent.each(PROVIDERS)(
  'launch → running → charges → terminate: %s: runs the whole life with events and exact charges',
  async (provider) => {
    const a = await t.connectedAccount(provider);
    const launched = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody(provider));
    const launchAnsweredAt = Date.now();
    expect(launched.status).toBe(201);
    expect(launched.body).toMatchObject({
      provider,
      managed: true,
      gpu_count: 1,
      status: expect.stringMatching(/provisioning|running/),
    });
    const id = launched.body.id as string;

    // The simulator holds exactly this instance, with the account's default SSH key on it.
    const atSim = t.sims[provider].control.instances(a.simKey);
    expect(atSim.map((i) => i.id)).toEqual([id]);
    expect(atSim[0]!.sshKeys.join('\n')).toContain(a.publicKey.split(' ')[1]);

    await waitForStatus(a.auth, id, 'running');
    await eventually('instance.started', async () =>
      (await events(a.accountId)).some((e) => e.type === 'instance.started') ? true : undefined,
    );
    await eventually(
      'a metered charge',
      async () => ((await transactions(a.auth)).length >= 1 ? true : undefined),
      15_000,
    );

    const terminateSentAt = Date.now();
    const terminated = await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth);
    const terminateAnsweredAt = Date.now();
    expect(terminated.status).toBe(200);
    expect(terminated.body).toMatchObject({
      id,
      status: 'terminated',
      provider_status: null,
      price_per_hour: launched.body.price_per_hour,
    });
    // Lambda reports `terminating` for a moment before the instance leaves its list.
    await eventually('the provider to drop the instance', () =>
      t.sims[provider].control.instances(a.simKey).length === 0 ? true : undefined,
    );
    expect((await events(a.accountId)).map((e) => e.type)).toEqual(['instance.started', 'instance.terminated']);

    // Charges: exact to the microdollar, from started_at to ended metering, never overlapping.
    const [row] = await t.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string }>(
      'SELECT started_at, metered_through, price_per_hour_micros FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    // Metered time is the time it ran, on the provider's clock: from the start it reports (RunPod's in whole
    // seconds; created + 300 ms boot), or for Lambda, which reports none and bills from the launch, from when it
    // accepted the create (before the launch was answered), never from a later look of ours; to the terminate.
    const runningSince = Date.parse(atSim[0]!.createdAt) + 300;
    expect(row!.started_at.getTime() - runningSince).toBeGreaterThanOrEqual(-1_000);
    expect(row!.started_at.getTime()).toBeLessThanOrEqual(provider === 'lambda' ? launchAnsweredAt : runningSince);
    expect(row!.metered_through.getTime()).toBeGreaterThanOrEqual(terminateSentAt);
    expect(row!.metered_through.getTime()).toBeLessThanOrEqual(terminateAnsweredAt);
    expect(Number(row!.price_per_hour_micros)).toBe(Math.round(launched.body.price_per_hour * 1_000_000));
    const elapsedMs = row!.metered_through.getTime() - row!.started_at.getTime();
    const expectedMicros = Math.round((Number(row!.price_per_hour_micros) * elapsedMs) / 3_600_000);
    const charges = await transactions(a.auth);
    const totalMicros = Math.round(charges.reduce((s, c) => s + c.amount, 0) * 1_000_000);
    expect(-totalMicros).toBe(expectedMicros);
    expect(charges.every((c) => c.instance_id === id && c.amount <= 0)).toBe(true);
    // The balance is the account's starting credit less exactly these charges.
    const balance = (await t.http.get('/v1/billing/balance').set(a.auth)).body.balance;
    expect(Math.round(balance * 1e6)).toBe(TEST_STARTING_CREDIT_DOLLARS * 1e6 + totalMicros);

    // Terminating again is a 200 no-op, and nothing is charged after the end.
    const again = await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('terminated');
    expect((await transactions(a.auth)).length).toBe(charges.length);
  },
);

it.concurrent(
  'a launch through the API records no version marker: its only markers are its two local activities, ' +
    'its only search-attribute upsert the instance id',
  async () => {
    const a = await t.connectedAccount('runpod');
    await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .set('Idempotency-Key', 'no-marker')
      .send(launchBody('runpod'))
      .expect(201);
    const handle = t.deps.temporal.client.workflow.getHandle(`launch-${a.accountId}-no-marker`);
    const history = await eventually(
      'the launch to be marked running',
      async () => {
        const h = await handle.fetchHistory();
        const markers = (h.events ?? [])
          .filter((e) => e.markerRecordedEventAttributes)
          .map((e) => e.markerRecordedEventAttributes!.markerName);
        return markers.length >= 2 ? { h, markers } : undefined;
      },
      30_000,
      150,
    );
    expect(history.markers).toEqual(['core_local_activity', 'core_local_activity']);
    const upserts = (history.h.events ?? []).filter((e) => e.upsertWorkflowSearchAttributesEventAttributes);
    expect(
      upserts.map((e) =>
        Object.keys(e.upsertWorkflowSearchAttributesEventAttributes!.searchAttributes?.indexedFields ?? {}),
      ),
    ).toEqual([['GpuoInstanceId']]);
    const { provider_instance_id } = await handle.query<{ provider_instance_id: string }>('instance');
    await t.http.post(`/v1/compute/${provider_instance_id}/terminate`).set(a.auth).expect(200);
  },
);

it.concurrent(
  'stop: stops a runpod instance and ends its metering; the others answer 422 and say to terminate',
  async () => {
    const a = await t.connectedAccount('runpod');
    const id = (await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('runpod')).expect(201)).body.id;
    await waitForStatus(a.auth, id, 'running');
    const stopped = await t.http.post(`/v1/compute/${id}/stop`).set(a.auth);
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('stopped');
    expect(stopped.body.provider_status).toBe('EXITED');
    expect((await events(a.accountId)).map((e) => e.type)).toContain('instance.stopped');
    await terminated(t.http, a.auth, id);

    for (const provider of ['vastai', 'lambda'] as const) {
      const b = await t.connectedAccount(provider);
      const other = (await t.http.post('/v1/compute/launch').set(b.auth).send(launchBody(provider)).expect(201)).body
        .id;
      const res = await t.http.post(`/v1/compute/${other}/stop`).set(b.auth);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unsupported_operation');
      expect(res.body.error.message).toMatch(/terminate/);
      await terminated(t.http, b.auth, other);
    }
  },
);

it.concurrent(
  'launch validation and refusals: answers 400 for lambda without region, an unknown GPU, an unknown provider, ' +
    'and unknown fields',
  async () => {
    const a = await t.connectedAccount('lambda');
    const noRegion = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'lambda', gpu_type: 'h100-80gb-sxm' });
    expect(noRegion.status).toBe(400);
    expect(noRegion.body.error.details).toContainEqual({ path: 'region', message: 'required when provider is lambda' });
    expect(
      (await t.http.post('/v1/compute/launch').set(a.auth).send({ provider: 'lambda', gpu_type: 'tpu', region: 'x' }))
        .status,
    ).toBe(400);
    expect(
      (await t.http.post('/v1/compute/launch').set(a.auth).send({ provider: 'aws', gpu_type: 'rtx-4090' })).status,
    ).toBe(400);
    expect(
      (
        await t.http
          .post('/v1/compute/launch')
          .set(a.auth)
          .send({ ...launchBody('lambda'), price: 1 })
      ).status,
    ).toBe(400);
    expect(t.sims.lambda.control.instances(a.simKey)).toEqual([]);
  },
);

it.concurrent(
  'launch validation and refusals: answers 400 for a lambda launch with neither ssh_key_name nor a default key',
  async () => {
    const a = await t.connectedAccount('lambda', { sshKey: false });
    const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('lambda'));
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('ssh_key_name');
  },
);

it.concurrent(
  'launch validation and refusals: answers 422 provider_not_connected without a key for the provider',
  async () => {
    const { auth } = await t.newAccount();
    const res = await t.http.post('/v1/compute/launch').set(auth).send(launchBody('vastai'));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('provider_not_connected');
  },
);

it.concurrent('launch validation and refusals: reports provider-only fields in warnings', async () => {
  const a = await t.connectedAccount('vastai');
  const res = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send(launchBody('vastai', { volume_gb: 50, onstart_cmd: 'nvidia-smi' }));
  expect(res.status).toBe(201);
  expect(res.body.warnings).toEqual(['volume_gb applies to runpod only and was ignored']);
  await terminated(t.http, a.auth, res.body.id);
});

it.concurrent("onstart_cmd on RunPod reaches the pod's create body as the container's command", async () => {
  const a = await t.connectedAccount('runpod');
  const script = 'pip install -r requirements.txt\npython train.py --epochs 3';
  const res = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send(launchBody('runpod', { onstart_cmd: script }));
  expect(res.status).toBe(201);
  expect(res.body.warnings ?? []).toEqual([]);
  const creates = t.sims.runpod.control.requests({ method: 'POST', path: /^\/v2\/pods$/, key: a.simKey });
  expect(creates.map((c) => c.body)).toEqual([
    expect.objectContaining({
      env: expect.objectContaining({ GPUO_STARTUP_SCRIPT: script }),
      args: 'bash -c \'eval "$GPUO_STARTUP_SCRIPT"\'',
    }),
  ]);
  await terminated(t.http, a.auth, res.body.id);
});

it.concurrent(
  'launch validation and refusals: onstart_cmd on Lambda answers 422 naming the field, and nothing is created',
  async () => {
    const a = await t.connectedAccount('lambda');
    const res = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send(launchBody('lambda', { onstart_cmd: 'python train.py' }));
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      422,
      'unsupported_operation',
      [{ path: 'onstart_cmd', message: 'runs on runpod and vastai only' }],
    ]);
    expect(res.body.error.message).toMatch(/^Lambda cannot run onstart_cmd: its launch API takes no startup command/);
    expect(t.sims.lambda.control.requests({ path: /instance-operations/, key: a.simKey })).toEqual([]);
    expect(await t.sql('SELECT id FROM instances WHERE account_id = $1', [a.accountId])).toEqual([]);
  },
);

it.concurrent(
  "launch validation and refusals: answers 502 provider_error with the provider's status for a refusal we cannot " +
    'map, and leaves nothing behind',
  async () => {
    const a = await t.connectedAccount('runpod');
    t.sims.runpod.control.serverErrors(1, {
      match: { method: 'POST', path: /^\/v2\/pods$/, key: a.simKey },
      status: 400,
    });
    const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('runpod'));
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_error');
    expect(res.body.error.details[0]).toMatchObject({ provider: 'runpod', provider_status: 400 });
    expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]);
    // The launch's intent row stays, ended as failed, naming no provider instance: nothing to meter or end.
    expect(
      await t.sql('SELECT status, provider_instance_id FROM instances WHERE account_id = $1', [a.accountId]),
    ).toEqual([{ status: 'failed', provider_instance_id: null }]);
  },
);

it.concurrent(
  'launch validation and refusals: answers 400 naming the parameter when Lambda refuses one (an ssh_key_name it does ' +
    'not know), and leaves nothing behind',
  async () => {
    const a = await t.connectedAccount('lambda');
    const res = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send(launchBody('lambda', { ssh_key_name: 'not-at-lambda' }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(/ssh_key_names: SSH key not-at-lambda does not exist/);
    expect(t.sims.lambda.control.instances(a.simKey)).toEqual([]);
  },
);

// The only test that turns a simulator-wide knob (no RunPod capacity for rtx-a6000): it runs alone, after the
// others, which run side by side (each has its own account; the faults they set are scoped to their key).
it('launch validation and refusals: answers 422 no_capacity and leaves nothing behind', async () => {
  const a = await t.connectedAccount('runpod');
  t.sims.runpod.control.setNoCapacity('rtx-a6000');
  try {
    const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('runpod'));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('no_capacity');
  } finally {
    t.sims.runpod.control.setNoCapacity('rtx-a6000', false);
  }
  expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]);
  // The launch's intent row stays, ended as failed, naming no provider instance: nothing to meter or end.
  expect(
    await t.sql('SELECT status, provider_instance_id FROM instances WHERE account_id = $1', [a.accountId]),
  ).toEqual([{ status: 'failed', provider_instance_id: null }]);
});

it.concurrent(
  'retries never create a second instance: counts each ask to create: a first ask that goes through is the only one ' +
    '(it needed no look for an earlier instance)',
  async () => {
    const a = await t.connectedAccount('runpod');
    const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('runpod'));
    expect(res.status).toBe(201);
    expect(
      await t.sql<{ create_attempts: number }>(
        'SELECT create_attempts FROM instances WHERE provider_instance_id = $1',
        [res.body.id],
      ),
    ).toEqual([{ create_attempts: 1 }]);
    await terminated(t.http, a.auth, res.body.id);
  },
);

it.concurrent(
  'retries never create a second instance: finds the instance when the provider made it but its answer was lost (5xx ' +
    'after handling)',
  async () => {
    const a = await t.connectedAccount('vastai');
    t.sims.vastai.control.serverErrors(1, {
      match: { method: 'PUT', path: /^\/api\/v0\/asks\//, key: a.simKey },
      status: 502,
      afterHandling: true,
    });
    const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('vastai'));
    expect(res.status).toBe(201);
    expect(t.sims.vastai.control.instances(a.simKey)).toHaveLength(1);
    // The second ask looked first and found the instance the first one made.
    expect(await t.sql('SELECT create_attempts FROM instances WHERE account_id = $1', [a.accountId])).toEqual([
      { create_attempts: 2 },
    ]);
    await terminated(t.http, a.auth, res.body.id);
  },
);

it.concurrent(
  'retries never create a second instance: finds the instance when the create call timed out at our end but went ' +
    'through at the provider',
  async () => {
    const a = await t.connectedAccount('runpod');
    // The adapters in this test time out after 2 s; the create takes effect at once, its answer takes 3 s.
    t.sims.runpod.control.setLatency(3_000, {
      match: { method: 'POST', path: /^\/v2\/pods$/, key: a.simKey },
      afterHandling: true,
    });
    try {
      const res = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('runpod'));
      expect(res.status).toBe(201);
      expect(t.sims.runpod.control.instances(a.simKey).map((i) => i.id)).toEqual([res.body.id]);
      expect(await t.sql('SELECT id FROM instances WHERE account_id = $1', [a.accountId])).toHaveLength(1);
    } finally {
      t.sims.runpod.control.setLatency(0, { match: { key: a.simKey } });
    }
  },
);

// The create's request at each provider.
const CREATE_REQUEST = {
  runpod: { method: 'POST', path: /^\/v2\/pods$/ },
  vastai: { method: 'PUT', path: /^\/api\/v0\/asks\// },
} as const;

/**
 * A launch whose create takes effect at once while its answer takes 3 s: the adapter gives up on the answer after
 * 2 s and the activity asks again a second later. Resolves, with the launch's pending answer, once the provider
 * holds the instance; `release()` lifts the latency (lifted already when it throws).
 */
async function launchWithLostAnswer(
  provider: keyof typeof CREATE_REQUEST,
  a: { auth: { Authorization: string }; simKey: string },
) {
  t.sims[provider].control.setLatency(3_000, {
    match: { ...CREATE_REQUEST[provider], key: a.simKey },
    afterHandling: true,
  });
  const release = () => t.sims[provider].control.setLatency(0, { match: { key: a.simKey } });
  const launch = t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send(launchBody(provider))
    .then((r) => r);
  try {
    await eventually('the create at the provider', () => t.sims[provider].control.instances(a.simKey)[0], 10_000, 20);
  } catch (err) {
    // No create to wait on: the launch is left to end on its own, without the latency.
    release();
    launch.catch(() => undefined);
    throw err;
  }
  return { launch, release };
}

// Without a default SSH key, so that each attempt's first call to the provider is the look for the earlier
// instance (a Vast.ai attempt with one registers it first, with the key too). Lambda needs one, and its retry then
// fails while registering it, before counting an ask, so this test has nothing to wait on there.
it.concurrent.each(['runpod', 'vastai'] as const)(
  'retries never create a second instance: %s: a retry that finds the key disconnected waits for it, then finds ' +
    'the instance the lost answer made (nothing left running unmanaged)',
  async (provider) => {
    const a = await t.connectedAccount(provider, { sshKey: false });
    const attempts = async () =>
      (await t.sql<{ n: number }>('SELECT create_attempts AS n FROM instances WHERE account_id = $1', [a.accountId]))[0]
        ?.n ?? 0;
    const lost = await launchWithLostAnswer(provider, a);
    try {
      // The user disconnects the key while the create is under way: no row names an instance yet, so it is allowed.
      await t.http.delete(`/v1/settings/providers/${provider}`).set(a.auth).expect(200);
      await eventually('a retry of the create without the key', async () =>
        (await attempts()) >= 2 ? true : undefined,
      );
      await t.http.post('/v1/settings/providers').set(a.auth).send({ provider, api_key: a.simKey }).expect(201);
      const res = await lost.launch;
      expect(res.status).toBe(201);
      expect(t.sims[provider].control.instances(a.simKey).map((i) => i.id)).toEqual([res.body.id]);
      expect(await attempts()).toBeGreaterThanOrEqual(3);
      await terminated(t.http, a.auth, res.body.id);
    } finally {
      lost.release();
    }
  },
);

it.concurrent(
  'retries never create a second instance: a retry whose look is refused (401) asks again and finds the instance ' +
    'the lost answer made',
  async () => {
    const a = await t.connectedAccount('runpod', { sshKey: false });
    const lost = await launchWithLostAnswer('runpod', a);
    try {
      // The next list with this key (the retry's look for the instance) is refused as if the key were rejected.
      t.sims.runpod.control.serverErrors(1, {
        match: { method: 'GET', path: /^\/v2\/pods$/, key: a.simKey },
        status: 401,
      });
      const res = await lost.launch;
      expect(res.status).toBe(201);
      expect(t.sims.runpod.control.instances(a.simKey).map((i) => i.id)).toEqual([res.body.id]);
      await terminated(t.http, a.auth, res.body.id);
    } finally {
      lost.release();
    }
  },
);

it.concurrent(
  'retries never create a second instance: replays the same Idempotency-Key and body as one instance, ' +
    'and refuses another body with 409',
  async () => {
    const a = await t.connectedAccount('runpod');
    const send = (body: object) =>
      t.http.post('/v1/compute/launch').set(a.auth).set('Idempotency-Key', 'order-42').send(body);
    const [first, second] = await Promise.all([send(launchBody('runpod')), send(launchBody('runpod'))]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect(t.sims.runpod.control.instances(a.simKey)).toHaveLength(1);
    const other = await send(launchBody('runpod', { gpu_count: 2 }));
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('conflict');
    await terminated(t.http, a.auth, first.body.id);
    // After the instance's life, the key still replays its record rather than launching again.
    const replay = await send(launchBody('runpod'));
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ id: first.body.id, status: 'terminated' });
    expect(t.sims.runpod.control.instances(a.simKey)).toHaveLength(0);
  },
);

it.concurrent(
  'spot preemption: emits spot.preempted when vastai reclaims a spot instance, and stops metering',
  async () => {
    const a = await t.connectedAccount('vastai');
    const res = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send(launchBody('vastai', { spot: true }));
    expect(res.status).toBe(201);
    expect(res.body.spot).toBe(true);
    const id = res.body.id as string;
    await eventually('instance.started', async () =>
      (await events(a.accountId)).some((e) => e.type === 'instance.started') ? true : undefined,
    );
    t.sims.vastai.control.preempt(a.simKey, id, 'remove');
    await eventually(
      'spot.preempted',
      async () => ((await events(a.accountId)).some((e) => e.type === 'spot.preempted') ? true : undefined),
      15_000,
    );
    const [row] = await t.sql<{ status: string }>('SELECT status FROM instances WHERE provider_instance_id = $1', [id]);
    expect(row!.status).toBe('terminated');
    const charged = (await transactions(a.auth)).length;
    // The workflow has ended: its run is closed, so no further charge can be written.
    const handle = temporal.env.client.workflow.getHandle(
      (await t.sql<{ id: string }>('SELECT id FROM instances WHERE provider_instance_id = $1', [id]))[0]!.id,
    );
    expect((await handle.result()).outcome).toBe('preempted');
    expect((await transactions(a.auth)).length).toBe(charged);
  },
);

it.concurrent('continue-as-new: keeps charges exact across many runs of the workflow', async () => {
  const fast = request(
    createApp({
      ...t.deps,
      launchTiming: { pollIntervalMs: 100, meterIntervalMs: 250, continueAsNewAfter: 2 },
    }).callback(),
  );
  const a = await t.connectedAccount('lambda');
  const id = (await fast.post('/v1/compute/launch').set(a.auth).send(launchBody('lambda')).expect(201)).body
    .id as string;
  const workflowId = (await t.sql<{ id: string }>('SELECT id FROM instances WHERE provider_instance_id = $1', [id]))[0]!
    .id;
  const handle = temporal.env.client.workflow.getHandle(workflowId);
  const firstRunId = (await handle.describe()).runId;
  await eventually(
    'a third run of the workflow',
    async () => {
      let runs = 0;
      for await (const _ of temporal.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs++;
      return runs >= 3 ? true : undefined;
    },
    30_000,
    250,
  );
  expect((await handle.describe()).runId).not.toBe(firstRunId);
  await eventually(
    'several charges',
    async () => ((await transactions(a.auth)).length >= 4 ? true : undefined),
    30_000,
  );
  await fast.post(`/v1/compute/${id}/terminate`).set(a.auth).expect(200);

  const [row] = await t.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string }>(
    'SELECT started_at, metered_through, price_per_hour_micros FROM instances WHERE provider_instance_id = $1',
    [id],
  );
  const expected = Math.round(
    (Number(row!.price_per_hour_micros) * (row!.metered_through.getTime() - row!.started_at.getTime())) / 3_600_000,
  );
  const charges = await transactions(a.auth);
  expect(-Math.round(charges.reduce((s, c) => s + c.amount, 0) * 1e6)).toBe(expected);
  expect((await events(a.accountId)).map((e) => e.type)).toEqual(['instance.started', 'instance.terminated']);
});

it.concurrent(
  "listing: still lists the other providers' instances when one provider fails, naming it in errors",
  async () => {
    const a = await t.connectedAccount('vastai');
    const runpodKey = t.sims.runpod.createKey();
    await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider: 'runpod', api_key: runpodKey })
      .expect(201);
    const id = (await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('vastai')).expect(201)).body.id;
    // Only this account's RunPod key fails (the other tests run beside this one); it is used for nothing else.
    t.sims.runpod.control.serverErrors(50, { status: 500, match: { key: runpodKey } });
    const res = await t.http.get('/v1/compute').set(a.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.map((i: { id: string; managed: boolean }) => [i.id, i.managed])).toEqual([[id, true]]);
    expect(res.body.errors).toEqual([
      { provider: 'runpod', code: 'provider_unavailable', message: expect.any(String) },
    ]);
    await terminated(t.http, a.auth, id);
  },
);

it.concurrent("isolation: answers 404 to stop and terminate of another account's instance", async () => {
  const a = await t.connectedAccount('vastai');
  const b = await t.newAccount();
  const id = (await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('vastai')).expect(201)).body.id;
  expect((await t.http.post(`/v1/compute/${id}/terminate`).set(b.auth)).status).toBe(404);
  expect((await t.http.post(`/v1/compute/${id}/stop`).set(b.auth)).status).toBe(404);
  expect((await t.http.get('/v1/compute').set(b.auth)).body.data).toEqual([]);
  await terminated(t.http, a.auth, id);
});

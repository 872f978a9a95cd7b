/**
 * Webhooks end to end on the real Temporal dev server and Postgres: endpoints CRUD and validation, SSRF
 * refusals, a launch's `instance.started` at a local receiver (verified by `standardwebhooks`), retries with
 * the same webhook-id, 3xx as failure, `failed` after the schedule, DNS rebinding, deletion mid-delivery,
 * manual redelivery and the events list. The retry schedule is compressed to 200 ms steps.
 */
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { addressClass, addressRefusal } from '../../src/domain/address-safety';
import { createApp } from '../../src/http/app';
import type { Resolver } from '../../src/webhooks/webhook-sender';
import { webhookDeliveryWorkflowId } from '../../workflows/contracts/webhooks';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { startReceiver, startWebhookDispatcher, type Receiver } from '../helpers/webhooks';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let receiver: Receiver;
let http: ReturnType<typeof request>;
let dispatcher: Awaited<ReturnType<typeof startWebhookDispatcher>>;

/** Test DNS: names map to addresses; tests change the map to play DNS rebinding. */
const dns = new Map<string, string[]>();
const resolve: Resolver = async (host) => {
  const addresses = dns.get(host);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const SCHEDULE = [200, 200, 200, 200, 200, 200, 200];

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 } });
  http = request(createApp({ ...t.deps, webhooks: { allowedHosts: ['127.0.0.1'], resolve } }).callback());
  temporal = await createTemporalTestEnv();
  receiver = await startReceiver();
  await temporal.startWorker(
    t.workerDeps({
      webhooks: {
        databaseUrl: t.db.url,
        settings: {
          allowedHosts: ['127.0.0.1'],
          retryScheduleMs: SCHEDULE,
          timeoutMs: 2_000,
          dispatchTickMs: 500,
          claimLeaseMs: 30_000,
        },
        resolve,
      },
    }),
    t.deps.temporal.taskQueue,
  );
  dispatcher = await startWebhookDispatcher({
    client: t.temporal,
    taskQueue: t.deps.temporal.taskQueue,
    databaseUrl: t.db.url,
    tickMs: 500,
  });
  t.sims.runpod.control.setBootDelay(300);
});
afterAll(async () => {
  await dispatcher.stop();
  await temporal.close();
  await receiver.close();
  await t.close();
});

type Auth = { Authorization: string };
let pathSeq = 0;
const newPath = () => `/hook-${++pathSeq}`;

async function endpoint(auth: Auth, events: string[] = ['webhook.test'], path = newPath()) {
  const res = await http
    .post('/v1/webhooks')
    .set(auth)
    .send({ url: receiver.url(path), events });
  expect(res.status).toBe(201);
  receiver.secret(path, res.body.secret);
  return { id: res.body.id as string, secret: res.body.secret as string, path };
}

interface Delivery {
  id: string;
  status: string;
  attempt_count: number;
  event: { id: string; type: string };
  attempts: {
    status_code: number | null;
    error: string | null;
    success: boolean;
    latency_ms: number;
    response_body: string | null;
  }[];
}

async function deliveries(auth: Auth, webhookId: string): Promise<Delivery[]> {
  const res = await http.get(`/v1/webhooks/${webhookId}/deliveries`).set(auth).expect(200);
  return res.body.data as Delivery[];
}

const finalDelivery = (auth: Auth, webhookId: string, status: string) =>
  eventually(
    `a ${status} delivery`,
    async () => (await deliveries(auth, webhookId)).find((d) => d.status === status),
    60_000,
    150,
  );

const workflowClosed = (deliveryId: string) =>
  eventually(
    'the delivery workflow to end',
    async () => {
      const d = await t.temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId)).describe();
      return d.status.name === 'RUNNING' ? undefined : d.status.name;
    },
    30_000,
    150,
  );

describe('address classification (ipaddr.js)', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.251', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['[::ffff:169.254.1.1]', 'linkLocal'],
  ])('%s is %s and refused', (address, cls) => {
    expect(addressClass(address)).toBe(cls);
    expect(addressRefusal(address)).toMatch(/address$/);
  });
  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe('/v1/webhooks', () => {
  it.concurrent('creates with a one-time secret, lists without it, updates, deletes', async () => {
    const a = await t.newAccount();
    const created = await http
      .post('/v1/webhooks')
      .set(a.auth)
      .send({ url: receiver.url('/crud'), events: ['instance.started', 'spot.preempted'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url('/crud'),
      events: ['instance.started', 'spot.preempted'],
      active: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(24);
    expect(() => new Webhook(created.body.secret)).not.toThrow();
    const id = created.body.id as string;

    const list = await http.get('/v1/webhooks').set(a.auth).expect(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).not.toHaveProperty('secret');

    const updated = await http
      .put(`/v1/webhooks/${id}`)
      .set(a.auth)
      .send({ events: ['instance.terminated'], active: false });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, events: ['instance.terminated'], active: false });
    expect(updated.body).not.toHaveProperty('secret');
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const rekeyed = await http.put(`/v1/webhooks/${id}`).set(a.auth).send({ secret, active: true });
    expect(rekeyed.body).toMatchObject({ secret, active: true });

    const other = await t.newAccount();
    for (const res of [
      await http.get(`/v1/webhooks/${id}`).set(other.auth),
      await http.put(`/v1/webhooks/${id}`).set(other.auth).send({ active: false }),
      await http.delete(`/v1/webhooks/${id}`).set(other.auth),
      await http.get(`/v1/webhooks/${id}/deliveries`).set(other.auth),
      await http.post(`/v1/webhooks/${id}/test`).set(other.auth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await http.get('/v1/webhooks').set(other.auth)).body.data).toEqual([]);

    expect((await http.delete(`/v1/webhooks/${id}`).set(a.auth)).body).toEqual({ id, deleted: true });
    expect((await http.delete(`/v1/webhooks/${id}`).set(a.auth)).status).toBe(404);
  });

  it.concurrent.each([
    [{ url: 'https://hooks.example.com/x', events: [] }, 'events'],
    [{ url: 'https://hooks.example.com/x', events: ['instance.exploded'] }, 'events.0'],
    [{ url: 'https://hooks.example.com/x' }, 'events'],
    [{ events: ['instance.started'] }, 'url'],
    [{ url: 'https://hooks.example.com/x', events: ['instance.started'], active: true }, 'active'],
    [{ url: 'https://hooks.example.com/x', events: ['instance.started'], secret: 'hunter2' }, 'secret'],
    [{ url: 'https://hooks.example.com/x', events: ['instance.started'], secret: 'whsec_c2hvcnQ=' }, 'secret'],
    [{ url: 'https://hooks.example.com/\u0000', events: ['instance.started'] }, 'url'],
    [{ url: 'not a url', events: ['instance.started'] }, 'url'],
    [{ url: 'ftp://hooks.example.com/', events: ['instance.started'] }, 'url'],
    [{ url: 'http://hooks.example.com/x', events: ['instance.started'] }, 'url'],
    [{ url: 'https://user:pw@hooks.example.com/x', events: ['instance.started'] }, 'url'],
    [{ url: 'https://nowhere.invalid/x', events: ['instance.started'] }, 'url'],
  ])('refuses %j with 400 naming %s', async (body, path) => {
    dns.set('hooks.example.com', ['93.184.215.14']);
    const a = await t.newAccount();
    const res = await http.post('/v1/webhooks').set(a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it.concurrent.each([
    'https://10.0.0.5/h',
    'https://172.20.1.1/h',
    'https://192.168.0.10/h',
    'https://127.0.0.2/h',
    'https://localhost/h',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.1.1/h',
    'https://224.0.0.1/h',
    'https://240.1.2.3/h',
    'https://0.0.0.0/h',
    'https://[::1]/h',
    'https://[fe80::1]/h',
    'https://[fd12:3456::1]/h',
    'https://[ff05::2]/h',
    'https://[::ffff:10.0.0.1]/h',
    'https://[::ffff:7f00:1]/h',
    'https://[2001:db8::5]/h',
    'https://2130706434/h',
    'https://internal.example.com/h',
    'https://mixed.example.com/h',
  ])('refuses a destination that is not public: %s', async (url) => {
    dns.set('localhost', ['127.0.0.1', '::1']);
    dns.set('internal.example.com', ['10.20.30.40']);
    dns.set('mixed.example.com', ['93.184.215.14', '192.168.1.5']);
    const a = await t.newAccount();
    const res = await http
      .post('/v1/webhooks')
      .set(a.auth)
      .send({ url, events: ['instance.started'] });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ path: 'url', message: expect.stringMatching(/non-public/) });
  });

  it.concurrent('accepts a public https destination, literal or by name, and re-checks a new url on PUT', async () => {
    dns.set('hooks.example.com', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    const a = await t.newAccount();
    for (const url of [
      'https://hooks.example.com/in',
      'https://8.8.8.8/in',
      'https://[2606:4700:4700::1111]:8443/in',
    ]) {
      expect(
        (
          await http
            .post('/v1/webhooks')
            .set(a.auth)
            .send({ url, events: ['alert.triggered'] })
        ).status,
      ).toBe(201);
    }
    const { id } = (
      await http
        .post('/v1/webhooks')
        .set(a.auth)
        .send({ url: 'https://8.8.4.4/', events: ['alert.triggered'] })
    ).body;
    const bad = await http.put(`/v1/webhooks/${id}`).set(a.auth).send({ url: 'https://10.0.0.1/' });
    expect(bad.status).toBe(400);
    expect((await http.put(`/v1/webhooks/${id}`).set(a.auth).send({})).status).toBe(400);
    expect((await http.get(`/v1/webhooks/${id}`).set(a.auth)).body.url).toBe('https://8.8.4.4/');
  });
});

describe('delivery', () => {
  it.concurrent('delivers instance.started from a launch, signed so that standardwebhooks verifies it', async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth, ['instance.started']);
    const ignored = await endpoint(a.auth, ['instance.terminated']);
    await http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider: 'runpod', api_key: t.sims.runpod.createKey() })
      .expect(201);
    await http.post('/v1/ssh-keys').set(a.auth).send({ name: 'k', public_key: ed25519Key() }).expect(201);
    const launched = await http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'runpod', gpu_type: 'rtx-a6000' });
    expect(launched.status).toBe(201);

    const [got] = await eventually(
      'instance.started at the receiver',
      () => (receiver.on(hook.path).length ? receiver.on(hook.path) : undefined),
      60_000,
    );
    expect(got!.verified).toBe(true);
    const headers = { 'webhook-id': got!.id, 'webhook-timestamp': got!.timestamp, 'webhook-signature': got!.signature };
    expect(new Webhook(hook.secret).verify(got!.body, headers)).toEqual(got!.payload);
    expect(() => new Webhook(ignored.secret).verify(got!.body, headers)).toThrow();
    expect(got!.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Object.keys(got!.payload)).toEqual(['id', 'type', 'created_at', 'data']);
    expect(got!.payload).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'instance.started',
      data: { instance_id: launched.body.id, provider: 'runpod' },
    });

    const events = await http.get('/v1/events?type=instance.started').set(a.auth).expect(200);
    expect(events.body.data.map((e: { id: string }) => e.id)).toEqual([got!.payload.id]);
    const [d] = await deliveries(a.auth, hook.id);
    expect(d).toMatchObject({ id: got!.id, status: 'succeeded', attempt_count: 1, event: { id: got!.payload.id } });
    expect(receiver.on(ignored.path)).toEqual([]);
    await http.post(`/v1/compute/${launched.body.id}/terminate`).set(a.auth).expect(200);
    await eventually(
      'instance.terminated at the other endpoint',
      () => (receiver.on(ignored.path).length === 1 ? true : undefined),
      60_000,
    );
    expect(receiver.on(ignored.path)[0]!.payload.type).toBe('instance.terminated');
    expect(receiver.on(hook.path)).toHaveLength(1);
  });

  it.concurrent(
    'retries a receiver that answers 500 three times, with the same webhook-id, every attempt in the log',
    async () => {
      const a = await t.newAccount();
      const hook = await endpoint(a.auth);
      receiver.plan(hook.path, [500, 500, 500]);
      const test = await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth);
      expect(test.status).toBe(202);
      expect(test.body).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'webhook.test' });

      const d = await finalDelivery(a.auth, hook.id, 'succeeded');
      const got = receiver.on(hook.path);
      expect(got.map((r) => r.status)).toEqual([500, 500, 500, 200]);
      expect(new Set(got.map((r) => r.id))).toEqual(new Set([d.id]));
      expect(got.every((r) => r.verified && r.payload.id === test.body.id)).toBe(true);
      expect(d.attempt_count).toBe(4);
      expect(d.attempts.map((x) => [x.status_code, x.success])).toEqual([
        [500, false],
        [500, false],
        [500, false],
        [200, true],
      ]);
      expect(d.attempts[0]).toMatchObject({ error: 'HTTP 500', response_body: 'nope 500' });
    },
  );

  it.concurrent('gives up after the whole schedule: 1 + 7 attempts, then failed', async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth);
    receiver.plan(hook.path, Array(20).fill(503));
    await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth).expect(202);
    const d = await finalDelivery(a.auth, hook.id, 'failed');
    expect(d.attempt_count).toBe(1 + SCHEDULE.length);
    expect(await workflowClosed(d.id)).toBe('COMPLETED');
    expect(receiver.on(hook.path)).toHaveLength(1 + SCHEDULE.length);
    expect((await http.get(`/v1/webhooks/${hook.id}`).set(a.auth)).body.active).toBe(true);
  });

  it.concurrent('treats a redirect as a failure and never follows it', async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth);
    receiver.plan(hook.path, [
      { status: 302, headers: { location: receiver.url('/elsewhere') } },
      { status: 307, headers: { location: '/elsewhere' } },
    ]);
    await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth).expect(202);
    const d = await finalDelivery(a.auth, hook.id, 'succeeded');
    expect(d.attempts.map((x) => x.status_code)).toEqual([302, 307, 200]);
    expect(d.attempts[0]!.error).toMatch(/redirect.*not followed/);
    expect(receiver.on('/elsewhere')).toEqual([]);
  });

  it.concurrent('counts a receiver slower than the timeout as a failed attempt', async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth);
    let release!: (status: number) => void;
    receiver.plan(hook.path, [new Promise<number>((r) => (release = r))]);
    await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth).expect(202);
    const d = await finalDelivery(a.auth, hook.id, 'succeeded');
    release(200);
    expect(d.attempts[0]).toMatchObject({
      status_code: null,
      success: false,
      error: expect.stringMatching(/timed out after 2000 ms/),
    });
    expect(d.attempts[0]!.latency_ms).toBeGreaterThanOrEqual(1900);
  });

  it.concurrent('refuses at delivery time a name that now resolves to a private address (DNS rebinding)', async () => {
    const a = await t.newAccount();
    dns.set('rebind.example.com', ['93.184.215.14']);
    const res = await http
      .post('/v1/webhooks')
      .set(a.auth)
      .send({ url: `https://rebind.example.com:${receiver.port}/rebind`, events: ['webhook.test'] });
    expect(res.status).toBe(201);
    dns.set('rebind.example.com', ['127.0.0.1']); // where the receiver listens: it must get nothing
    await http.post(`/v1/webhooks/${res.body.id}/test`).set(a.auth).expect(202);
    const [d] = await eventually('a refused attempt', async () => {
      const list = await deliveries(a.auth, res.body.id);
      return list[0]?.attempt_count ? list : undefined;
    });
    expect(d!.attempts[0]).toMatchObject({
      status_code: null,
      success: false,
      error: expect.stringMatching(/refused: rebind\.example\.com resolves to .*loopback.*127\.0\.0\.1/),
    });
    dns.set('rebind.example.com', ['93.184.215.14', '::ffff:192.168.7.7']);
    const d2 = await finalDelivery(a.auth, res.body.id, 'failed');
    expect(d2.attempts.every((x) => /^refused/.test(x.error ?? ''))).toBe(true);
    expect(receiver.on('/rebind')).toEqual([]);
  });

  it.concurrent('sends nothing more once the endpoint is deleted in the middle of a delivery', async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth);
    let release!: (status: number) => void;
    const held = new Promise<number>((r) => (release = r));
    receiver.plan(hook.path, [500, held, 500, 500]);
    await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth).expect(202);
    await eventually('the second attempt to be held', () => (receiver.arrivals(hook.path) === 2 ? true : undefined));
    const [d] = await deliveries(a.auth, hook.id);
    await http.delete(`/v1/webhooks/${hook.id}`).set(a.auth).expect(200);
    release(500);
    expect(await workflowClosed(d!.id)).toBe('COMPLETED');
    expect(receiver.arrivals(hook.path)).toBe(2);
    expect((await http.get(`/v1/webhooks/${hook.id}/deliveries`).set(a.auth)).status).toBe(404);
  });

  it.concurrent('redelivers a finished delivery on request, with the same webhook-id', async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth);
    await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth).expect(202);
    const d = await finalDelivery(a.auth, hook.id, 'succeeded');
    const res = await http.post(`/v1/webhooks/${hook.id}/deliveries/${d.id}/retry`).set(a.auth);
    expect(res.status).toBe(202);
    await eventually('the redelivery', () => (receiver.on(hook.path).length === 2 ? true : undefined));
    expect(receiver.on(hook.path).map((r) => r.id)).toEqual([d.id, d.id]);
    const [again] = await eventually('two attempts in the log', async () => {
      const list = await deliveries(a.auth, hook.id);
      return list[0]!.attempt_count === 2 ? list : undefined;
    });
    expect(again!.status).toBe('succeeded');
    expect((await http.post(`/v1/webhooks/${hook.id}/deliveries/dlv_nope/retry`).set(a.auth)).status).toBe(404);
  });
});

describe('GET /v1/events', () => {
  it.concurrent("pages the account's events newest first and filters by type", async () => {
    const a = await t.newAccount();
    const hook = await endpoint(a.auth);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++)
      sent.push((await http.post(`/v1/webhooks/${hook.id}/test`).set(a.auth).expect(202)).body.id);
    const first = await http.get('/v1/events?limit=2').set(a.auth).expect(200);
    expect(first.body.has_more).toBe(true);
    const second = await http.get(`/v1/events?limit=2&cursor=${first.body.next_cursor}`).set(a.auth).expect(200);
    const third = await http.get(`/v1/events?limit=2&cursor=${second.body.next_cursor}`).set(a.auth).expect(200);
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.body.data, ...second.body.data, ...third.body.data].map((e: { id: string }) => e.id)).toEqual(
      [...sent].reverse(),
    );
    expect((await http.get('/v1/events?type=instance.started').set(a.auth)).body.data).toEqual([]);
    const other = await t.newAccount();
    expect((await http.get('/v1/events').set(other.auth)).body.data).toEqual([]);
    for (const q of ['type=nope', 'limit=0', 'limit=201', 'cursor=abc', 'extra=1']) {
      const res = await http.get(`/v1/events?${q}`).set(a.auth);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

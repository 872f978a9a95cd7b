/**
 * Per-account limits, paging of the lists they bound, and the schedule minimum interval, through the API on
 * real Postgres and the real Temporal dev server (schedules are Temporal Schedules; launches run the launch
 * workflow against the provider simulators). Limits are lowered to 2 (live instances to 1) so the (N+1)th
 * create is quick to reach.
 */
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { DEFAULT_LIMITS, type AccountLimits } from '../../src/domain/limits';
import { createTestContext, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { ed25519Key } from '../fixtures/ssh-keys';
import { queryRows } from '../helpers/db';

jest.setTimeout(120_000);

const LIMITS: AccountLimits = {
  alerts: 2,
  schedules: 2,
  webhooks: 3,
  webhook_urls: 2,
  ssh_keys: 2,
  live_instances: 1,
  api_keys: 3,
};

let t: TestContext;
let temporal: TemporalTestEnv;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 } });
  http = request(createApp({ ...t.deps, limits: LIMITS, webhooks: { allowedHosts: ['127.0.0.1'] } }).callback());
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps({ limits: LIMITS }), t.deps.temporal.taskQueue);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Auth = { Authorization: string };

let n = 0;
const creates: Record<'alerts' | 'ssh_keys' | 'webhooks' | 'schedules', { path: string; body: () => object }> = {
  alerts: { path: '/v1/alerts', body: () => ({ type: 'budget_limit', threshold_dollars: 10 + n++ }) },
  ssh_keys: { path: '/v1/ssh-keys', body: () => ({ name: `key ${n++}`, public_key: ed25519Key() }) },
  webhooks: { path: '/v1/webhooks', body: () => ({ url: 'http://127.0.0.1:9/hook', events: ['instance.started'] }) },
  schedules: {
    path: '/v1/schedules',
    body: () => ({ name: `job ${n++}`, gpu: 'rtx-4090', template: 'pytorch', cron: '0 3 * * *' }),
  },
};
const listPath = {
  alerts: '/v1/alerts',
  ssh_keys: '/v1/ssh-keys',
  webhooks: '/v1/webhooks',
  schedules: '/v1/schedules',
};

const usage = async (auth: Auth) =>
  Object.fromEntries(
    ((await http.get('/v1/limits').set(auth).expect(200)).body.data as { name: string; used: number }[]).map((l) => [
      l.name,
      l.used,
    ]),
  );

describe('GET /v1/limits', () => {
  it("lists every limit with its value and the account's current use", async () => {
    const { auth } = await t.newAccount();
    await http.post('/v1/alerts').set(auth).send(creates.alerts.body()).expect(201);
    const res = await http.get('/v1/limits').set(auth).expect(200);
    expect(res.body.data).toEqual(
      // The account's own key counts among its API keys.
      Object.entries(LIMITS).map(([name, limit]) => ({
        name,
        limit,
        used: name === 'alerts' || name === 'api_keys' ? 1 : 0,
        description: expect.any(String),
      })),
    );
  });

  it('shows the default limits when none are configured', async () => {
    const { auth } = await t.newAccount();
    const res = await t.http.get('/v1/limits').set(auth).expect(200);
    expect(
      Object.fromEntries((res.body.data as { name: string; limit: number }[]).map((l) => [l.name, l.limit])),
    ).toEqual(DEFAULT_LIMITS);
  });
});

describe.each(Object.keys(creates) as (keyof typeof creates)[])('%s limit', (name) => {
  const { path, body } = creates[name];
  const max = LIMITS[name];

  it(`the (N+1)th create is 422 limit_reached naming "${name}", and creates nothing`, async () => {
    const { auth } = await t.newAccount();
    for (let i = 0; i < max; i++) await http.post(path).set(auth).send(body()).expect(201);
    const refused = await http.post(path).set(auth).send(body());
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'limit_reached',
      message: expect.stringContaining(`"${name}"`),
      details: [{ limit: name, max }],
    });
    expect((await http.get(listPath[name]).set(auth).expect(200)).body.data).toHaveLength(max);
    expect((await usage(auth))[name]).toBe(max);
  });

  it('two concurrent creates at N−1: exactly one passes', async () => {
    const { auth } = await t.newAccount();
    for (let i = 0; i < max - 1; i++) await http.post(path).set(auth).send(body()).expect(201);
    const statuses = (await Promise.all([0, 1, 2].map(() => http.post(path).set(auth).send(body()))))
      .map((r) => r.status)
      .sort();
    expect(statuses).toEqual([201, 422, 422]);
    expect((await usage(auth))[name]).toBe(max);
  });

  it('a deleted item frees its place', async () => {
    const { auth } = await t.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < max; i++) ids.push((await http.post(path).set(auth).send(body()).expect(201)).body.id);
    await http.delete(`${listPath[name]}/${ids[0]}`).set(auth).expect(200);
    await http.post(path).set(auth).send(body()).expect(201);
  });
});

describe('webhook_urls limit (distinct destination URLs)', () => {
  const hook = (url: string) => ({ url, events: ['instance.started'] });

  it(
    'counts distinct URLs: a new one past the limit is 422, ' + 'a known one passes, a PUT that keeps the count passes',
    async () => {
      const { auth } = await t.newAccount();
      await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/a')).expect(201);
      const b = (await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/b')).expect(201)).body;
      const refused = await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/c'));
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'limit_reached', details: [{ limit: 'webhook_urls', max: 2 }] });
      await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/a')).expect(201);
      // Endpoint b is the only one at /b: moving it to /c keeps two distinct URLs.
      await http.put(`/v1/webhooks/${b.id}`).set(auth).send({ url: 'http://127.0.0.1:9/c' }).expect(200);
      expect(await usage(auth)).toMatchObject({ webhooks: 3, webhook_urls: 2 });
    },
  );

  it('refuses a PUT that would add a third distinct URL and leaves the endpoint as it was', async () => {
    const { auth } = await t.newAccount();
    const a = (await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/a')).expect(201)).body;
    await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/a')).expect(201);
    await http.post('/v1/webhooks').set(auth).send(hook('http://127.0.0.1:9/b')).expect(201);
    const refused = await http
      .put(`/v1/webhooks/${a.id}`)
      .set(auth)
      .send({ url: 'http://127.0.0.1:9/c', events: ['spot.preempted'] });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'limit_reached', details: [{ limit: 'webhook_urls', max: 2 }] });
    expect((await http.get(`/v1/webhooks/${a.id}`).set(auth).expect(200)).body).toMatchObject({
      url: 'http://127.0.0.1:9/a',
      events: ['instance.started'],
    });
  });
});

describe('api_keys limit', () => {
  it(
    'the account key and the keys it makes count: past the limit 422 limit_reached naming "api_keys"; concurrent ' +
      'creates never pass it; a revoked key frees its place',
    async () => {
      const { auth } = await t.newAccount();
      const make = (i: number) =>
        http
          .post('/v1/api-keys')
          .set(auth)
          .send({ name: `agent ${i}`, scopes: ['read'] });
      // Room for LIMITS.api_keys − 1 more beside the account's key; 5 at once.
      const answers = await Promise.all([0, 1, 2, 3, 4].map(make));
      const created = answers.filter((r) => r.status === 201);
      expect(created).toHaveLength(LIMITS.api_keys - 1);
      const refused = answers.find((r) => r.status === 422)!;
      expect(refused.body.error).toMatchObject({
        code: 'limit_reached',
        details: [{ limit: 'api_keys', max: LIMITS.api_keys }],
      });
      expect((await usage(auth)).api_keys).toBe(LIMITS.api_keys);
      await http.delete(`/v1/api-keys/${created[0]!.body.id}`).set(auth).expect(200);
      expect((await make(9)).status).toBe(201);
    },
  );
});

describe('live_instances limit', () => {
  const launch = (auth: Auth) =>
    http.post('/v1/compute/launch').set(auth).send({ provider: 'runpod', gpu_type: 'rtx-a6000' });

  it(
    'refuses a launch past the limit with nothing at the provider; ' + 'a terminated instance frees the place',
    async () => {
      const a = await t.connectedAccount('runpod');
      const first = await launch(a.auth);
      expect(first.status).toBe(201);
      const refused = await launch(a.auth);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'limit_reached',
        details: [{ limit: 'live_instances', max: 1 }],
      });
      expect(t.sims.runpod.control.instances(a.simKey).map((i) => i.id)).toEqual([first.body.id]);
      expect((await usage(a.auth)).live_instances).toBe(1);

      await http.post(`/v1/compute/${first.body.id}/terminate`).set(a.auth).expect(200);
      expect((await launch(a.auth)).status).toBe(201);
    },
  );

  it('two concurrent launches with room for one: exactly one instance is created', async () => {
    const a = await t.connectedAccount('runpod');
    const statuses = (await Promise.all([launch(a.auth), launch(a.auth)])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 422]);
    expect(t.sims.runpod.control.instances(a.simKey)).toHaveLength(1);
    const rows = await queryRows<{ status: string }>(t.db.url, 'SELECT status FROM instances WHERE account_id = $1', [
      a.accountId,
    ]);
    expect(rows.filter((r) => r.status !== 'failed')).toHaveLength(1);
  });
});

describe('paging of the bounded lists', () => {
  it.each(['ssh_keys', 'webhooks', 'schedules'] as const)(
    '%s: limit and cursor walk every item once, newest first, with has_more',
    async (name) => {
      const { auth } = await t.newAccount();
      const ids: string[] = [];
      for (let i = 0; i < LIMITS[name]; i++)
        ids.push((await http.post(creates[name].path).set(auth).send(creates[name].body()).expect(201)).body.id);
      const first = (await http.get(`${listPath[name]}?limit=1`).set(auth).expect(200)).body;
      expect(first).toEqual({
        data: [expect.objectContaining({ id: ids[ids.length - 1] })],
        has_more: true,
        next_cursor: expect.any(String),
      });
      const seen = [first.data[0].id];
      let cursor = first.next_cursor as string | null;
      while (cursor) {
        const page = (await http.get(`${listPath[name]}?limit=1&cursor=${cursor}`).set(auth).expect(200)).body;
        seen.push(...page.data.map((r: { id: string }) => r.id));
        cursor = page.next_cursor;
        if (!cursor) expect(page.has_more).toBe(false);
      }
      expect(seen).toEqual([...ids].reverse());
      const all = (await http.get(listPath[name]).set(auth).expect(200)).body;
      expect(all).toMatchObject({ has_more: false, next_cursor: null });
      expect(all.data).toHaveLength(ids.length);
    },
  );

  it.each(Object.values(listPath))('%s refuses a cursor it did not issue and a limit over 200', async (path) => {
    const { auth } = await t.newAccount();
    expect((await http.get(`${path}?cursor=bm90LWEtY3Vyc29y`).set(auth)).body.error.code).toBe('validation_error');
    expect((await http.get(`${path}?limit=201`).set(auth)).status).toBe(400);
  });
});

describe('SCHEDULE_MIN_INTERVAL', () => {
  // The default app: 5 minutes.
  const strict = () => request(createApp({ ...t.deps, scheduleMinIntervalMs: undefined }).callback());
  const body = (cron: string) => ({ name: 'often', gpu: 'rtx-4090', template: 'pytorch', cron });

  it.each(['* * * * *', '*/2 * * * *', '0,3 * * * *', '0,58 0,23 * * *'])(
    'refuses %s, which fires less than 5 min apart somewhere, with a 400 naming cron',
    async (cron) => {
      const { auth } = await t.newAccount();
      const res = await strict().post('/v1/schedules').set(auth).send(body(cron));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_error',
        details: [{ path: 'cron', message: expect.stringMatching(/at most once every 5 min/) }],
      });
      expect((await usage(auth)).schedules).toBe(0);
    },
  );

  it.each(['*/5 * * * *', '0,58 0,23 * * 1', '59 23 * * *'])(
    'accepts %s (never less than 5 min apart)',
    async (cron) => {
      const { auth } = await t.newAccount();
      await strict().post('/v1/schedules').set(auth).send(body(cron)).expect(201);
    },
  );

  it('accepts every 5 minutes, and refuses a PUT to every minute, leaving the schedule as it was', async () => {
    const { auth } = await t.newAccount();
    const created = (await strict().post('/v1/schedules').set(auth).send(body('*/5 * * * *')).expect(201)).body;
    const res = await strict().put(`/v1/schedules/${created.id}`).set(auth).send({ cron: '* * * * *' });
    expect(res.status).toBe(400);
    expect((await strict().get(`/v1/schedules/${created.id}`).set(auth).expect(200)).body.cron).toBe('*/5 * * * *');
  });
});

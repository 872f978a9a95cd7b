/**
 * The instance as a record a user can read, on the whole stack (API, Temporal dev server, Postgres, provider
 * simulators): `GET /v1/compute/{id}` with its timeline and cost to date for a running, a stopped, a terminated
 * and a preempted instance; the live list dropping an instance as soon as terminate answered; the ended list
 * with why each ended and what it cost, as its end webhook says.
 */
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { gpuoInProcess } from '../cli/in-process';
import { createTestContext, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';
import { terminated } from '../helpers/terminate';
import { startReceiver, startWebhookDispatcher, type Receiver } from '../helpers/webhooks';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let receiver: Receiver;
let dispatcher: Awaited<ReturnType<typeof startWebhookDispatcher>>;
/** The API with webhooks allowed to reach the local receiver. */
let api: ReturnType<typeof request>;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 1_000 } });
  api = request(createApp({ ...t.deps, webhooks: { allowedHosts: ['127.0.0.1'] } }).callback());
  temporal = await createTemporalTestEnv();
  receiver = await startReceiver();
  const webhooks = { allowedHosts: ['127.0.0.1'], retryScheduleMs: [100, 100], timeoutMs: 2_000 };
  await temporal.startWorker(
    t.workerDeps({ webhooks: { databaseUrl: t.db.url, settings: webhooks } }),
    t.deps.temporal.taskQueue,
  );
  dispatcher = await startWebhookDispatcher({
    client: t.temporal,
    taskQueue: t.deps.temporal.taskQueue,
    databaseUrl: t.db.url,
    tickMs: 500,
  });
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
});
afterAll(async () => {
  await dispatcher?.stop();
  await temporal?.close();
  await receiver?.close();
  await t?.close();
});

let hookSeq = 0;

/** Subscribes the account to an end event at a path of its own on the receiver; returns the path. */
async function subscribe(auth: Auth, event: string): Promise<string> {
  const path = `/ends-${++hookSeq}`;
  await api
    .post('/v1/webhooks')
    .set(auth)
    .send({ url: receiver.url(path), events: [event] })
    .expect(201);
  return path;
}

/** The `data` of the end webhook delivered to `path`. */
const deliveredEnd = (path: string, type: string) =>
  eventually(
    `the ${type} webhook`,
    async () => receiver.on(path).find((w) => w.payload.type === type)?.payload.data as { cost: number } | undefined,
    15_000,
    150,
  );

type Auth = { Authorization: string };
interface Record {
  id: string;
  status: string;
  provider_status: string | null;
  price_per_hour: number;
  started_at: string | null;
  ended_at: string | null;
  end_kind?: string;
  end_reason?: string;
  timeline: { event: string; at: string; reason?: string }[];
  cost: { to_date: number; posted: number; accrued: number };
  charges: { count: number; latest: { amount: number; instance_id: string }[] };
}

const launchBody = (provider: ProviderId, extra: { [k: string]: unknown } = {}) => ({
  provider,
  gpu_type: provider === 'lambda' ? 'h100-80gb-sxm' : 'rtx-a6000',
  ...(provider === 'lambda' ? { region: 'us-east-1' } : {}),
  ...extra,
});

const micros = (dollars: number) => Math.round(dollars * 1_000_000);

/** The instance's end event (the outbox row its webhook delivers). */
async function endEvent(accountId: string, id: string, type: string) {
  const rows = await t.sql<{ data: { cost: number; duration_seconds: number; at: string } }>(
    "SELECT data FROM events WHERE account_id = $1 AND type = $2 AND data->>'instance_id' = $3",
    [accountId, type, id],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.data;
}

/** What the ledger charged the instance, in micro-dollars (positive), read straight from the table. */
async function ledgerCharges(accountId: string, id: string): Promise<{ total: number; count: number }> {
  const [row] = await t.sql<{ total: string; count: string }>(
    'SELECT coalesce(-sum(amount_micros), 0) AS total, count(*) AS count FROM ledger_entries WHERE account_id = $1 ' +
      'AND instance_id = $2',
    [accountId, id],
  );
  return { total: Number(row!.total), count: Number(row!.count) };
}

const record = async (auth: Auth, id: string) => {
  const res = await t.http.get(`/v1/compute/${id}`).set(auth);
  expect(res.status).toBe(200);
  return res.body as Record;
};

const listedIds = async (auth: Auth) =>
  ((await t.http.get('/v1/compute').set(auth).expect(200)).body.data as { id: string }[]).map((i) => i.id);

async function launchRunning(provider: ProviderId, extra: { [k: string]: unknown } = {}) {
  const a = await t.connectedAccount(provider);
  const launched = await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody(provider, extra));
  expect(launched.status).toBe(201);
  const id = launched.body.id as string;
  await eventually(
    `${id} to be charged`,
    async () => ((await ledgerCharges(a.accountId, id)).count >= 1 ? true : undefined),
    30_000,
    150,
  );
  return { a, id, price: launched.body.price_per_hour as number };
}

it.concurrent.each(PROVIDERS)(
  '%s: the record of a running instance, then of the terminated one: timeline, cost equal to the ledger, ' +
    'gone from the live list at once',
  async (provider) => {
    const { a, id, price } = await launchRunning(provider);
    const hook = await subscribe(a.auth, 'instance.terminated');

    const running = await record(a.auth, id);
    const readAt = Date.now();
    expect(running).toMatchObject({ id, status: 'running', price_per_hour: price, ended_at: null });
    expect(running.end_kind).toBeUndefined();
    expect(running.timeline.map((e) => e.event)).toEqual(['requested', 'created', 'running']);
    expect(running.timeline.find((e) => e.event === 'running')!.at).toBe(running.started_at);
    // Cost to date is the ledger's charges plus what accrued since the last one.
    const ledgerNow = await ledgerCharges(a.accountId, id);
    expect(micros(running.cost.posted)).toBeLessThanOrEqual(ledgerNow.total);
    expect(
      Math.abs(micros(running.cost.to_date) - micros(running.cost.posted) - micros(running.cost.accrued)),
    ).toBeLessThanOrEqual(1);
    expect(running.cost.accrued).toBeGreaterThanOrEqual(0);
    // Never more than the price for the time it has run (however late the meter's last charge was).
    const ranMs = readAt - Date.parse(running.started_at!);
    expect(micros(running.cost.to_date)).toBeLessThanOrEqual(Math.ceil((micros(price) * ranMs) / 3_600_000) + 1);
    expect(running.charges.latest.every((c) => c.instance_id === id && c.amount < 0)).toBe(true);

    await terminated(t.http, a.auth, id);
    // The very next list no longer has it, whatever the provider's last round listed.
    expect(await listedIds(a.auth)).not.toContain(id);

    const ended = await record(a.auth, id);
    const ledger = await ledgerCharges(a.accountId, id);
    expect(ended).toMatchObject({ id, status: 'terminated', end_kind: 'terminated', cost: { accrued: 0 } });
    expect(micros(ended.cost.to_date)).toBe(ledger.total);
    expect(micros(ended.cost.posted)).toBe(ledger.total);
    expect(ended.charges.count).toBe(ledger.count);
    expect(ended.timeline.map((e) => e.event)).toEqual(['requested', 'created', 'running', 'terminated']);
    expect(ended.timeline.at(-1)!.at).toBe(ended.ended_at);
    // Its end event says what it cost and how long it ran, and so does the webhook that delivers it.
    const terminatedEvent = await endEvent(a.accountId, id, 'instance.terminated');
    expect(micros(terminatedEvent.cost)).toBe(ledger.total);
    expect(micros((await deliveredEnd(hook, 'instance.terminated')).cost)).toBe(ledger.total);
    expect(terminatedEvent.duration_seconds).toBe(
      Math.round((Date.parse(ended.ended_at!) - Date.parse(ended.started_at!)) / 1000),
    );

    // The ended list has it, with the same total.
    const page = (await t.http.get('/v1/compute?status=ended').set(a.auth).expect(200)).body;
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    expect(page.data).toEqual([
      expect.objectContaining({
        id,
        status: 'terminated',
        end_kind: 'terminated',
        started_at: ended.started_at,
        ended_at: ended.ended_at,
      }),
    ]);
    expect(micros(page.data[0].total_cost)).toBe(ledger.total);
  },
);

it.concurrent('runpod: a stopped pod reads stopped, with the stop on its timeline and nothing accruing', async () => {
  const { a, id } = await launchRunning('runpod');
  await t.http.post(`/v1/compute/${id}/stop`).set(a.auth).expect(200);
  const stopped = await record(a.auth, id);
  const ledger = await ledgerCharges(a.accountId, id);
  expect(stopped).toMatchObject({ status: 'stopped', ended_at: null, cost: { accrued: 0 } });
  expect(stopped.timeline.map((e) => e.event)).toEqual(['requested', 'created', 'running', 'stopped']);
  expect(micros(stopped.cost.to_date)).toBe(ledger.total);
  expect(await listedIds(a.auth)).toContain(id);
  await terminated(t.http, a.auth, id);
});

it.concurrent(
  'vastai: a preempted spot instance is in the ended list as preempted, ' +
    'its cost equal to its charges and to its end event',
  async () => {
    const { a, id } = await launchRunning('vastai', { spot: true });
    const hook = await subscribe(a.auth, 'spot.preempted');
    t.sims.vastai.control.preempt(a.simKey, id, 'remove');
    const ended = await eventually(
      'the preemption on the record',
      async () => {
        const r = await record(a.auth, id);
        return r.status === 'terminated' ? r : undefined;
      },
      15_000,
      150,
    );
    const ledger = await ledgerCharges(a.accountId, id);
    expect(ended).toMatchObject({ end_kind: 'preempted', end_reason: 'spot capacity reclaimed by the provider' });
    expect(ended.timeline.map((e) => e.event)).toEqual(['requested', 'created', 'running', 'preempted']);
    expect(micros(ended.cost.to_date)).toBe(ledger.total);
    expect(ledger.total).toBeGreaterThan(0);
    const preempted = await endEvent(a.accountId, id, 'spot.preempted');
    expect(micros(preempted.cost)).toBe(ledger.total);
    expect(micros((await deliveredEnd(hook, 'spot.preempted')).cost)).toBe(ledger.total);
    expect(preempted.duration_seconds).toBe(
      Math.round((Date.parse(ended.ended_at!) - Date.parse(ended.started_at!)) / 1000),
    );
    const page = (await t.http.get('/v1/compute?status=ended').set(a.auth).expect(200)).body;
    expect(page.data).toEqual([expect.objectContaining({ id, end_kind: 'preempted' })]);
    expect(micros(page.data[0].total_cost)).toBe(ledger.total);
    expect(await listedIds(a.auth)).not.toContain(id);
  },
);

it.concurrent("another account's instance is 404, and so is an id nobody has", async () => {
  const { a, id } = await launchRunning('lambda');
  const other = await t.connectedAccount('lambda');
  const res = await t.http.get(`/v1/compute/${id}`).set(other.auth);
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('not_found');
  expect((await t.http.get('/v1/compute/no-such-instance').set(a.auth)).status).toBe(404);
  await terminated(t.http, a.auth, id);
  expect((await t.http.get('/v1/compute?status=ended').set(other.auth).expect(200)).body.data).toEqual([]);
});

it.concurrent('the ended list pages newest first and refuses paging options on the live list', async () => {
  const a = await t.connectedAccount('runpod');
  const ids: string[] = [];
  for (let n = 0; n < 3; n++) {
    const id = (await t.http.post('/v1/compute/launch').set(a.auth).send(launchBody('runpod')).expect(201)).body
      .id as string;
    await terminated(t.http, a.auth, id);
    ids.push(id);
  }
  const first = (await t.http.get('/v1/compute?status=ended&limit=2').set(a.auth).expect(200)).body;
  expect(first.data.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
  expect(first.has_more).toBe(true);
  const second = (
    await t.http.get(`/v1/compute?status=ended&limit=2&cursor=${first.next_cursor}`).set(a.auth).expect(200)
  ).body;
  expect(second).toMatchObject({ data: [expect.objectContaining({ id: ids[0] })], has_more: false, next_cursor: null });
  expect((await t.http.get('/v1/compute?limit=2').set(a.auth)).status).toBe(400);
  expect((await t.http.get('/v1/compute?status=ended&cursor=nonsense').set(a.auth)).status).toBe(400);
});

it.concurrent(
  'gpuo instances show and gpuo instances ls --ended print the record, its timeline and the ended list',
  async () => {
    const { a, id } = await launchRunning('runpod');
    await terminated(t.http, a.auth, id);
    const server = t.app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const env = {
        GPUO_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        GPUO_API_KEY: a.apiKey,
      };
      const ledger = await ledgerCharges(a.accountId, id);
      // As the CLI prints dollars (four decimals, half away from zero on the micros, the last two dropped when
      // zero), escaped for a pattern.
      const dollars = (m: number) =>
        `\\$${(Math.round(m / 100) / 10_000)
          .toFixed(4)
          .replace(/0{1,2}$/, '')
          .replace('.', '\\.')}`;
      const total = dollars(ledger.total);

      const show = await gpuoInProcess(['instances', 'show', id], env);
      expect(show).toMatchObject({ code: 0, stderr: '' });
      expect(show.stdout).toMatch(new RegExp(`^status +terminated$`, 'm'));
      expect(show.stdout).toMatch(
        new RegExp(`^cost_to_date +${total} \\(charged ${total} in ${ledger.count}, accrued ${dollars(0)}\\)$`, 'm'),
      );
      expect(
        show.stdout
          .split('\n')
          .filter((l) => /^(requested|created|running|terminated) /.test(l))
          .map((l) => l.split(' ')[0]),
      ).toEqual(['requested', 'created', 'running', 'terminated']);

      const ended = await gpuoInProcess(['instances', 'ls', '--ended'], env);
      expect(ended).toMatchObject({ code: 0, stderr: '' });
      const line = ended.stdout.split('\n').find((l) => l.startsWith(id));
      expect(line).toMatch(new RegExp(` terminated +${total}$`));
      expect((await gpuoInProcess(['instances', 'ls'], env)).stdout).not.toContain(id);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
);

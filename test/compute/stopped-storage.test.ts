/**
 * A stopped RunPod pod's volume is charged, end to end (real Temporal dev server, Postgres, the RunPod
 * simulator, a 1 s meter interval): from the stop, at every meter boundary, as `instance_storage_charge` at the
 * configured price per GB-month; the storage counts in the summary's burn and month to date and in the spend
 * review depletion runs on; `POST …/start` ends the storage charges and the running charges resume. Vast.ai and
 * Lambda instances are never stopped here, so they have nothing to start (422); a start the balance cannot cover
 * is 402 and leaves the pod stopped.
 */
import { reviewAccountSpend } from '../../src/db/queries/depletion';
import { createTestContext, TEST_STARTING_CREDIT_DOLLARS, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

/** $73 a GB-month: a 100 GB volume costs 100 × 73 / 730 = $10 an hour, so a 1 s interval charges about $0.0028. */
const PER_GB_MONTH_MICROS = 73_000_000;
const VOLUME_GB = 100;
const STORAGE_PER_HOUR_MICROS = 10_000_000;

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 1_000 } });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(
    t.workerDeps({ stoppedStorage: { runpodPerGbMonthMicros: PER_GB_MONTH_MICROS } }),
    t.deps.temporal.taskQueue,
  );
  t.sims.runpod.control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Auth = { Authorization: string };
interface Txn {
  type: string;
  amount: number;
  instance_id?: string;
  created_at: string;
}

const transactions = async (auth: Auth, type: string): Promise<Txn[]> =>
  (await t.http.get(`/v1/billing/transactions?type=${type}&limit=100`).set(auth).expect(200)).body.data;
const micros = (dollars: number) => Math.round(dollars * 1_000_000);
const sumMicros = (txns: Txn[]) => txns.reduce((sum, x) => sum + micros(x.amount), 0);

async function waitForStatus(auth: Auth, id: string, status: string): Promise<void> {
  await eventually(
    `instance ${id} to be ${status}`,
    async () => {
      const res = await t.http.get('/v1/compute').set(auth);
      return (
        (res.body.data as { id: string; status: string }[]).some((i) => i.id === id && i.status === status) || undefined
      );
    },
    30_000,
    150,
  );
}

it(
  'a stopped pod with a 100 GB volume is charged for ' + 'storage at the configured price until it starts again',
  async () => {
    const a = await t.connectedAccount('runpod');
    const launched = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'runpod', gpu_type: 'rtx-a6000', volume_gb: VOLUME_GB })
      .expect(201);
    const id = launched.body.id as string;
    await waitForStatus(a.auth, id, 'running');
    expect((await t.http.post(`/v1/compute/${id}/stop`).set(a.auth)).status).toBe(200);

    // Storage charges post at the meter boundaries while it stays stopped, naming the instance.
    const stored = await eventually(
      'three storage charges',
      async () => {
        const txns = await transactions(a.auth, 'instance_storage_charge');
        return txns.length >= 3 ? txns : undefined;
      },
      30_000,
      200,
    );
    expect(stored.every((x) => x.instance_id === id && x.amount < 0)).toBe(true);

    // At the configured price: what was charged is $10/h over the time from the stop to the last storage charge
    // (each charge rounds to the micro-dollar on its own).
    const [row] = await t.sql<{ stopped_ms: number; charged_ms: number }>(
      `SELECT extract(epoch FROM metered_through) * 1000 AS stopped_ms, extract(epoch ` +
        `FROM storage_charged_through) * 1000 AS charged_ms
     FROM instances WHERE account_id = $1`,
      [a.accountId],
    );
    const charged = -sumMicros(await transactions(a.auth, 'instance_storage_charge'));
    const expected = (STORAGE_PER_HOUR_MICROS * (Number(row!.charged_ms) - Number(row!.stopped_ms))) / 3_600_000;
    expect(expected).toBeGreaterThan(0);
    expect(Math.abs(charged - expected)).toBeLessThanOrEqual(stored.length + 20);

    // The summary burns at the storage price alone (nothing runs) and counts the storage in month to date.
    const summary = (await t.http.get('/v1/billing/summary').set(a.auth).expect(200)).body;
    expect(summary.burn_rate_per_hour).toBe(10);
    expect(summary.live_instances).toBe(0);
    const storedAfter = -sumMicros(await transactions(a.auth, 'instance_storage_charge'));
    const instanceCharged = -sumMicros(await transactions(a.auth, 'instance_charge'));
    expect(micros(summary.month_to_date_spend)).toBeGreaterThanOrEqual(instanceCharged + charged);
    expect(micros(summary.month_to_date_spend)).toBeLessThanOrEqual(instanceCharged + storedAfter);
    expect(micros(summary.balance)).toBe(micros(TEST_STARTING_CREDIT_DOLLARS) - micros(summary.month_to_date_spend));

    // Depletion's look at the account: the storage is what burns, and its runway ($1000 at $10/h, under 100 h)
    // is low against a 200 h setting, so `billing.balance_low` is written.
    const review = await reviewAccountSpend(t.deps.pool, a.accountId, {
      graceMs: 60_000,
      lowRunwayMs: 200 * 3_600_000,
    });
    expect(review.accruingBurnMicros).toBe(STORAGE_PER_HOUR_MICROS);
    expect(review.unchargedMicros).toBeGreaterThanOrEqual(0);
    expect(review.unchargedMicros).toBeLessThan((STORAGE_PER_HOUR_MICROS / 3600) * 5);
    const events = await t.sql<{ type: string }>('SELECT type FROM events WHERE account_id = $1', [a.accountId]);
    expect(events.map((e) => e.type)).toContain('billing.balance_low');

    // Started again through the API: answered once it runs; storage charges end, running charges resume.
    const started = await t.http.post(`/v1/compute/${id}/start`).set(a.auth);
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('running');
    const storageAtStart = (await transactions(a.auth, 'instance_storage_charge')).length;
    const runningBefore = (await transactions(a.auth, 'instance_charge')).length;
    await eventually(
      'two running charges after the start',
      async () => (await transactions(a.auth, 'instance_charge')).length >= runningBefore + 2 || undefined,
      30_000,
      200,
    );
    expect((await transactions(a.auth, 'instance_storage_charge')).length).toBe(storageAtStart);
    expect((await t.http.get('/v1/billing/summary').set(a.auth).expect(200)).body.burn_rate_per_hour).not.toBe(10);
    await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth).expect(200);
  },
);

it(
  'start: 422 for vastai and lambda; ' + '402 when the balance cannot cover the window, and the pod stays stopped',
  async () => {
    for (const provider of ['vastai', 'lambda'] as const) {
      t.sims[provider].control.setBootDelay(300);
      const b = await t.connectedAccount(provider);
      const body = {
        provider,
        gpu_type: provider === 'lambda' ? 'h100-80gb-sxm' : 'rtx-a6000',
        ...(provider === 'lambda' ? { region: 'us-east-1' } : {}),
      };
      const id = (await t.http.post('/v1/compute/launch').set(b.auth).send(body).expect(201)).body.id as string;
      const res = await t.http.post(`/v1/compute/${id}/start`).set(b.auth);
      expect(res.status).toBe(422);
      expect(res.body.error.message).toMatch(/never stopped/);
      await t.http.post(`/v1/compute/${id}/terminate`).set(b.auth).expect(200);
    }

    const a = await t.connectedAccount('runpod');
    const id = (
      await t.http
        .post('/v1/compute/launch')
        .set(a.auth)
        .send({ provider: 'runpod', gpu_type: 'rtx-a6000', volume_gb: VOLUME_GB })
        .expect(201)
    ).body.id as string;
    await waitForStatus(a.auth, id, 'running');
    expect((await t.http.post(`/v1/compute/${id}/stop`).set(a.auth)).status).toBe(200);
    // The balance drops under what an hour of the pod (and its storage) needs.
    await t.sql('UPDATE account_balances SET balance_micros = 1000 WHERE account_id = $1', [a.accountId]);
    const refused = await t.http.post(`/v1/compute/${id}/start`).set(a.auth);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_balance');
    const listed = (await t.http.get('/v1/compute').set(a.auth)).body.data as { id: string; status: string }[];
    expect(listed.find((i) => i.id === id)?.status).toBe('stopped');
    await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth).expect(200);
  },
);

it('a terminate while a start waits for the pod to run ends the instance, and its workflow completes', async () => {
  const a = await t.connectedAccount('runpod');
  const id = (
    await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'runpod', gpu_type: 'rtx-a6000', volume_gb: VOLUME_GB })
      .expect(201)
  ).body.id as string;
  await waitForStatus(a.auth, id, 'running');
  expect((await t.http.post(`/v1/compute/${id}/stop`).set(a.auth)).status).toBe(200);
  t.sims.runpod.control.setBootDelay(60_000); // the start is accepted, the pod does not run during the test
  try {
    const starting = t.http
      .post(`/v1/compute/${id}/start`)
      .set(a.auth)
      .then((res) => res);
    await eventually(
      'the start reaching RunPod',
      async () => {
        const [row] = await t.sql<{ provider_status: string | null }>(
          'SELECT provider_status FROM instances WHERE account_id = $1',
          [a.accountId],
        );
        return row?.provider_status !== 'EXITED' || undefined;
      },
      30_000,
      100,
    );
    expect((await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth)).status).toBe(200);
    const started = await starting;
    // The start is over: it answers with the record the terminate left.
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('terminated');
    const [row] = await t.sql<{ id: string; status: string }>(
      'SELECT id, status FROM instances WHERE account_id = $1',
      [a.accountId],
    );
    expect(row!.status).toBe('terminated');
    const result = await t.deps.temporal.client.workflow.getHandle(row!.id).result();
    expect(result).toMatchObject({ outcome: 'terminated' });
  } finally {
    t.sims.runpod.control.setBootDelay(300);
  }
});

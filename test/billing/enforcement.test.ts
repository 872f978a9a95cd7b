/**
 * Balance enforcement end to end on the real Temporal dev server, real Postgres, the provider simulators and
 * stripe-mock: a launch the balance cannot cover for an hour is 402; a charge that takes the available balance
 * to zero makes the account's spend workflow emit `billing.balance_low` and `billing.balance_depleted` and, after
 * a compressed grace period, the account's instances are stopped (runpod) or terminated (others) with the reason
 * recorded; a top-up during the grace keeps them running. The depletion moment itself (a timer, with the default
 * meter interval) is test/billing/depletion-moment.test.ts. Each scenario has its own account, so the scenarios of
 * a describe block run side by side on the file's one worker; the worker restart has a task queue and worker of
 * its own, so that only its own worker goes away.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { z } from 'zod';
import { createLedgerQueries, type LedgerQueries } from '../../src/db/queries/ledger';
import { createPricingQueries } from '../../src/db/queries/pricing';
import { sql } from '../../src/db/sql';
import { createApp } from '../../src/http/app';
import { chargeForElapsed } from '../../src/domain/money';
import type { ProviderId } from '../../src/providers/types';
import { createBillingClient } from '../../src/workflow-clients/billing';
import { depletionWorkflowId, type BalanceDepletionResult } from '../../workflows/contracts/billing';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { checkoutCompletedEvent, signedDelivery, startTestStripe } from '../helpers/stripe';
import { createTemporalTestEnv, uniqueTaskQueue, type TemporalTestEnv } from '../helpers/temporal';
import { terminated } from '../helpers/terminate';

jest.setTimeout(180_000);

/** Compressed grace period: long enough to top up in under load, short enough for a test. */
const GRACE_MS = 8_000;

let t: TestContext;
let temporal: TemporalTestEnv;
let stripe: Awaited<ReturnType<typeof startTestStripe>>;
let ledger: LedgerQueries;

/** A worker of this file's settings on `taskQueue` (the one the file's API starts workflows on by default). */
function startWorker(taskQueue = t.deps.temporal.taskQueue) {
  return temporal.startWorker(
    t.workerDeps({ temporal: { client: t.temporal, taskQueue }, balanceGraceMs: GRACE_MS }),
    taskQueue,
  );
}

beforeAll(async () => {
  stripe = await startTestStripe();
  t = await createTestContext({
    simulators: true,
    stripe: stripe.settings,
    launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 1_000 },
  });
  temporal = await createTemporalTestEnv();
  await startWorker();
  for (const p of ['runpod', 'vastai', 'lambda'] as const) t.sims[p].control.setBootDelay(300);
  ledger = createLedgerQueries(t.db.pool);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
  await stripe.mock.stop();
});

type Auth = { Authorization: string };

async function accountWith(providers: ProviderId[], credit: number) {
  const account = await t.newAccount('enforced', { credit });
  const simKeys: Partial<Record<ProviderId, string>> = {};
  for (const provider of providers) {
    simKeys[provider] = t.sims[provider].createKey();
    await t.http
      .post('/v1/settings/providers')
      .set(account.auth)
      .send({ provider, api_key: simKeys[provider] })
      .expect(201);
  }
  await t.http.post('/v1/ssh-keys').set(account.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
  return { ...account, simKeys };
}

/** The simulator's on-demand price of one GPU-hour, in micros (what the balance check quotes without a snapshot). */
async function livePriceMicros(provider: ProviderId, gpuType: string): Promise<number> {
  const offers = await t.deps.adapters[provider].listOffers(t.sims[provider].createKey());
  const prices = offers.filter((o) => o.gpuType === gpuType && !o.spot).map((o) => Math.round(o.pricePerHour * 1e6));
  expect(prices.length).toBeGreaterThan(0);
  return Math.min(...prices);
}

const events = (accountId: string) =>
  t.db.pool.any(sql.type(z.object({ type: z.string(), data: z.record(z.unknown()) }))`
    SELECT type, data FROM events WHERE account_id = ${accountId} ORDER BY created_at, id`);

async function waitForStatus(auth: Auth, id: string, status: string, timeoutMs = 30_000) {
  return eventually(
    `instance ${id} to be ${status}`,
    async () => {
      const res = await t.http.get('/v1/compute').set(auth);
      const found = (res.body.data as { id: string; status: string }[]).find((i) => i.id === id);
      return found?.status === status ? found : undefined;
    },
    timeoutMs,
    150,
  );
}

/** Takes the balance down to `leftMicros` with one charge, the way another instance's metering would. */
async function drainTo(accountId: string, leftMicros: number, instanceId: string) {
  const balance = await ledger.getBalance(accountId);
  await ledger.postEntry({
    accountId,
    type: 'instance_charge',
    amountMicros: -(balance - leftMicros),
    description: 'GPU time (elsewhere)',
    instanceId,
    idempotencyKey: `drain-${randomBytes(6).toString('hex')}`,
  });
}

async function launch(auth: Auth, provider: ProviderId, extra: Record<string, unknown> = {}) {
  return t.http
    .post('/v1/compute/launch')
    .set(auth)
    .send({ provider, gpu_type: 'rtx-a6000', ...extra });
}

describe('launch needs the next hour of the fleet in the balance', () => {
  it.concurrent(
    'answers 402 insufficient_balance below price × 1 h and creates nothing; 201 at exactly one hour',
    async () => {
      const price = await livePriceMicros('runpod', 'rtx-a6000');
      const poor = await accountWith(['runpod'], (price - 1) / 1e6);
      const refused = await launch(poor.auth, 'runpod');
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('insufficient_balance');
      expect(refused.body.error.message).toContain('the next hour needs');
      expect(refused.body.error.message).toContain('POST /v1/billing/credit');
      expect(t.sims.runpod.control.instances(poor.simKeys.runpod!)).toEqual([]);

      // Two GPUs need two hours of one GPU's price.
      const exact = await accountWith(['runpod'], price / 1e6);
      expect((await launch(exact.auth, 'runpod', { gpu_count: 2 })).status).toBe(402);
      const ok = await launch(exact.auth, 'runpod', { name: 'fits' });
      expect(ok.status).toBe(201);
      await terminated(t.http, exact.auth, ok.body.id);
    },
  );

  it.concurrent('answers 402 for an empty balance', async () => {
    const empty = await accountWith(['vastai'], 0);
    const res = await launch(empty.auth, 'vastai');
    expect(res.status).toBe(402);
    expect(t.sims.vastai.control.instances(empty.simKeys.vastai!)).toEqual([]);
  });

  it.concurrent('prices the first hour from the pricing snapshot when it has the offer', async () => {
    // A GPU no other test of this file launches at runpod (they run beside this one): they keep the live price.
    const gpu = { gpu_type: 'rtx-4090' };
    const price = await livePriceMicros('runpod', 'rtx-4090');
    const account = await accountWith(['runpod'], (price * 3) / 1e6);
    const before = await launch(account.auth, 'runpod', { ...gpu, name: 'before-snapshot' });
    expect(before.status).toBe(201);
    // The snapshot says this GPU now costs 10× as much at runpod: 3 h of the old price no longer covers it.
    await createPricingQueries(t.db.pool).recordRefresh(
      {
        runpod: {
          ok: true,
          offers: [
            {
              provider: 'runpod',
              gpuType: 'rtx-4090',
              spot: false,
              region: null,
              pricePerHourMicros: price * 10,
              availability: 3,
            },
          ],
        },
        vastai: { ok: false, error: 'not asked' },
        lambda: { ok: false, error: 'not asked' },
      },
      new Date(),
    );
    await t.deps.pricing.reload();
    const refused = await launch(account.auth, 'runpod', { ...gpu, name: 'after-snapshot' });
    expect(refused.status).toBe(402);
    expect(refused.body.error.message).toContain(`$${((price * 10) / 1e6).toFixed(2)}/h`);
    await terminated(t.http, account.auth, before.body.id);
  });

  it.concurrent('still replays an Idempotency-Key launch after the balance fell', async () => {
    const account = await accountWith(['vastai'], 100);
    const first = await t.http
      .post('/v1/compute/launch')
      .set(account.auth)
      .set('Idempotency-Key', 'enf-replay')
      .send({ provider: 'vastai', gpu_type: 'rtx-a6000' });
    expect(first.status).toBe(201);
    await drainTo(account.accountId, 1, first.body.id);
    const replay = await t.http
      .post('/v1/compute/launch')
      .set(account.auth)
      .set('Idempotency-Key', 'enf-replay')
      .send({ provider: 'vastai', gpu_type: 'rtx-a6000' });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    const fresh = await t.http
      .post('/v1/compute/launch')
      .set(account.auth)
      .set('Idempotency-Key', 'enf-new')
      .send({ provider: 'vastai', gpu_type: 'rtx-a6000' });
    expect(fresh.status).toBe(402);
    await terminated(t.http, account.auth, first.body.id);
  });
});

describe('a depleted balance', () => {
  it.concurrent(
    'emits balance_low once and balance_depleted, then ends every instance after the grace period with the reason',
    async () => {
      const account = await accountWith(['runpod', 'vastai'], 100);
      const [pod, box] = await Promise.all([launch(account.auth, 'runpod'), launch(account.auth, 'vastai')]);
      expect([pod.status, box.status]).toEqual([201, 201]);
      await Promise.all([
        waitForStatus(account.auth, pod.body.id, 'running'),
        waitForStatus(account.auth, box.body.id, 'running'),
      ]);

      // A second and a half of the fleet left, and the spend workflow told, as metering tells it after its charges:
      // balance_low now, balance_depleted at the moment (or at the charge that crosses zero, whichever is first).
      const before = (await t.http.get('/v1/billing/summary').set(account.auth)).body as {
        uncharged: number;
        burn_rate_per_hour: number;
      };
      await drainTo(
        account.accountId,
        Math.round(before.uncharged * 1e6) + chargeForElapsed(Math.round(before.burn_rate_per_hour * 1e6), 1_500),
        pod.body.id,
      );
      await createBillingClient({ client: t.temporal, taskQueue: t.deps.temporal.taskQueue }).notifySpendChanged(
        account.accountId,
        { cause: 'charge' },
      );
      await eventually(
        'billing.balance_depleted',
        async () =>
          (await events(account.accountId)).some((e) => e.type === 'billing.balance_depleted') ? true : undefined,
        30_000,
      );
      const kinds = (await events(account.accountId)).map((e) => e.type);
      expect(kinds.filter((k) => k === 'billing.balance_low')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'billing.balance_depleted')).toHaveLength(1);
      // balance_low came with balance_depleted (the same write, the same created_at) or before it, never after.
      const [low] = await t.sql<{ created_at: Date }>(
        "SELECT created_at FROM events WHERE account_id = $1 AND type = 'billing.balance_low'",
        [account.accountId],
      );
      const [depleted] = await t.sql<{ created_at: Date }>(
        "SELECT created_at FROM events WHERE account_id = $1 AND type = 'billing.balance_depleted'",
        [account.accountId],
      );
      expect(low!.created_at.getTime()).toBeLessThanOrEqual(depleted!.created_at.getTime());
      // Depleted means the available balance (balance less uncharged usage) is gone, whether or not a charge came yet.
      expect((await t.http.get('/v1/billing/summary').set(account.auth)).body.available).toBeLessThanOrEqual(0);

      // During the grace period the instances keep running, in the account's list and at their providers.
      const listed = (await t.http.get('/v1/compute').set(account.auth)).body.data as { id: string; status: string }[];
      expect([pod.body.id, box.body.id].map((id) => listed.find((i) => i.id === id)?.status)).toEqual([
        'running',
        'running',
      ]);
      expect(t.sims.runpod.control.instances(account.simKeys.runpod!).map((i) => i.status)).toEqual(['RUNNING']);
      expect(t.sims.vastai.control.instances(account.simKeys.vastai!).map((i) => i.status)).toEqual(['running']);
      const handle = t.temporal.workflow.getHandle(depletionWorkflowId(account.accountId));
      expect((await handle.describe()).status.name).toBe('RUNNING');

      // The run returns once it asked every instance to end and none is live any more.
      const result = (await handle.result()) as BalanceDepletionResult;
      // Nothing was ended before the grace period was over: each end's charge runs past depletion + grace.
      const depletedAt = await t.db.pool.oneFirst(sql.type(z.object({ at: z.number() }))`
      SELECT trunc(extract(epoch FROM created_at) * 1000)::float8 AS at FROM events
      WHERE account_id = ${account.accountId} AND type = 'billing.balance_depleted'`);
      const endsMs = await t.db.pool.manyFirst(sql.type(z.object({ at: z.number() }))`
      SELECT trunc(extract(epoch FROM metered_through) * 1000)::float8 AS at FROM instances
        WHERE account_id = ${account.accountId}`);
      for (const at of endsMs) expect(at).toBeGreaterThanOrEqual(depletedAt + GRACE_MS - 2);
      expect(result.outcome).toBe('instances_ended');
      expect(result.endedInstanceIds).toHaveLength(2);

      // runpod is stopped, vastai terminated, each with the reason in its event.
      await waitForStatus(account.auth, pod.body.id, 'stopped', 60_000);
      await eventually(
        'the vastai instance to be gone',
        () => (t.sims.vastai.control.instances(account.simKeys.vastai!).length === 0 ? true : undefined),
        60_000,
      );
      const ends = await eventually(
        'both end events',
        async () => {
          const found = (await events(account.accountId)).filter(
            (e) => e.type === 'instance.stopped' || e.type === 'instance.terminated',
          );
          return found.length === 2 ? found : undefined;
        },
        60_000,
      );
      for (const e of ends) expect(e.data.reason).toMatch(/prepaid balance depleted/);
      expect(ends.map((e) => [e.type, e.data.instance_id]).sort()).toEqual(
        [
          ['instance.stopped', pod.body.id],
          ['instance.terminated', box.body.id],
        ].sort(),
      );
    },
  );

  it.concurrent('keeps the instances running when a top-up arrives during the grace period', async () => {
    const account = await accountWith(['vastai'], 100);
    const box = await launch(account.auth, 'vastai');
    expect(box.status).toBe(201);
    await waitForStatus(account.auth, box.body.id, 'running');
    await drainTo(account.accountId, 5, box.body.id);
    await eventually(
      'billing.balance_depleted',
      async () =>
        (await events(account.accountId)).some((e) => e.type === 'billing.balance_depleted') ? true : undefined,
      30_000,
    );
    const handle = t.temporal.workflow.getHandle(depletionWorkflowId(account.accountId));
    await eventually(
      'the grace period to run',
      async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined),
      30_000,
    );

    // Top up through Stripe: checkout session, then the signed webhook Stripe sends once paid.
    const session = await t.http.post('/v1/billing/credit').set(account.auth).send({ amount: 50 });
    expect(session.status).toBe(201);
    const paid = signedDelivery(
      checkoutCompletedEvent({ id: session.body.session_id, accountId: account.accountId, amountTotalCents: 5000 }),
      stripe.settings.webhookSecret,
    );
    const delivered = await t.http
      .post('/v1/billing/stripe/webhook')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', paid.signature)
      .send(paid.body);
    expect(delivered.status).toBe(200);

    expect((await t.http.get('/v1/billing/balance').set(account.auth)).body.balance).toBeGreaterThan(49);
    // The credit closed the depletion episode, which cancels the grace (that nothing ends the instance later,
    // well past the deadline, is asserted in workflow time: test/workflows/balance-depletion.test.ts); the
    // watch goes on while the instance runs.
    await eventually(
      'the depletion episode to close',
      async () =>
        (await t.db.pool.oneFirst(sql.type(z.object({ open: z.boolean() }))`
        SELECT depleted_at IS NOT NULL AS open FROM account_balances WHERE account_id = ${account.accountId}`))
          ? undefined
          : true,
      30_000,
      100,
    );
    expect((await waitForStatus(account.auth, box.body.id, 'running')).status).toBe('running');
    expect((await events(account.accountId)).map((e) => e.type)).not.toContain('instance.terminated');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await terminated(t.http, account.auth, box.body.id);
    // The instance's end finishes the watch: nothing was ended by it.
    expect(await handle.result()).toEqual({ outcome: 'idle', endedInstanceIds: [] });
  });

  it.concurrent('still ends the instances when the worker is restarted during the grace period', async () => {
    // An API and a worker on a task queue of their own: the restart leaves the scenarios beside this one alone.
    const taskQueue = uniqueTaskQueue();
    const api = request(createApp({ ...t.deps, temporal: { client: t.temporal, taskQueue } }).callback());
    const worker = await startWorker(taskQueue);
    const account = await accountWith(['vastai'], 100);
    const box = await api
      .post('/v1/compute/launch')
      .set(account.auth)
      .send({ provider: 'vastai', gpu_type: 'rtx-a6000' });
    expect(box.status).toBe(201);
    await waitForStatus(account.auth, box.body.id, 'running');
    await drainTo(account.accountId, 5, box.body.id);
    const handle = t.temporal.workflow.getHandle(depletionWorkflowId(account.accountId));
    await eventually(
      'the grace period to run',
      async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined),
      30_000,
    );

    // The worker goes away mid-grace; the timer lives in Temporal, and a new worker picks the run up.
    worker.worker.shutdown();
    await worker.running;
    await startWorker(taskQueue); // closed with the file's environment

    const result = (await handle.result()) as BalanceDepletionResult;
    expect(result.outcome).toBe('instances_ended');
    await eventually(
      'the vastai instance to be gone',
      () => (t.sims.vastai.control.instances(account.simKeys.vastai!).length === 0 ? true : undefined),
      60_000,
    );
    const ended = await eventually(
      'instance.terminated',
      async () => (await events(account.accountId)).find((e) => e.type === 'instance.terminated'),
      60_000,
    );
    expect(ended.data.reason).toMatch(/prepaid balance depleted/);
  });

  it.concurrent(
    'watches an account while it has live instances and writes nothing while the runway is long',
    async () => {
      const account = await accountWith(['vastai'], 100);
      const box = await launch(account.auth, 'vastai');
      await waitForStatus(account.auth, box.body.id, 'running');
      await eventually(
        'a metered charge',
        async () => {
          const res = await t.http.get('/v1/billing/transactions?type=instance_charge').set(account.auth);
          return res.body.data.length > 0 ? true : undefined;
        },
        60_000,
      ); // a deadline for a loaded machine
      const handle = t.temporal.workflow.getHandle(depletionWorkflowId(account.accountId));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const kinds = (await events(account.accountId)).map((e) => e.type);
      expect(kinds).not.toContain('billing.balance_low');
      expect(kinds).not.toContain('billing.balance_depleted');
      await terminated(t.http, account.auth, box.body.id);
      // With nothing live the watch finishes; a new launch starts a new one.
      expect(await handle.result()).toEqual({ outcome: 'idle', endedInstanceIds: [] });
    },
  );
});

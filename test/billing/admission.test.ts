/**
 * Spend admission on the real stack (Temporal dev server, Postgres, the Vast.ai simulator): a launch is admitted
 * only when the balance, less uncharged usage, covers the next hour of every live instance plus it, decided
 * under one lock per account, so launches racing one another cannot outrun the balance. Every test has its own
 * account (and the Vast.ai GPUs the others launch stay untouched by its faults), so the tests of each block run
 * side by side.
 */
import { z } from 'zod';
import { createPricingQueries } from '../../src/db/queries/pricing';
import { sql } from '../../src/db/sql';
import { toStoredOffer } from '../../src/domain/pricing';
import { keyHint } from '../../src/domain/key-vault';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { terminated } from '../helpers/terminate';

jest.setTimeout(180_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 } });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(
    t.workerDeps({ temporal: { client: t.temporal, taskQueue: t.deps.temporal.taskQueue } }),
    t.deps.temporal.taskQueue,
  );
  // Instances stay booting: nothing runs up usage while the test counts, so the arithmetic below is exact.
  t.sims.vastai.control.setBootDelay(600_000);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

/** The cheapest on-demand whole-instance price of one GPU at Vast.ai, in micros (what admission quotes). */
async function quoteMicros(gpuType: string): Promise<number> {
  const offers = await t.deps.adapters.vastai.listOffers(t.sims.vastai.createKey());
  return Math.min(
    ...offers.filter((o) => o.gpuType === gpuType && !o.spot).map((o) => Math.round(o.pricePerHour * 1e6)),
  );
}

async function fundedVastAccount(credit: number) {
  const account = await t.newAccount('admission', { credit });
  const simKey = t.sims.vastai.createKey();
  await t.http
    .post('/v1/settings/providers')
    .set(account.auth)
    .send({ provider: 'vastai', api_key: simKey })
    .expect(201);
  return { ...account, simKey };
}

const liveRows = (accountId: string) =>
  t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM instances WHERE account_id = ${accountId} AND status NOT IN ('failed',
      'terminated')`);

describe('admission covers the whole fleet for the next hour', () => {
  it.concurrent(
    '$5 and a $0.40/h offer: of 12 sequential and 12 concurrent launches exactly 12 are 201 and 12 are 402',
    async () => {
      const price = await quoteMicros('rtx-4090');
      // The offer is $0.40/h (plus Vast's disk charge): 12 fit in $5, 13 do not.
      expect(price * 12).toBeLessThanOrEqual(5_000_000);
      expect(price * 13).toBeGreaterThan(5_000_000);
      const account = await fundedVastAccount(5);
      const launch = (i: number) =>
        t.http
          .post('/v1/compute/launch')
          .set(account.auth)
          .set('Idempotency-Key', `adm-${i}`)
          .send({ provider: 'vastai', gpu_type: 'rtx-4090' });

      // Both kinds at once: a chain of 12 one after another racing 12 sent together.
      const sequential = (async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++) statuses.push((await launch(i)).status);
        return statuses;
      })();
      const concurrent = Promise.all(Array.from({ length: 12 }, (_, i) => launch(100 + i)));
      const [seq, conc] = await Promise.all([sequential, concurrent]);
      const statuses = [...seq, ...conc.map((r) => r.status)];
      expect(statuses.filter((s) => s === 201)).toHaveLength(12);
      expect(statuses.filter((s) => s === 402)).toHaveLength(12);

      // Exactly 12 exist at the provider and in the account; each refusal names the numbers.
      expect(t.sims.vastai.control.instances(account.simKey)).toHaveLength(12);
      expect(await liveRows(account.accountId)).toBe(12);
      const refusal = conc.find((r) => r.status === 402) ?? (await launch(999));
      expect(refusal.body.error.code).toBe('insufficient_balance');
      expect(refusal.body.error.message).toContain('The balance is $5.00');
      expect(refusal.body.error.message).toContain(`this launch adds $${(price / 1e6).toFixed(2)}/h`);
      expect(refusal.body.error.message).toMatch(/burn \$4\.\d\d\/h/);

      // A replay of an admitted launch is never refused, even with the fleet at the limit.
      const keys = [...Array.from({ length: 12 }, (_, i) => i), ...Array.from({ length: 12 }, (_, i) => 100 + i)];
      const replay = await launch(keys[statuses.indexOf(201)]!);
      expect(replay.status).toBe(201);

      // Ending one frees its hour: the next launch fits again.
      const first = replay.body.id as string;
      await terminated(t.http, account.auth, first);
      expect((await launch(500)).status).toBe(201);
      expect(await liveRows(account.accountId)).toBe(12);

      await Promise.all(
        t.sims.vastai.control
          .instances(account.simKey)
          .map((i) => t.http.post(`/v1/compute/${i.id}/terminate`).set(account.auth).expect(200)),
      );
    },
  );

  it.concurrent('counts usage run up and not yet charged against the balance', async () => {
    const price = await quoteMicros('rtx-4090');
    // Two hours of one instance, less what an earlier instance has run and not been charged: only one more hour fits.
    const account = await fundedVastAccount((2 * price) / 1e6);
    const rowId = await t.db.pool.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
        gpu_count,
        price_per_hour_micros, started_at, metered_through)
      VALUES ('launch-elsewhere-' || ${account.accountId}, ${account.accountId}, 'h', 'vastai', 'elsewhere-'
        || ${account.accountId},
        'elsewhere', 'running', 'rtx-4090', 1, ${price}, now() - interval '30 minutes', now() - interval '30 minutes')
      RETURNING id`);
    // Half an hour uncharged of the one running: 2 h − 0.5 h = 1.5 h available < 2 h needed.
    const res = await t.http
      .post('/v1/compute/launch')
      .set(account.auth)
      .send({ provider: 'vastai', gpu_type: 'rtx-4090' });
    expect(res.status).toBe(402);
    expect(res.body.error.message).toContain(`$${(price / 2 / 1e6).toFixed(2)} of it already run up`);
    await t.db.pool.query(sql.typeAlias('void')`UPDATE instances SET status = 'terminated' WHERE id = ${rowId}`);
    expect(
      (await t.http.post('/v1/compute/launch').set(account.auth).send({ provider: 'vastai', gpu_type: 'rtx-4090' }))
        .status,
    ).toBe(201);
    await Promise.all(
      t.sims.vastai.control
        .instances(account.simKey)
        .map((i) => t.http.post(`/v1/compute/${i.id}/terminate`).set(account.auth).expect(200)),
    );
  });

  it.concurrent(
    'scheduled runs are admitted by the same rule and lock: $5 and a $0.40/h offer, ' +
      '6 runs racing 18 launches → exactly 12 admitted in all',
    async () => {
      // Runs pick their offer from the stored pricing tables: record the simulator's offers as a refresh would.
      const offers = (await t.deps.adapters.vastai.listOffers(t.sims.vastai.createKey())).map(toStoredOffer);
      await createPricingQueries(t.db.pool).recordRefresh(
        {
          vastai: { ok: true, offers },
          runpod: { ok: false, error: 'not asked' },
          lambda: { ok: false, error: 'not asked' },
        },
        new Date(),
      );
      await t.deps.pricing.reload();
      const account = await fundedVastAccount(5);
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t.http
            .post('/v1/schedules')
            .set(account.auth)
            .send({ name: `race-${i}`, gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 29 2 *', prefer_spot: false }),
        ),
      );
      expect(created.map((res) => res.status)).toEqual(created.map(() => 201));
      const schedules = created.map((res) => res.body.id as string);
      const [launches] = await Promise.all([
        Promise.all(
          Array.from({ length: 18 }, () =>
            t.http.post('/v1/compute/launch').set(account.auth).send({ provider: 'vastai', gpu_type: 'rtx-4090' }),
          ),
        ),
        Promise.all(schedules.map((id) => t.http.post(`/v1/schedules/${id}/trigger`).set(account.auth).expect(202))),
      ]);
      type Run = { status: string; error: string | null };
      const settled = await eventually(
        'every run to be launched or refused',
        async () => {
          const all = await Promise.all(
            schedules.map(
              async (id) => ((await t.http.get(`/v1/schedules/${id}/runs`).set(account.auth)).body.data as Run[])[0],
            ),
          );
          return all.every((r) => r && (r.status === 'failed' || r.status === 'launching')) &&
            (await liveRows(account.accountId)) +
              all.filter((r) => r!.status === 'failed').length +
              launches.filter((l) => l.status === 402).length ===
              24
            ? (all as Run[])
            : undefined;
        },
        60_000,
        250,
      );
      const admittedRuns = settled.filter((r) => r.status !== 'failed').length;
      const refusedRuns = settled.filter((r) => r.status === 'failed');
      for (const r of refusedRuns)
        expect(r.error).toMatch(/^(\w+( \(spot\))?: )?insufficient_balance: The balance is \$5\.00/);
      expect(launches.filter((l) => l.status === 201).length + admittedRuns).toBe(12);
      expect(launches.filter((l) => l.status === 402).length + refusedRuns.length).toBe(12);
      expect(await liveRows(account.accountId)).toBe(12);
      await eventually(
        '12 instances at the provider',
        () => (t.sims.vastai.control.instances(account.simKey).length === 12 ? true : undefined),
        60_000,
        250,
      );
      await Promise.all(schedules.map((id) => t.http.delete(`/v1/schedules/${id}`).set(account.auth)));
      await Promise.all(
        t.sims.vastai.control
          .instances(account.simKey)
          .map((i) => t.http.post(`/v1/compute/${i.id}/terminate`).set(account.auth)),
      );
    },
  );
});

describe('no launch is admitted without a price', () => {
  it.concurrent(
    '20 concurrent launches of an offer nobody quotes, on $0.01: none admitted, each 422 price_unknown, ' +
      'nothing at the provider',
    async () => {
      const account = await t.newAccount('unpriced', { credit: 0.01 });
      const simKey = t.sims.lambda.createKey();
      await t.http
        .post('/v1/settings/providers')
        .set(account.auth)
        .send({ provider: 'lambda', api_key: simKey })
        .expect(201);
      await t.http
        .post('/v1/ssh-keys')
        .set(account.auth)
        .send({ name: 'laptop', public_key: ed25519Key() })
        .expect(201);
      // Lambda offers the RTX A6000 in us-west-1 and asia-northeast-1 only: no snapshot or live offer prices us-east-1.
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.http
            .post('/v1/compute/launch')
            .set(account.auth)
            .set('Idempotency-Key', `unpriced-${i}`)
            .send({ provider: 'lambda', gpu_type: 'rtx-a6000', region: 'us-east-1' }),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(422));
      for (const r of answers) {
        expect(r.body.error).toMatchObject({
          code: 'price_unknown',
          message: expect.stringContaining('No price is known for rtx-a6000 on lambda in us-east-1'),
        });
      }
      expect(await liveRows(account.accountId)).toBe(0);
      expect(t.sims.lambda.control.instances(simKey)).toEqual([]);
      // None was admitted: no create ever reached Lambda.
      expect(
        t.sims.lambda.control.requests({ method: 'POST', key: simKey }).filter((r) => /launch/.test(r.path)),
      ).toEqual([]);
      // A priced launch of the same account is still decided on its price (and $0.01 does not cover an hour).
      const priced = await t.http
        .post('/v1/compute/launch')
        .set(account.auth)
        .send({ provider: 'lambda', gpu_type: 'rtx-a6000', region: 'us-west-1' });
      expect(priced.status).toBe(402);
    },
  );
});

describe('an Idempotency-Key is bound to its first body for 24 h', () => {
  const launchWith = (auth: { Authorization: string }, key: string, body: Record<string, unknown>) =>
    t.http.post('/v1/compute/launch').set(auth).set('Idempotency-Key', key).send(body);

  it.concurrent(
    'after a 402: another body is 409; the same body runs every check again and launches once the balance covers it',
    async () => {
      const account = await fundedVastAccount(0);
      const body = { provider: 'vastai', gpu_type: 'rtx-4090' };
      expect((await launchWith(account.auth, 'bound-1', body)).status).toBe(402);
      const other = await launchWith(account.auth, 'bound-1', {
        provider: 'vastai',
        gpu_type: 'rtx-3090',
        name: 'other',
      });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('conflict');
      // Still no money: the same body is refused again (the check ran, nothing was replayed).
      expect((await launchWith(account.auth, 'bound-1', body)).status).toBe(402);
      await t.db.pool.query(
        sql.typeAlias(
          'void',
        )`UPDATE account_balances SET balance_micros = 10000000 WHERE account_id = ${account.accountId}`,
      );
      const ok = await launchWith(account.auth, 'bound-1', body);
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ provider: 'vastai', gpu_type: 'rtx-4090' });
      expect(t.sims.vastai.control.instances(account.simKey).map((i) => i.id)).toEqual([ok.body.id]);
      await terminated(t.http, account.auth, ok.body.id);
    },
  );

  it.concurrent(
    'after a failed launch: another body is 409 and the record keeps describing the request that created its instance',
    async () => {
      const account = await fundedVastAccount(100);
      t.sims.vastai.control.setNoCapacity('RTX 3090', true, { mode: 'unavailable' });
      try {
        const failed = await launchWith(account.auth, 'bound-2', { provider: 'vastai', gpu_type: 'rtx-3090' });
        expect(failed.status).toBeGreaterThanOrEqual(400);
        expect([402, 409]).not.toContain(failed.status);
      } finally {
        t.sims.vastai.control.setNoCapacity('RTX 3090', false);
      }
      expect((await launchWith(account.auth, 'bound-2', { provider: 'vastai', gpu_type: 'rtx-4090' })).status).toBe(
        409,
      );
      const ok = await launchWith(account.auth, 'bound-2', { provider: 'vastai', gpu_type: 'rtx-3090' });
      expect(ok.status).toBe(201);
      const row = await t.db.pool.one(sql.type(
        z.object({ provider: z.string(), gpu_type: z.string(), status: z.string() }),
      )`
      SELECT provider, gpu_type, status FROM instances WHERE provider_instance_id = ${ok.body.id}`);
      expect(row).toEqual({ provider: 'vastai', gpu_type: 'rtx-3090', status: 'provisioning' });
      await terminated(t.http, account.auth, ok.body.id);
    },
  );
});

describe('a provider key cannot be swapped under live instances', () => {
  it.concurrent(
    'a key of another provider account is 409 naming the instances; the instance stays managed with the old key',
    async () => {
      const account = await fundedVastAccount(100);
      const launched = await t.http
        .post('/v1/compute/launch')
        .set(account.auth)
        .send({ provider: 'vastai', gpu_type: 'rtx-4090' });
      expect(launched.status).toBe(201);
      const otherAccountKey = t.sims.vastai.createKey();
      const swap = await t.http
        .post('/v1/settings/providers')
        .set(account.auth)
        .send({ provider: 'vastai', api_key: otherAccountKey });
      expect(swap.status).toBe(409);
      expect(swap.body.error.message).toContain(launched.body.id);
      expect(swap.body.error.details).toEqual([expect.objectContaining({ instance_id: launched.body.id })]);
      // Nothing changed: the old key is still the one in use, and it still ends the instance.
      const keys = (await t.http.get('/v1/settings/providers').set(account.auth)).body.data as { key_hint: string }[];
      expect(keys[0]!.key_hint).toBe(keyHint(account.simKey));
      // The same provider account's key (here: the same key again) may replace it.
      expect(
        (
          await t.http
            .post('/v1/settings/providers')
            .set(account.auth)
            .send({ provider: 'vastai', api_key: account.simKey })
        ).status,
      ).toBe(200);
      await terminated(t.http, account.auth, launched.body.id);
      expect(t.sims.vastai.control.instances(account.simKey)).toEqual([]);
    },
  );
});

describe('GET /v1/billing/summary', () => {
  it.concurrent(
    'agrees with the ledger to the micro-dollar and shows burn, runway and the depletion moment',
    async () => {
      const account = await fundedVastAccount(10);
      const price = 2_000_000; // $2/h, running for the last 30 minutes, charged for the first 20 of them
      const insertedFrom = Date.now();
      await t.db.pool.query(sql.typeAlias('void')`
      INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
        gpu_count,
        price_per_hour_micros, started_at, metered_through)
      VALUES ('launch-sum-' || ${account.accountId}, ${account.accountId}, 'h', 'vastai', 'sum-'
        || ${account.accountId}, 'sum',
        'running', 'rtx-4090', 1, ${price}, now() - interval '30 minutes', now() - interval '10 minutes')`);
      await t.db.pool.query(sql.typeAlias('void')`
      INSERT INTO ledger_entries (id, account_id, type, amount_micros, balance_after_micros, description, instance_id,
        idempotency_key)
      VALUES ('txn_sum_' || ${account.accountId}, ${account.accountId}, 'instance_charge', -666667, 9333333, 'GPU time',
        'sum', 'sum-charge')`);
      await t.db.pool.query(sql.typeAlias('void')`
      UPDATE account_balances SET balance_micros = 9333333 WHERE account_id = ${account.accountId}`);

      const before = Date.now();
      const res = await t.http.get('/v1/billing/summary').set(account.auth);
      const answered = Date.now();
      expect(res.status).toBe(200);
      const s = res.body as Record<string, number | string | null>;
      const balance = (await t.http.get('/v1/billing/balance').set(account.auth)).body.balance as number;
      const charges = (await t.http.get('/v1/billing/transactions?type=instance_charge').set(account.auth)).body
        .data as { amount: number }[];
      expect(s.balance).toBe(balance);
      expect(s.balance).toBe(9.333333);
      expect(s.month_to_date_spend).toBe(-charges.reduce((sum, c) => sum + c.amount, 0));
      // Ten minutes at $2/h are uncharged, and what has run since the rows were written (by this machine's clock:
      // the summary read them between then and its answer).
      expect(s.uncharged as number).toBeGreaterThanOrEqual(0.333333);
      expect(s.uncharged as number).toBeLessThanOrEqual(
        Math.ceil((price * (10 * 60_000 + answered - insertedFrom)) / 3_600_000) / 1e6 + 0.000001,
      );
      expect(Math.round((s.available as number) * 1e6)).toBe(
        Math.round((s.balance as number) * 1e6) - Math.round((s.uncharged as number) * 1e6),
      );
      expect(s.burn_rate_per_hour).toBe(2);
      expect(s.live_instances).toBe(1);
      // Runway is rounded down to the hundredth of an hour.
      expect(s.runway_hours).toBe(Math.floor(((s.available as number) / 2) * 100) / 100);
      // The moment available reaches zero at this burn, from the summary's own now (between the request and its
      // answer).
      const depletes = Date.parse(s.depletes_at as string);
      const runwayMs = ((s.available as number) / 2) * 3_600_000;
      expect(depletes).toBeGreaterThanOrEqual(Math.floor(before + runwayMs) - 1);
      expect(depletes).toBeLessThanOrEqual(Math.ceil(answered + runwayMs) + 1);
      expect(s.forecast_month_spend as number).toBeGreaterThanOrEqual(
        (s.month_to_date_spend as number) + (s.uncharged as number),
      );
      expect(s.currency).toBe('usd');
      // The balance record itself stays exactly as specified.
      expect(Object.keys((await t.http.get('/v1/billing/balance').set(account.auth)).body).sort()).toEqual([
        'balance',
        'currency',
      ]);
      await t.db.pool.query(
        sql.typeAlias('void')`UPDATE instances SET status = 'terminated' WHERE account_id = ${account.accountId}`,
      );
      const idle = (await t.http.get('/v1/billing/summary').set(account.auth)).body;
      expect(idle).toMatchObject({
        burn_rate_per_hour: 0,
        uncharged: 0,
        runway_hours: null,
        depletes_at: null,
        live_instances: 0,
      });
    },
  );
});

/**
 * /v1/alerts on real Postgres: strict validation per type, records with a live current_value, paging,
 * cross-account isolation, and the set-based evaluation itself (exactly once under racing evaluations,
 * deleted alerts never trigger). The monitor workflow around it is in monitor.test.ts.
 */
import { createAlertQueries } from '../../src/db/queries/alerts';
import { createLedgerQueries } from '../../src/db/queries/ledger';
import { createPricingQueries, type ProviderOutcome } from '../../src/db/queries/pricing';
import type { StoredOffer } from '../../src/domain/pricing';
import type { ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;

beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

const offer = (
  provider: ProviderId,
  gpuType: string,
  price: number,
  extra: Partial<StoredOffer> = {},
): StoredOffer => ({
  provider,
  gpuType,
  spot: false,
  region: null,
  pricePerHourMicros: Math.round(price * 1e6),
  availability: 3,
  ...extra,
});

/** Stores a pricing refresh the way the refresh workflow does. */
async function pricesAre(offers: StoredOffer[]): Promise<void> {
  const outcomes = Object.fromEntries(
    (['runpod', 'vastai', 'lambda'] as const).map((p) => [
      p,
      { ok: true, offers: offers.filter((o) => o.provider === p) },
    ]),
  ) as Record<ProviderId, ProviderOutcome>;
  await createPricingQueries(t.db.pool).recordRefresh(outcomes, new Date());
}

const alertEvents = (accountId: string) =>
  t.sql<{ data: { alert: { id: string }; value: number; offer?: Record<string, unknown> } }>(
    `SELECT data FROM events WHERE account_id = $1 AND type = 'alert.triggered' ORDER BY created_at`,
    [accountId],
  );

describe('POST /v1/alerts', () => {
  it('creates a price_drop alert with action notify by default and its current lowest available price', async () => {
    await pricesAre([
      offer('runpod', 'rtx-4090', 0.69),
      offer('vastai', 'rtx-4090', 0.31, { availability: 0 }), // not available: not the current value
      offer('vastai', 'rtx-4090', 0.4, { spot: true }),
    ]);
    const a = await t.newAccount();
    const res = await t.http
      .post('/v1/alerts')
      .set(a.auth)
      .send({ type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 0.35 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^alert_[1-9A-HJ-NP-Za-km-z]{22}$/),
      type: 'price_drop',
      action: 'notify',
      status: 'active',
      gpu_type: 'rtx-4090',
      threshold_price: 0.35,
      current_value: 0.4,
      triggered_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it("creates a budget_limit alert whose current value is this month's instance charges", async () => {
    const a = await t.newAccount();
    const ledger = createLedgerQueries(t.db.pool);
    await ledger.postEntry({
      accountId: a.accountId,
      type: 'credit_topup',
      amountMicros: 50_000_000,
      description: 'top-up',
      idempotencyKey: 'k0',
    });
    await ledger.postEntry({
      accountId: a.accountId,
      type: 'instance_charge',
      amountMicros: -1_250_000,
      description: 'c',
      instanceId: 'i1',
      idempotencyKey: 'k1',
    });
    await ledger.postEntry({
      accountId: a.accountId,
      type: 'instance_charge',
      amountMicros: -250_001,
      description: 'c',
      instanceId: 'i1',
      idempotencyKey: 'k2',
    });
    // A charge of last month does not count.
    await ledger.postEntry({
      accountId: a.accountId,
      type: 'instance_charge',
      amountMicros: -9_000_000,
      description: 'c',
      instanceId: 'i1',
      idempotencyKey: 'k3',
    });
    await t.sql(
      `UPDATE ledger_entries SET created_at = date_trunc('month', now(), 'UTC') - interval '1 second' ` +
        `WHERE idempotency_key = 'k3' AND account_id = $1`,
      [a.accountId],
    );

    const res = await t.http
      .post('/v1/alerts')
      .set(a.auth)
      .send({ type: 'budget_limit', threshold_dollars: 100, action: 'stop_instances' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'budget_limit',
      action: 'stop_instances',
      status: 'active',
      threshold_dollars: 100,
      current_value: 1.500001,
    });
    expect(res.body).not.toHaveProperty('gpu_type');
    expect(res.body).not.toHaveProperty('threshold_price');
  });

  it.each([
    [
      'a field of the other type',
      { type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 1, threshold_dollars: 5 },
      'threshold_dollars',
    ],
    ['a field of the other type', { type: 'budget_limit', threshold_dollars: 5, gpu_type: 'rtx-4090' }, 'gpu_type'],
    ['an unknown GPU', { type: 'price_drop', gpu_type: 'tpu-v5', threshold_price: 1 }, 'gpu_type'],
    ['a zero threshold', { type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 0 }, 'threshold_price'],
    ['a negative threshold', { type: 'budget_limit', threshold_dollars: -5 }, 'threshold_dollars'],
    ['a threshold below one micro-dollar', { type: 'budget_limit', threshold_dollars: 0.0000001 }, 'threshold_dollars'],
    ['a threshold as a string', { type: 'budget_limit', threshold_dollars: '5' }, 'threshold_dollars'],
    ['a huge threshold', { type: 'budget_limit', threshold_dollars: 1e300 }, 'threshold_dollars'],
    ['a huge price', { type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 10_000.01 }, 'threshold_price'],
    ['a missing threshold', { type: 'price_drop', gpu_type: 'rtx-4090' }, 'threshold_price'],
    ['a missing gpu_type', { type: 'price_drop', threshold_price: 1 }, 'gpu_type'],
    ['an unknown action', { type: 'budget_limit', threshold_dollars: 5, action: 'page_me' }, 'action'],
    [
      'stop_instances on a price alert',
      { type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 1, action: 'stop_instances' },
      'action',
    ],
    ['an unknown type', { type: 'spend_spike', threshold_dollars: 5 }, 'type'],
    ['no type', { threshold_dollars: 5 }, 'type'],
    ['a server-owned field', { type: 'budget_limit', threshold_dollars: 5, status: 'triggered' }, 'status'],
  ])('answers 400 validation_error for %s', async (_what, body, path) => {
    const a = await t.newAccount();
    const res = await t.http.post('/v1/alerts').set(a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect((await t.http.get('/v1/alerts').set(a.auth)).body.data).toEqual([]);
  });

  it('answers 400 invalid_json and 401 without a key', async () => {
    const a = await t.newAccount();
    const bad = await t.http.post('/v1/alerts').set(a.auth).set('Content-Type', 'application/json').send('{"type":');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
    expect((await t.http.post('/v1/alerts').send({ type: 'budget_limit', threshold_dollars: 5 })).status).toBe(401);
  });
});

describe('GET and DELETE /v1/alerts', () => {
  it("lists newest first, filters by status, pages with a cursor, and hides other accounts' alerts", async () => {
    const a = await t.newAccount();
    const other = await t.newAccount();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push(
        (await t.http.post('/v1/alerts').set(a.auth).send({ type: 'budget_limit', threshold_dollars: i })).body.id,
      );
    }
    await t.http.post('/v1/alerts').set(other.auth).send({ type: 'budget_limit', threshold_dollars: 1 }).expect(201);
    await t.sql(`UPDATE alerts SET status = 'triggered', triggered_at = now() WHERE id = $1`, [ids[1]]);

    const all = await t.http.get('/v1/alerts').set(a.auth);
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });

    const triggered = await t.http.get('/v1/alerts?status=triggered').set(a.auth);
    expect(triggered.body.data).toEqual([
      expect.objectContaining({ id: ids[1], status: 'triggered', triggered_at: expect.any(String) }),
    ]);
    const active = await t.http.get('/v1/alerts?status=active').set(a.auth);
    expect(active.body.data.map((x: { id: string }) => x.id)).toEqual([ids[4], ids[3], ids[2], ids[0]]);

    const first = await t.http.get('/v1/alerts?limit=2').set(a.auth);
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await t.http.get(`/v1/alerts?limit=2&cursor=${first.body.next_cursor}`).set(a.auth);
    expect(second.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    const third = await t.http.get(`/v1/alerts?limit=2&cursor=${second.body.next_cursor}`).set(a.auth);
    expect(third.body).toMatchObject({
      data: [expect.objectContaining({ id: ids[0] })],
      has_more: false,
      next_cursor: null,
    });

    for (const q of ['status=done', 'limit=0', 'limit=201', 'cursor=nope', 'colour=red']) {
      const res = await t.http.get(`/v1/alerts?${q}`).set(a.auth);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it("deletes the account's own alert (200, then 404) and answers 404 for another account's", async () => {
    const a = await t.newAccount();
    const other = await t.newAccount();
    const id = (await t.http.post('/v1/alerts').set(a.auth).send({ type: 'budget_limit', threshold_dollars: 3 })).body
      .id;
    const foreign = await t.http.delete(`/v1/alerts/${id}`).set(other.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await t.http.delete(`/v1/alerts/${id}`).set(a.auth)).body).toEqual({ id, deleted: true });
    expect((await t.http.delete(`/v1/alerts/${id}`).set(a.auth)).status).toBe(404);
    expect((await t.http.get('/v1/alerts').set(a.auth)).body.data).toEqual([]);
  });

  it('answers 4xx, never 5xx, for odd ids', async () => {
    const a = await t.newAccount();
    for (const id of ['%00', 'alert_%01x', 'x'.repeat(101), '%E2%9C%93', "'%3B--"]) {
      const res = await t.http.delete(`/v1/alerts/${id}`).set(a.auth);
      expect([400, 404]).toContain(res.status);
      expect(res.body.error.code).toMatch(/validation_error|not_found/);
    }
  });
});

describe('evaluation', () => {
  it('moves every matching alert exactly once when two evaluations race, with one event each', async () => {
    await pricesAre([
      offer('runpod', 'a40-48gb', 0.49),
      offer('vastai', 'a40-48gb', 0.18, { spot: true, region: 'EU' }),
      offer('lambda', 'b200', 4.99),
    ]);
    const accounts = await Promise.all([t.newAccount(), t.newAccount(), t.newAccount()]);
    const matching: string[] = [];
    const notMatching: string[] = [];
    for (const [i, a] of accounts.entries()) {
      for (let k = 0; k < 20; k++) {
        const threshold = 0.18 + k * 0.01; // 0.18 (equal: triggers) and above
        matching.push(
          (
            await t.http
              .post('/v1/alerts')
              .set(a.auth)
              .send({ type: 'price_drop', gpu_type: 'a40-48gb', threshold_price: threshold })
          ).body.id,
        );
      }
      notMatching.push(
        (
          await t.http
            .post('/v1/alerts')
            .set(a.auth)
            .send({ type: 'price_drop', gpu_type: 'a40-48gb', threshold_price: 0.179999 })
        ).body.id,
      );
      notMatching.push(
        (
          await t.http
            .post('/v1/alerts')
            .set(a.auth)
            .send({ type: 'price_drop', gpu_type: 'b200', threshold_price: 4.98 - i })
        ).body.id,
      );
      notMatching.push(
        (
          await t.http
            .post('/v1/alerts')
            .set(a.auth)
            .send({ type: 'price_drop', gpu_type: 'rtx-3090', threshold_price: 100 })
        ).body.id,
      );
    }
    const queries = createAlertQueries(t.db.pool);
    const [one, two] = await Promise.all([
      queries.evaluate({ price: true, budget: true }),
      queries.evaluate({ price: true, budget: true }),
    ]);
    expect(one.priceTriggered + two.priceTriggered).toBe(matching.length);

    const rows = await t.sql<{ id: string; status: string }>(`SELECT id, status FROM alerts WHERE id = ANY($1)`, [
      [...matching, ...notMatching],
    ]);
    expect(
      rows
        .filter((r) => r.status === 'triggered')
        .map((r) => r.id)
        .sort(),
    ).toEqual([...matching].sort());
    const events = (await Promise.all(accounts.map((a) => alertEvents(a.accountId)))).flat();
    expect(events.map((e) => e.data.alert.id).sort()).toEqual([...matching].sort());
    expect(events[0]!.data).toMatchObject({
      alert: { type: 'price_drop', gpu_type: 'a40-48gb', status: 'triggered', current_value: 0.18 },
      value: 0.18,
      offer: { provider: 'vastai', gpu_type: 'a40-48gb', price_per_hour: 0.18, spot: true, region: 'EU' },
    });

    // Evaluating again (a retried activity, the next refresh) moves nothing and writes nothing.
    expect(await queries.evaluate({ price: true, budget: true })).toMatchObject({
      priceTriggered: 0,
      budgetTriggered: 0,
    });
    expect((await Promise.all(accounts.map((a) => alertEvents(a.accountId)))).flat()).toHaveLength(matching.length);
    const listed = await t.http.get('/v1/alerts?status=triggered').set(accounts[0]!.auth);
    expect(listed.body.data).toHaveLength(20);
    // The event carries the alert exactly as the API shows it (its value then being the triggering price).
    for (const record of listed.body.data) {
      expect(events.find((e) => e.data.alert.id === record.id)!.data.alert).toEqual(record);
    }
  });

  it("never triggers a deleted alert, and triggers budgets on this month's charges only", async () => {
    const a = await t.newAccount();
    const ledger = createLedgerQueries(t.db.pool);
    const kept = (await t.http.post('/v1/alerts').set(a.auth).send({ type: 'budget_limit', threshold_dollars: 2 })).body
      .id;
    const higher = (
      await t.http.post('/v1/alerts').set(a.auth).send({ type: 'budget_limit', threshold_dollars: 2.000001 })
    ).body.id;
    const deleted = (await t.http.post('/v1/alerts').set(a.auth).send({ type: 'budget_limit', threshold_dollars: 1 }))
      .body.id;
    await t.http.delete(`/v1/alerts/${deleted}`).set(a.auth).expect(200);
    await ledger.postEntry({
      accountId: a.accountId,
      type: 'instance_charge',
      amountMicros: -2_000_000,
      description: 'c',
      instanceId: 'i',
      idempotencyKey: 'c1',
    });

    const result = await createAlertQueries(t.db.pool).evaluate({ price: false, budget: true });
    expect(result.budgetTriggered).toBe(1);
    const events = await alertEvents(a.accountId);
    expect(events.map((e) => e.data.alert.id)).toEqual([kept]);
    expect(events[0]!.data).toMatchObject({ alert: { id: kept, threshold_dollars: 2, status: 'triggered' }, value: 2 });
    const listed = (await t.http.get('/v1/alerts').set(a.auth)).body.data;
    expect(listed.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([
      [higher, 'active'],
      [kept, 'triggered'],
    ]);
  });
});

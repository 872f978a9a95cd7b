/**
 * The billing ledger on the real database: entries are posted through the query module (metering and the
 * Stripe webhook are its writers) and read back through the HTTP API the way a user sees them.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createLedgerQueries, type LedgerQueries, type PostEntryInput } from '../../src/db/queries/ledger';
import { sql } from '../../src/db/sql';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
let ledger: LedgerQueries;
beforeAll(async () => {
  t = await createTestContext();
  ledger = createLedgerQueries(t.db.pool);
});
afterAll(() => t.close());

type Auth = { Authorization: string };
type Txn = {
  id: string;
  type: string;
  amount: number;
  balance_after: number;
  description: string;
  instance_id?: string;
  created_at: string;
};

const key = () => `key-${randomBytes(6).toString('hex')}`;
const charge = (accountId: string, micros: number, extra: Partial<PostEntryInput> = {}) =>
  ledger.postEntry({
    accountId,
    type: 'instance_charge',
    amountMicros: -micros,
    description: 'GPU time',
    instanceId: 'pod-1',
    idempotencyKey: key(),
    ...extra,
  });
const topUp = (accountId: string, micros: number, extra: Partial<PostEntryInput> = {}) =>
  ledger.postEntry({
    accountId,
    type: 'credit_topup',
    amountMicros: micros,
    description: 'Credit top-up',
    idempotencyKey: key(),
    ...extra,
  });

const balance = async (auth: Auth) => {
  const res = await t.http.get('/v1/billing/balance').set(auth);
  expect(res.status).toBe(200);
  return res.body.balance as number;
};
const transactions = (auth: Auth, query = '') => t.http.get(`/v1/billing/transactions${query}`).set(auth);

describe('balance', () => {
  it('is 0 usd for a new account', async () => {
    const { auth } = await t.newAccount('test account', { credit: 0 });
    const res = await t.http.get('/v1/billing/balance').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ balance: 0, currency: 'usd' });
  });

  it('follows top-ups and charges exactly, in dollars', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    await topUp(accountId, 25_000_000);
    await charge(accountId, 1_234_567);
    await charge(accountId, 100_001);
    expect(await balance(auth)).toBe(23.665432);
  });

  it('requires a service key', async () => {
    expect((await t.http.get('/v1/billing/balance')).status).toBe(401);
    expect((await t.http.get('/v1/billing/transactions')).status).toBe(401);
  });
});

describe('transactions', () => {
  it('lists records newest first with instance_id only on charges', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    const top = await topUp(accountId, 10_000_000, { description: 'Stripe checkout cs_test_1' });
    const chg = await charge(accountId, 2_500_000, {
      instanceId: 'pod-abc',
      description: 'runpod h100-80gb-sxm × 1, 1 h',
    });
    const res = await transactions(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          id: chg.entry.id,
          type: 'instance_charge',
          amount: -2.5,
          balance_after: 7.5,
          description: 'runpod h100-80gb-sxm × 1, 1 h',
          instance_id: 'pod-abc',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
        {
          id: top.entry.id,
          type: 'credit_topup',
          amount: 10,
          balance_after: 10,
          description: 'Stripe checkout cs_test_1',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
    expect(res.body.data[0].id).toMatch(/^txn_[1-9A-HJ-NP-Za-km-z]{22}$/);
    expect('instance_id' in res.body.data[1]).toBe(false);
  });

  it('filters by type', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    await topUp(accountId, 5_000_000);
    await charge(accountId, 1_000_000);
    await charge(accountId, 2_000_000);
    const charges = await transactions(auth, '?type=instance_charge');
    expect(charges.status).toBe(200);
    expect(charges.body.data.map((x: Txn) => [x.type, x.amount])).toEqual([
      ['instance_charge', -2],
      ['instance_charge', -1],
    ]);
    const topUps = await transactions(auth, '?type=credit_topup');
    expect(topUps.body.data.map((x: Txn) => [x.type, x.amount])).toEqual([['credit_topup', 5]]);
  });

  it('answers 400 naming the allowed values for any other type', async () => {
    const { auth } = await t.newAccount('test account', { credit: 0 });
    for (const type of ['refund', 'INSTANCE_CHARGE', '']) {
      const res = await transactions(auth, `?type=${type}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details[0].path).toBe('query.type');
      expect(res.body.error.message).toContain('instance_charge');
      expect(res.body.error.message).toContain('credit_topup');
    }
  });

  it('validates limit and cursor', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    await topUp(accountId, 1_000_000);
    for (const q of [
      '?limit=0',
      '?limit=201',
      '?limit=abc',
      '?limit=2.5',
      '?cursor=nope',
      '?cursor=c2VxOjA',
      '?cursor=',
      '?unknown=1',
    ]) {
      const res = await transactions(auth, q);
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await transactions(auth, '?limit=200')).status).toBe(200);
  });

  it('pages with limit and cursor: every entry exactly once, newest first, also with a type filter', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    const posted: string[] = [];
    for (let i = 0; i < 11; i++)
      posted.push((i % 3 === 0 ? await topUp(accountId, 1_000_000 + i) : await charge(accountId, 1_000 + i)).entry.id);
    const walk = async (filter: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: { data: Txn[]; has_more: boolean; next_cursor: string | null } } =
          await transactions(auth, `?limit=3${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.has_more).toBe(res.body.next_cursor !== null);
        if (res.body.has_more) expect(res.body.data).toHaveLength(3);
        seen.push(...res.body.data.map((x) => x.id));
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      return { seen, pages };
    };
    const all = await walk('');
    expect(all.seen).toEqual([...posted].reverse());
    expect(all.pages).toBe(4);
    const charges = await walk('&type=instance_charge');
    const chargeIds = posted.filter((_, i) => i % 3 !== 0).reverse();
    expect(charges.seen).toEqual(chargeIds);
    expect(charges.pages).toBe(Math.ceil(chargeIds.length / 3));
  });

  it('returns 50 by default with has_more when there are more', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    for (let i = 0; i < 53; i++) await topUp(accountId, 1_000_000);
    const res = await transactions(auth);
    expect(res.body.data).toHaveLength(50);
    expect(res.body.has_more).toBe(true);
    const rest = await transactions(auth, `?cursor=${res.body.next_cursor}`);
    expect(rest.body.data).toHaveLength(3);
    expect(rest.body.has_more).toBe(false);
    expect(rest.body.data.at(-1).balance_after).toBe(1);
    expect(res.body.data[0].balance_after).toBe(53);
  });
});

describe('idempotency', () => {
  it('returns the first entry for a key posted twice and never charges twice', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    const idempotencyKey = 'meter:inst_1:2024-01-01T00:00:00Z';
    const first = await charge(accountId, 3_000_000, { idempotencyKey });
    const second = await charge(accountId, 3_000_000, { idempotencyKey });
    const different = await charge(accountId, 9_000_000, { idempotencyKey });
    expect(first.created).toBe(true);
    expect(second).toEqual({ entry: first.entry, created: false });
    expect(different).toEqual({ entry: first.entry, created: false });
    expect((await transactions(auth)).body.data).toHaveLength(1);
    expect(await balance(auth)).toBe(-3);
  });

  it('makes one entry when the same key is posted concurrently', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => topUp(accountId, 7_000_000, { idempotencyKey: 'stripe:cs_test_dup' })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    expect(await balance(auth)).toBe(7);
  });

  it('keys are per account', async () => {
    const a = await t.newAccount('test account', { credit: 0 });
    const b = await t.newAccount('test account', { credit: 0 });
    expect((await topUp(a.accountId, 1_000_000, { idempotencyKey: 'same' })).created).toBe(true);
    expect((await topUp(b.accountId, 2_000_000, { idempotencyKey: 'same' })).created).toBe(true);
    expect(await balance(a.auth)).toBe(1);
    expect(await balance(b.auth)).toBe(2);
  });
});

describe("inside a caller's transaction", () => {
  it('commits with the caller and rolls back with the caller', async () => {
    const { accountId, auth } = await t.newAccount('test account', { credit: 0 });
    await t.db.pool.transaction(async (tx) => {
      await ledger.postEntry(
        {
          accountId,
          type: 'instance_charge',
          amountMicros: -1_500_000,
          description: 'GPU time',
          instanceId: 'pod-1',
          idempotencyKey: 'k1',
        },
        tx,
      );
    });
    await expect(
      t.db.pool.transaction(async (tx) => {
        await ledger.postEntry(
          {
            accountId,
            type: 'instance_charge',
            amountMicros: -4_000_000,
            description: 'GPU time',
            instanceId: 'pod-1',
            idempotencyKey: 'k2',
          },
          tx,
        );
        throw new Error('metered_through update failed');
      }),
    ).rejects.toThrow('metered_through update failed');
    expect(await balance(auth)).toBe(-1.5);
    expect((await transactions(auth)).body.data.map((x: Txn) => x.amount)).toEqual([-1.5]);
    // The rolled-back key is free again: a retry of that interval is charged once.
    expect((await charge(accountId, 4_000_000, { idempotencyKey: 'k2' })).created).toBe(true);
    expect(await balance(auth)).toBe(-5.5);
  });
});

describe('input checks', () => {
  it('refuses entries the ledger must never hold', async () => {
    const { accountId } = await t.newAccount('test account', { credit: 0 });
    await expect(charge(accountId, -1_000_000)).rejects.toThrow(RangeError); // a positive charge
    await expect(topUp(accountId, 0)).rejects.toThrow(RangeError);
    await expect(topUp(accountId, 1_000_000, { instanceId: 'pod-1' })).rejects.toThrow(RangeError);
    await expect(charge(accountId, 1_000_000, { instanceId: undefined })).rejects.toThrow(RangeError);
    await expect(topUp(accountId, 0.5)).rejects.toThrow(RangeError);
    expect(await ledger.getBalance(accountId)).toBe(0);
  });
});

describe('concurrency', () => {
  it('keeps an exact balance chain under 200 concurrent charges and top-ups', async () => {
    const a = await t.newAccount('test account', { credit: 0 });
    const b = await t.newAccount('test account', { credit: 0 });
    const amounts = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? 1_000_000 + i * 13 : -(10_007 + i * 31)));
    await Promise.all(
      amounts.map((amount, i) => {
        const accountId = i % 10 === 9 ? b.accountId : a.accountId;
        const input: PostEntryInput =
          amount > 0
            ? { accountId, type: 'credit_topup', amountMicros: amount, description: 'top-up', idempotencyKey: `c-${i}` }
            : {
                accountId,
                type: 'instance_charge',
                amountMicros: amount,
                description: 'GPU time',
                instanceId: `pod-${i % 7}`,
                idempotencyKey: `c-${i}`,
              };
        // A third inside a caller's transaction, the way metering writes charges with metered_through.
        return i % 3 === 0 ? t.db.pool.transaction((tx) => ledger.postEntry(input, tx)) : ledger.postEntry(input);
      }),
    );

    const expected = (account: string) =>
      amounts.filter((_, i) => (i % 10 === 9 ? b.accountId : a.accountId) === account).reduce((s, x) => s + x, 0);
    for (const { accountId, auth } of [a, b]) {
      const check = await t.db.pool.one(sql.type(
        z.object({
          entries: z.number(),
          sum: z.number(),
          balance: z.number(),
          broken_links: z.number(),
          first_ok: z.boolean(),
        }),
      )`
        WITH chain AS (
          SELECT amount_micros, balance_after_micros,
                 lag(balance_after_micros) OVER (ORDER BY seq) AS previous,
                 row_number() OVER (ORDER BY seq) AS n
          FROM ledger_entries WHERE account_id = ${accountId}
        )
        SELECT count(*)::int AS entries,
               coalesce(sum(amount_micros), 0)::bigint AS sum,
               (SELECT balance_micros FROM account_balances WHERE account_id = ${accountId}) AS balance,
               count(*) FILTER (WHERE n > 1 AND balance_after_micros <> previous + amount_micros)::int AS broken_links,
               bool_and(n > 1 OR balance_after_micros = amount_micros) AS first_ok
        FROM chain`);
      expect(check).toEqual({
        entries: expect.any(Number),
        sum: expected(accountId),
        balance: expected(accountId),
        broken_links: 0,
        first_ok: true,
      });
      expect(await balance(auth)).toBe(expected(accountId) / 1_000_000);
    }
    const counts = await t.db.pool.manyFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM ledger_entries WHERE account_id IN (${a.accountId}, ${b.accountId})
        GROUP BY account_id ORDER BY n DESC`);
    expect(counts).toEqual([180, 20]);
  });
});

describe('isolation between accounts', () => {
  it("never shows one account's balance or transactions to another", async () => {
    const a = await t.newAccount('test account', { credit: 0 });
    const b = await t.newAccount('test account', { credit: 0 });
    expect((await transactions(b.auth)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    const bEntry = await topUp(b.accountId, 1_000_000);
    await topUp(a.accountId, 50_000_000);
    await charge(a.accountId, 2_000_000);
    expect(await balance(a.auth)).toBe(48);
    expect(await balance(b.auth)).toBe(1);
    expect((await transactions(b.auth)).body.data.map((x: Txn) => x.id)).toEqual([bEntry.entry.id]);
    // A cursor taken from A's list only ever pages through B's own entries.
    const aPage = await transactions(a.auth, '?limit=1');
    expect(aPage.body.has_more).toBe(true);
    const viaCursor = await transactions(b.auth, `?cursor=${aPage.body.next_cursor}`);
    expect(viaCursor.status).toBe(200);
    expect(viaCursor.body.data.map((x: Txn) => x.id)).toEqual([bEntry.entry.id]);
  });
});

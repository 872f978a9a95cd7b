/**
 * Credit top-ups end to end through the HTTP API: POST /v1/billing/credit creates a real Checkout Session
 * on stripe-mock (the official `stripe` SDK talks to it), and Stripe's webhook deliveries are built and
 * signed the way Stripe signs them (`generateTestHeaderString`), then sent to POST /v1/billing/stripe/webhook.
 */
import request from 'supertest';
import { z } from 'zod';
import { createApp } from '../../src/http/app';
import { sql } from '../../src/db/sql';
import { createTestContext, testAppDeps, type TestContext } from '../helpers/context';
import { freePort } from '../helpers/ports';
import { checkoutCompletedEvent, signedDelivery, startTestStripe } from '../helpers/stripe';

let t: TestContext;
let stripe: Awaited<ReturnType<typeof startTestStripe>>;
beforeAll(async () => {
  stripe = await startTestStripe();
  t = await createTestContext({ stripe: stripe.settings });
});
afterAll(async () => {
  await t.close();
  await stripe.mock.stop();
});

type Auth = { Authorization: string };

const credit = (auth: Auth, body: unknown, idempotencyKey?: string) => {
  const req = t.http.post('/v1/billing/credit').set(auth);
  if (idempotencyKey) req.set('Idempotency-Key', idempotencyKey);
  return req.send(body as object);
};
const deliver = (body: string, signature?: string) => {
  const req = t.http.post('/v1/billing/stripe/webhook').set('Content-Type', 'application/json; charset=utf-8');
  if (signature !== undefined) req.set('Stripe-Signature', signature);
  return req.send(body);
};
const balance = async (auth: Auth) => (await t.http.get('/v1/billing/balance').set(auth)).body.balance as number;
const topups = async (auth: Auth) =>
  (await t.http.get('/v1/billing/transactions?type=credit_topup').set(auth)).body.data as {
    amount: number;
    balance_after: number;
    type: string;
  }[];
const events = (accountId: string, type: string) =>
  t.db.pool.any(
    sql.type(
      z.object({ data: z.record(z.unknown()) }),
    )`SELECT data FROM events WHERE account_id = ${accountId} AND type = ${type}`,
  );

/** An account with an empty balance and one pending top-up of `amount` dollars created through the API. */
async function pendingTopUp(amount = 25) {
  const account = await t.newAccount('payer', { credit: 0 });
  const res = await credit(account.auth, { amount });
  expect(res.status).toBe(201);
  return { ...account, sessionId: res.body.session_id as string, amount };
}

describe('POST /v1/billing/credit', () => {
  it('creates a Stripe Checkout Session and answers its URL, without touching the balance', async () => {
    const { accountId, auth } = await t.newAccount('payer', { credit: 0 });
    const res = await credit(auth, { amount: 12.34 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      checkout_url: expect.stringMatching(/^https:\/\//),
      session_id: expect.stringMatching(/^cs_/),
    });
    const recorded = await t.db.pool.one(sql.type(
      z.object({ account_id: z.string(), amount_micros: z.number(), status: z.string() }),
    )`
      SELECT account_id, amount_micros, status FROM credit_topups WHERE session_id = ${res.body.session_id}`);
    expect(recorded).toEqual({ account_id: accountId, amount_micros: 12_340_000, status: 'pending' });
    expect(await balance(auth)).toBe(0);
    // Each request is its own session.
    const second = await credit(auth, { amount: 12.34 });
    expect(second.body.session_id).not.toBe(res.body.session_id);
  });

  it.each([
    [{ amount: 4.99 }, 'at least 5'],
    [{ amount: 0 }, 'at least 5'],
    [{ amount: -10 }, 'at least 5'],
    [{ amount: 5.001 }, 'two decimals'],
    [{ amount: '10' }, 'number'],
    [{}, 'required'],
    [{ amount: 10, currency: 'eur' }, 'currency'],
    [{ amount: 1e9 }, 'at most'],
  ])('answers 400 for %j naming the rule', async (body, words) => {
    const { accountId, auth } = await t.newAccount();
    const res = await credit(auth, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(JSON.stringify(res.body.error)).toContain(words);
    expect(
      await t.db.pool.oneFirst(
        sql.type(
          z.object({ n: z.number() }),
        )`SELECT count(*)::int AS n FROM credit_topups WHERE account_id = ${accountId}`,
      ),
    ).toBe(0);
  });

  it('accepts exactly the minimum and whole cents', async () => {
    const { auth } = await t.newAccount();
    expect((await credit(auth, { amount: 5 })).status).toBe(201);
    expect((await credit(auth, { amount: 19.99 })).status).toBe(201);
  });

  it('requires a service key', async () => {
    expect((await t.http.post('/v1/billing/credit').send({ amount: 10 })).status).toBe(401);
  });

  it('replays the same session for the same Idempotency-Key and body, 409 for another body', async () => {
    const { auth } = await t.newAccount();
    const first = await credit(auth, { amount: 50 }, 'topup-1');
    expect(first.status).toBe(201);
    const replay = await credit(auth, { amount: 50 }, 'topup-1');
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    const conflict = await credit(auth, { amount: 60 }, 'topup-1');
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('conflict');
    // Keys are per account.
    const other = await t.newAccount();
    const theirs = await credit(other.auth, { amount: 50 }, 'topup-1');
    expect(theirs.status).toBe(201);
    expect(theirs.body.session_id).not.toBe(first.body.session_id);
  });

  it('gives concurrent requests with one Idempotency-Key one pending top-up', async () => {
    const { accountId, auth } = await t.newAccount();
    const answers = await Promise.all(Array.from({ length: 5 }, () => credit(auth, { amount: 30 }, 'same-key')));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.session_id)).size).toBe(1);
    const rows = await t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM credit_topups WHERE account_id = ${accountId} AND idempotency_key IS NOT NULL`);
    expect(rows).toBe(1);
  });

  it('refuses a malformed Idempotency-Key with 400', async () => {
    const { auth } = await t.newAccount();
    const res = await credit(auth, { amount: 10 }, 'has spaces in it');
    expect(res.status).toBe(400);
  });

  it('answers 503 service_unavailable when Stripe cannot be reached, and records nothing', async () => {
    const deadPort = await freePort();
    const app = createApp(
      testAppDeps(t.db.pool, { stripe: { ...stripe.settings, apiBaseUrl: `http://127.0.0.1:${deadPort}` } }),
    );
    const { accountId, auth } = await t.newAccount();
    const res = await request(app.callback()).post('/v1/billing/credit').set(auth).send({ amount: 10 });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expect(JSON.stringify(res.body)).not.toContain(stripe.settings.secretKey);
    expect(
      await t.db.pool.oneFirst(
        sql.type(
          z.object({ n: z.number() }),
        )`SELECT count(*)::int AS n FROM credit_topups WHERE account_id = ${accountId}`,
      ),
    ).toBe(0);
  });

  it('maps a Stripe refusal (a key Stripe rejects) to 502 provider_error without ever showing the key', async () => {
    const rejectedKey = 'sk_test_this_key_is_rejected';
    const app = createApp(testAppDeps(t.db.pool, { stripe: { ...stripe.settings, secretKey: rejectedKey } }));
    const { accountId, auth } = await t.newAccount();
    const res = await request(app.callback()).post('/v1/billing/credit').set(auth).send({ amount: 10 });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_error');
    expect(res.body.error.details[0]).toMatchObject({ provider: 'stripe', provider_status: 401 });
    expect(JSON.stringify(res.body)).not.toContain(rejectedKey);
    expect(
      await t.db.pool.oneFirst(
        sql.type(
          z.object({ n: z.number() }),
        )`SELECT count(*)::int AS n FROM credit_topups WHERE account_id = ${accountId}`,
      ),
    ).toBe(0);
  });

  it('answers 503 when Stripe is not configured', async () => {
    const app = createApp(testAppDeps(t.db.pool));
    const { auth } = await t.newAccount();
    const res = await request(app.callback()).post('/v1/billing/credit').set(auth).send({ amount: 10 });
    expect(res.status).toBe(503);
    expect(res.body.error.message).toContain('STRIPE_SECRET_KEY');
  });
});

describe('POST /v1/billing/stripe/webhook', () => {
  it(
    'credits a paid session once: one credit_topup, ' + 'billing.credit_added, however often Stripe redelivers',
    async () => {
      const p = await pendingTopUp(25);
      const event = checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500 });
      const first = signedDelivery(event, stripe.settings.webhookSecret);
      const res = await deliver(first.body, first.signature);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });
      expect(await balance(p.auth)).toBe(25);
      // Stripe retries with a fresh signature (new timestamp): still one credit.
      const again = signedDelivery(event, stripe.settings.webhookSecret, Math.floor(Date.now() / 1000) + 1);
      expect((await deliver(again.body, again.signature)).status).toBe(200);
      expect(await balance(p.auth)).toBe(25);
      expect(await topups(p.auth)).toEqual([
        expect.objectContaining({ type: 'credit_topup', amount: 25, balance_after: 25 }),
      ]);
      const added = await events(p.accountId, 'billing.credit_added');
      expect(added).toEqual([{ data: expect.objectContaining({ amount: 25, balance: 25, session_id: p.sessionId }) }]);
      const status = await t.db.pool.oneFirst(
        sql.type(z.object({ status: z.string() }))`SELECT status FROM credit_topups WHERE session_id = ${p.sessionId}`,
      );
      expect(status).toBe('credited');
    },
  );

  it('credits once when the same event arrives 10 times concurrently', async () => {
    const p = await pendingTopUp(40);
    const delivery = signedDelivery(
      checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 4000 }),
      stripe.settings.webhookSecret,
    );
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(delivery.body, delivery.signature)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await topups(p.auth)).toHaveLength(1);
    expect(await balance(p.auth)).toBe(40);
    expect(await events(p.accountId, 'billing.credit_added')).toHaveLength(1);
  });

  it('credits on checkout.session.async_payment_succeeded (delayed payment methods)', async () => {
    const p = await pendingTopUp(7.5);
    const delivery = signedDelivery(
      checkoutCompletedEvent({
        id: p.sessionId,
        accountId: p.accountId,
        amountTotalCents: 750,
        type: 'checkout.session.async_payment_succeeded',
      }),
      stripe.settings.webhookSecret,
    );
    expect((await deliver(delivery.body, delivery.signature)).status).toBe(200);
    expect(await balance(p.auth)).toBe(7.5);
  });

  describe('changes nothing', () => {
    it('for a wrong signature (another secret): 400', async () => {
      const p = await pendingTopUp();
      const d = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500 }),
        'whsec_not_ours',
      );
      const res = await deliver(d.body, d.signature);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(await balance(p.auth)).toBe(0);
    });

    it('for a tampered body: 400', async () => {
      const p = await pendingTopUp();
      const d = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500 }),
        stripe.settings.webhookSecret,
      );
      const res = await deliver(d.body.replace('"amount_total":2500', '"amount_total":250000'), d.signature);
      expect(res.status).toBe(400);
      expect(await balance(p.auth)).toBe(0);
    });

    it('for a stale timestamp (10 minutes old): 400', async () => {
      const p = await pendingTopUp();
      const d = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500 }),
        stripe.settings.webhookSecret,
        Math.floor(Date.now() / 1000) - 600,
      );
      const res = await deliver(d.body, d.signature);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toMatch(/tolerance/i);
      expect(await balance(p.auth)).toBe(0);
    });

    it('for a missing signature or an empty body: 400', async () => {
      const p = await pendingTopUp();
      const d = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500 }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(d.body)).status).toBe(400);
      expect((await deliver('', d.signature)).status).toBe(400);
      expect(await balance(p.auth)).toBe(0);
    });

    it('for a paid amount that does not match the recorded one (signed): 200, no credit', async () => {
      const p = await pendingTopUp(25);
      const d = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2499 }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(d.body, d.signature)).status).toBe(200);
      const eur = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500, currency: 'eur' }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(eur.body, eur.signature)).status).toBe(200);
      expect(await balance(p.auth)).toBe(0);
      expect(await topups(p.auth)).toEqual([]);
    });

    it('for another account than the one recorded: 200, no credit to either', async () => {
      const p = await pendingTopUp(25);
      const intruder = await t.newAccount('intruder', { credit: 0 });
      const d = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: intruder.accountId, amountTotalCents: 2500 }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(d.body, d.signature)).status).toBe(200);
      expect(await balance(p.auth)).toBe(0);
      expect(await balance(intruder.auth)).toBe(0);
    });

    it('for an unknown session: 200, no credit', async () => {
      const p = await pendingTopUp(25);
      const d = signedDelivery(
        checkoutCompletedEvent({ id: 'cs_test_not_ours', accountId: p.accountId, amountTotalCents: 2500 }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(d.body, d.signature)).status).toBe(200);
      expect(await balance(p.auth)).toBe(0);
    });

    it('for an unpaid completed session and for other event types: 200, ignored', async () => {
      const p = await pendingTopUp(25);
      const unpaid = signedDelivery(
        checkoutCompletedEvent({
          id: p.sessionId,
          accountId: p.accountId,
          amountTotalCents: 2500,
          paymentStatus: 'unpaid',
        }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(unpaid.body, unpaid.signature)).status).toBe(200);
      const expired = signedDelivery(
        checkoutCompletedEvent({
          id: p.sessionId,
          accountId: p.accountId,
          amountTotalCents: 2500,
          type: 'checkout.session.expired',
        }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(expired.body, expired.signature)).status).toBe(200);
      const other = signedDelivery(
        { id: 'evt_1', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1' } } },
        stripe.settings.webhookSecret,
      );
      expect((await deliver(other.body, other.signature)).status).toBe(200);
      expect(await balance(p.auth)).toBe(0);
      // The session stays payable: the real payment later still credits it.
      const paid = signedDelivery(
        checkoutCompletedEvent({ id: p.sessionId, accountId: p.accountId, amountTotalCents: 2500 }),
        stripe.settings.webhookSecret,
      );
      expect((await deliver(paid.body, paid.signature)).status).toBe(200);
      expect(await balance(p.auth)).toBe(25);
    });
  });

  it('answers 503 when no webhook secret is configured', async () => {
    const app = createApp(testAppDeps(t.db.pool, { stripe: { ...stripe.settings, webhookSecret: undefined } }));
    const d = signedDelivery(
      checkoutCompletedEvent({ id: 'cs_x', accountId: 'acct_x', amountTotalCents: 500 }),
      stripe.settings.webhookSecret,
    );
    const res = await request(app.callback())
      .post('/v1/billing/stripe/webhook')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', d.signature)
      .send(d.body);
    expect(res.status).toBe(503);
  });
});

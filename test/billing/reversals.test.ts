/**
 * Stripe refunds and disputes of a top-up (stripe-mock for the API calls, events signed with the SDK's test
 * header helper): a refund, a partial refund, a dispute opened and a dispute won, each delivered twice at once,
 * leave each effect on the ledger exactly once, and the ledger still sums to the balance.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../src/db/sql';
import { createTestContext, type TestContext } from '../helpers/context';
import { checkoutCompletedEvent, signedDelivery, startTestStripe, stripeEvent } from '../helpers/stripe';

jest.setTimeout(120_000);

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

async function deliver(event: Record<string, unknown>) {
  const signed = signedDelivery(event, stripe.settings.webhookSecret);
  return t.http
    .post('/v1/billing/stripe/webhook')
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', signed.signature)
    .send(signed.body);
}

/** The same event delivered twice at once, as Stripe's retries can. */
async function deliverTwiceAtOnce(event: Record<string, unknown>) {
  const [a, b] = await Promise.all([deliver(event), deliver(event)]);
  expect([a.status, b.status]).toEqual([200, 200]);
}

/** A $50 top-up paid through Checkout (stripe-mock creates the session), credited by its webhook. */
async function paidTopUp(auth: Auth, accountId: string): Promise<string> {
  const session = await t.http.post('/v1/billing/credit').set(auth).send({ amount: 50 });
  expect(session.status).toBe(201);
  const paymentIntent = `pi_${randomBytes(8).toString('hex')}`;
  await deliverTwiceAtOnce(
    checkoutCompletedEvent({ id: session.body.session_id, accountId, amountTotalCents: 5000, paymentIntent }),
  );
  return paymentIntent;
}

const charge = (paymentIntent: string, amountRefundedCents: number) =>
  stripeEvent('charge.refunded', {
    id: `ch_${paymentIntent.slice(3)}`,
    object: 'charge',
    amount: 5000,
    amount_refunded: amountRefundedCents,
    currency: 'usd',
    payment_intent: paymentIntent,
    refunded: amountRefundedCents === 5000,
  });

const dispute = (type: string, paymentIntent: string, status: string) =>
  stripeEvent(type, {
    id: `dp_${paymentIntent.slice(3)}`,
    object: 'dispute',
    amount: 5000,
    currency: 'usd',
    charge: `ch_${paymentIntent.slice(3)}`,
    payment_intent: paymentIntent,
    status,
    reason: 'fraudulent',
  });

async function ledgerOf(auth: Auth) {
  const txns = (await t.http.get('/v1/billing/transactions?limit=200').set(auth).expect(200)).body.data as {
    type: string;
    amount: number;
    balance_after: number;
  }[];
  const balance = (await t.http.get('/v1/billing/balance').set(auth).expect(200)).body.balance as number;
  // Newest first: the chain is exact and the entries sum to the balance.
  expect(Math.round(txns.reduce((s, x) => s + x.amount, 0) * 1e6)).toBe(Math.round(balance * 1e6));
  expect(txns[0]?.balance_after ?? 0).toBe(balance);
  return { txns: [...txns].reverse(), balance };
}

const reversedEvents = (accountId: string) =>
  t.db.pool.any(sql.type(z.object({ type: z.string(), data: z.record(z.unknown()) }))`
    SELECT type, data FROM events WHERE account_id = ${accountId} AND type = 'billing.credit_reversed'
      ORDER BY created_at, id`);

describe('Stripe refunds', () => {
  it(
    'a partial refund and then the full refund each post one negative credit_refund, ' + 'delivered twice at once',
    async () => {
      const account = await t.newAccount('refunded', { credit: 0 });
      const pi = await paidTopUp(account.auth, account.accountId);
      await deliverTwiceAtOnce(charge(pi, 1500));
      await deliverTwiceAtOnce(charge(pi, 1500)); // a later redelivery of the same refund
      await deliverTwiceAtOnce(charge(pi, 5000)); // the rest refunded: Stripe reports the cumulative amount
      await deliverTwiceAtOnce(charge(pi, 1500)); // the older event arriving late changes nothing

      const { txns, balance } = await ledgerOf(account.auth);
      expect(txns.map((x) => [x.type, x.amount])).toEqual([
        ['credit_topup', 50],
        ['credit_refund', -15],
        ['credit_refund', -35],
      ]);
      expect(balance).toBe(0);
      const filtered = (await t.http.get('/v1/billing/transactions?type=credit_refund').set(account.auth).expect(200))
        .body.data as unknown[];
      expect(filtered).toHaveLength(2);
      const events = await reversedEvents(account.accountId);
      expect(events.map((e) => [e.data.type, e.data.amount, e.data.reason])).toEqual([
        ['credit_refund', -15, 'refund'],
        ['credit_refund', -35, 'refund'],
      ]);
    },
  );
});

describe('reversals that arrive before their top-up credits', () => {
  it(
    'a refund delivered before checkout.session.completed is kept and applied when the top-up credits: the balance ' +
      'ends where the refund leaves it',
    async () => {
      const account = await t.newAccount('early refund', { credit: 0 });
      const session = await t.http.post('/v1/billing/credit').set(account.auth).send({ amount: 50 });
      expect(session.status).toBe(201);
      const pi = `pi_${randomBytes(8).toString('hex')}`;
      await deliverTwiceAtOnce(charge(pi, 2000));
      expect((await ledgerOf(account.auth)).txns).toEqual([]);
      await deliverTwiceAtOnce(
        checkoutCompletedEvent({
          id: session.body.session_id,
          accountId: account.accountId,
          amountTotalCents: 5000,
          paymentIntent: pi,
        }),
      );
      expect((await ledgerOf(account.auth)).balance).toBe(30);
      // A redelivery of the refund after the credit finds nothing new.
      await deliverTwiceAtOnce(charge(pi, 2000));

      const { txns, balance } = await ledgerOf(account.auth);
      expect(txns.map((x) => [x.type, x.amount])).toEqual([
        ['credit_topup', 50],
        ['credit_refund', -20],
      ]);
      expect(balance).toBe(30);
      expect((await reversedEvents(account.accountId)).map((e) => [e.data.type, e.data.amount])).toEqual([
        ['credit_refund', -20],
      ]);
    },
  );

  it('a dispute opened before the credit takes the credit back once it lands', async () => {
    const account = await t.newAccount('early dispute', { credit: 0 });
    const session = await t.http.post('/v1/billing/credit').set(account.auth).send({ amount: 50 });
    const pi = `pi_${randomBytes(8).toString('hex')}`;
    await deliverTwiceAtOnce(dispute('charge.dispute.created', pi, 'needs_response'));
    await deliverTwiceAtOnce(
      checkoutCompletedEvent({
        id: session.body.session_id,
        accountId: account.accountId,
        amountTotalCents: 5000,
        paymentIntent: pi,
      }),
    );
    const { txns, balance } = await ledgerOf(account.auth);
    expect(txns.map((x) => [x.type, x.amount])).toEqual([
      ['credit_topup', 50],
      ['credit_dispute', -50],
    ]);
    expect(balance).toBe(0);
  });
});

describe('Stripe disputes', () => {
  it('dispute created reverses the credit once; dispute won reinstates it once', async () => {
    const account = await t.newAccount('disputed', { credit: 0 });
    const pi = await paidTopUp(account.auth, account.accountId);
    await deliverTwiceAtOnce(dispute('charge.dispute.created', pi, 'needs_response'));
    expect((await ledgerOf(account.auth)).balance).toBe(0);
    await deliverTwiceAtOnce(dispute('charge.dispute.closed', pi, 'won'));
    await deliverTwiceAtOnce(dispute('charge.dispute.closed', pi, 'won'));

    const { txns, balance } = await ledgerOf(account.auth);
    expect(txns.map((x) => [x.type, x.amount])).toEqual([
      ['credit_topup', 50],
      ['credit_dispute', -50],
      ['credit_dispute', 50],
    ]);
    expect(balance).toBe(50);
    expect((await reversedEvents(account.accountId)).map((e) => e.data.reason)).toEqual(['dispute']);
    expect(
      (await t.http.get('/v1/billing/transactions?type=credit_dispute').set(account.auth).expect(200)).body.data,
    ).toHaveLength(2);
  });

  it('a lost dispute keeps the reversal; a refund of an unknown payment changes nothing', async () => {
    const account = await t.newAccount('lost', { credit: 0 });
    const pi = await paidTopUp(account.auth, account.accountId);
    await deliverTwiceAtOnce(dispute('charge.dispute.created', pi, 'needs_response'));
    await deliverTwiceAtOnce(dispute('charge.dispute.closed', pi, 'lost'));
    await deliverTwiceAtOnce(charge(`pi_${randomBytes(8).toString('hex')}`, 5000));
    const { txns, balance } = await ledgerOf(account.auth);
    expect(txns.map((x) => x.type)).toEqual(['credit_topup', 'credit_dispute']);
    expect(balance).toBe(0);
  });
});

/**
 * The ledger under its two real writers at once: 900 metering-style charges (each inside its own
 * transaction, as chargeThrough posts them) interleaved with 100 Stripe top-ups credited through the signed
 * webhook, every one of them delivered twice. The balance must equal the sum of the entries, every
 * `balance_after` must follow from the one before, and `billing.balance_depleted` must be emitted exactly at
 * the entries that took the balance from above zero to zero or below.
 */
import { z } from 'zod';
import { createLedgerQueries } from '../../src/db/queries/ledger';
import { sql } from '../../src/db/sql';
import { createTestContext, type TestContext } from '../helpers/context';
import { checkoutCompletedEvent, signedDelivery, startTestStripe } from '../helpers/stripe';

jest.setTimeout(180_000);

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

/** Runs `tasks` with at most `limit` in flight. */
async function inParallel(tasks: (() => Promise<unknown>)[], limit: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
}

it('keeps sum == balance and an exact balance_after chain over 1,000 interleaved charges and top-ups', async () => {
  const { accountId, auth } = await t.newAccount('busy account', { credit: 0 });
  const ledger = createLedgerQueries(t.db.pool);

  // 100 pending top-ups of $5.00–$14.90, created through the API against stripe-mock.
  const topUpCents = Array.from({ length: 100 }, (_, i) => 500 + ((i * 37) % 100) * 10);
  const sessions: string[] = [];
  await inParallel(
    topUpCents.map((cents) => async () => {
      const res = await t.http
        .post('/v1/billing/credit')
        .set(auth)
        .send({ amount: cents / 100 });
      expect(res.status).toBe(201);
      sessions.push(res.body.session_id);
    }),
    10,
  );
  // Sessions arrive in completion order: take each one's amount from the pending top-up we recorded.
  const amountBySession = new Map<string, number>();
  for (const s of sessions) {
    const micros = await t.db.pool.oneFirst(
      sql.type(
        z.object({ amount_micros: z.number() }),
      )`SELECT amount_micros FROM credit_topups WHERE session_id = ${s}`,
    );
    amountBySession.set(s, micros / 10_000);
  }

  const chargeMicros = Array.from({ length: 900 }, (_, i) => 1_000 + ((i * 7_919) % 2_500_000));
  const tasks: (() => Promise<unknown>)[] = [];
  chargeMicros.forEach((micros, i) =>
    tasks.push(() =>
      t.db.pool.transaction((tx) =>
        ledger.postEntry(
          {
            accountId,
            type: 'instance_charge',
            amountMicros: -micros,
            description: 'GPU time',
            instanceId: `pod-${i % 5}`,
            idempotencyKey: `charge-${i}`,
          },
          tx,
        ),
      ),
    ),
  );
  for (const session of sessions) {
    const delivery = signedDelivery(
      checkoutCompletedEvent({ id: session, accountId, amountTotalCents: amountBySession.get(session)! }),
      stripe.settings.webhookSecret,
    );
    for (let copy = 0; copy < 2; copy++) {
      tasks.push(async () => {
        const res = await t.http
          .post('/v1/billing/stripe/webhook')
          .set('Content-Type', 'application/json')
          .set('Stripe-Signature', delivery.signature)
          .send(delivery.body);
        expect(res.status).toBe(200);
      });
    }
  }
  // Deterministic shuffle: charges and deliveries arrive in no particular order.
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = tasks.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [tasks[i], tasks[j]] = [tasks[j]!, tasks[i]!];
  }
  await inParallel(tasks, 24);

  const entries = await t.db.pool.any(sql.type(
    z.object({ type: z.string(), amount_micros: z.number(), balance_after_micros: z.number(), id: z.string() }),
  )`
    SELECT id, type, amount_micros, balance_after_micros FROM ledger_entries WHERE account_id = ${accountId}
      ORDER BY seq`);
  expect(entries).toHaveLength(1_000);
  expect(entries.filter((e) => e.type === 'credit_topup')).toHaveLength(100);

  const expectedSum = topUpCents.reduce((s, c) => s + c * 10_000, 0) - chargeMicros.reduce((s, m) => s + m, 0);
  let running = 0;
  const crossings: string[] = [];
  for (const e of entries) {
    const before = running;
    running += e.amount_micros;
    expect(e.balance_after_micros).toBe(running);
    if (e.type === 'instance_charge' && before > 0 && running <= 0) crossings.push(e.id);
  }
  expect(running).toBe(expectedSum);
  expect(crossings.length).toBeGreaterThan(0); // the mix really goes through zero, more than once
  const balance = await t.http.get('/v1/billing/balance').set(auth);
  expect(Math.round(balance.body.balance * 1e6)).toBe(expectedSum);

  // Exactly one balance_depleted per crossing, naming the entry that crossed; one credit_added per session.
  const depleted = await t.db.pool.anyFirst(sql.type(z.object({ txn: z.string() }))`
    SELECT data->>'transaction_id' AS txn FROM events WHERE account_id = ${accountId} AND
      type = 'billing.balance_depleted'`);
  expect([...depleted].sort()).toEqual([...crossings].sort());
  const added = await t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM events WHERE account_id = ${accountId} AND type = 'billing.credit_added'`);
  expect(added).toBe(100);
});

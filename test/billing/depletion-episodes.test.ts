/**
 * The two writers of `billing.balance_depleted` on the real database agree on one event per episode: the spend
 * workflow's look (`reviewAccountSpend`, available ≤ 0) and a ledger entry taking the balance from above zero to
 * zero or below (the fallback). A credit that lifts the available balance above zero closes the episode, so
 * the next depletion is a new one; an entry or a look inside an open episode writes nothing.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { reviewAccountSpend } from '../../src/db/queries/depletion';
import { createLedgerQueries, type LedgerQueries } from '../../src/db/queries/ledger';
import { sql } from '../../src/db/sql';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
let ledger: LedgerQueries;
beforeAll(async () => {
  t = await createTestContext();
  ledger = createLedgerQueries(t.db.pool);
});
afterAll(() => t.close());

const settings = { graceMs: 30 * 60_000, lowRunwayMs: 24 * 3_600_000 };
const key = () => `key-${randomBytes(6).toString('hex')}`;
const charge = (accountId: string, micros: number) =>
  ledger.postEntry({
    accountId,
    type: 'instance_charge',
    amountMicros: -micros,
    description: 'GPU time',
    instanceId: 'pod-1',
    idempotencyKey: key(),
  });
const topUp = (accountId: string, micros: number) =>
  ledger.postEntry({
    accountId,
    type: 'credit_topup',
    amountMicros: micros,
    description: 'Credit top-up',
    idempotencyKey: key(),
  });
const depletedEvents = (accountId: string) =>
  t.db.pool.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
    SELECT data FROM events WHERE account_id = ${accountId} AND type = 'billing.balance_depleted' ORDER BY created_at`);

describe('depletion episodes', () => {
  it(
    'the look opens an episode at available ≤ 0; ' + 'a ledger crossing inside it writes nothing; a credit closes it',
    async () => {
      const { accountId } = await t.newAccount('episodes', { credit: 0 });
      const first = await reviewAccountSpend(t.db.pool, accountId, settings);
      expect(first.availableMicros).toBe(0);
      expect(first.depletedForMs).toBe(0);
      const [opened] = await depletedEvents(accountId);
      expect(opened?.data).toMatchObject({ balance: 0, available: 0 });
      expect(typeof opened?.data.grace_ends_at).toBe('string');

      // A second look inside the episode: nothing new, the grace counts from the first. The episode is moved ten
      // minutes back, as if the first look had been then: a look that restarted the episode would count from now.
      await t.db.pool.query(sql.typeAlias('void')`
      UPDATE account_balances SET depleted_at = depleted_at - interval '10 minutes' WHERE account_id = ${accountId}`);
      const again = await reviewAccountSpend(t.db.pool, accountId, settings);
      expect(again.depletedForMs).toBeGreaterThanOrEqual(10 * 60_000);
      expect(again.depletedForMs).toBeLessThan(11 * 60_000);
      expect(await depletedEvents(accountId)).toHaveLength(1);

      // $1 lifts available above zero: the ledger closes the episode; a charge crossing zero opens the next one.
      await topUp(accountId, 1_000_000);
      expect((await reviewAccountSpend(t.db.pool, accountId, settings)).depletedForMs).toBeNull();
      const { entry } = await charge(accountId, 1_500_000);
      const events = await depletedEvents(accountId);
      expect(events).toHaveLength(2);
      expect(events[1]!.data).toEqual({ balance: -0.5, transaction_id: entry.id });
      // The look then joins the ledger's episode instead of writing its own.
      expect((await reviewAccountSpend(t.db.pool, accountId, settings)).depletedForMs).not.toBeNull();
      expect(await depletedEvents(accountId)).toHaveLength(2);
    },
  );

  it('a credit that leaves available at or below zero keeps the episode; further charges write nothing', async () => {
    const { accountId } = await t.newAccount('episodes', { credit: 1 });
    await charge(accountId, 3_000_000); // crosses: -2
    await topUp(accountId, 1_000_000); // -1: still depleted
    await charge(accountId, 500_000);
    expect(await depletedEvents(accountId)).toHaveLength(1);
    expect((await reviewAccountSpend(t.db.pool, accountId, settings)).depletedForMs).not.toBeNull();
    expect(await depletedEvents(accountId)).toHaveLength(1);
  });
});

/**
 * The worker's intent step of a launch (`insertIntent` with the live-instance limit), after admission has
 * written the row: it keeps the launch's place without the account's lock and count, and a failed row still
 * starts over only within the limit.
 */
import { createInstanceQueries } from '../../src/db/queries/instances';
import { sql } from '../../src/db/sql';
import { LimitReachedError } from '../../src/errors';
import { createTestContext, type TestContext } from '../helpers/context';

jest.setTimeout(60_000);

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

const intentOf = (accountId: string, key: string) => ({
  id: `launch-${accountId}-${key}`,
  accountId,
  requestHash: `hash-${key}`,
  provider: 'runpod' as const,
  providerName: `gpuo-${key}`,
  name: `gpuo-${key}`,
  gpuType: 'rtx-a6000',
  gpuCount: 1,
  spot: false,
  region: null,
  dockerImage: null,
  warnings: [],
});

it(
  'keeps an admitted launch its place at the limit, ' + 'without waiting for the account lock another launch holds',
  async () => {
    const { accountId } = await t.newAccount();
    const queries = createInstanceQueries(t.db.pool);
    const admitted = await queries.insertIntent(intentOf(accountId, 'a')); // what admission's reservation writes
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = t.db.pool.transaction(async (tx) => {
      await tx.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`);
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await isLocked;
    try {
      // At a limit of 0 a new launch is refused; this one holds its place, and the lock is released only after.
      const row = await queries.insertIntent({ ...intentOf(accountId, 'a'), maxLive: 0 });
      expect(row).toMatchObject({
        id: admitted.id,
        status: 'provisioning',
        request_hash: 'hash-a',
        provider_name: 'gpuo-a',
      });
    } finally {
      release();
      await holder;
    }
    await expect(queries.insertIntent({ ...intentOf(accountId, 'b'), maxLive: 1 })).rejects.toBeInstanceOf(
      LimitReachedError,
    );
  },
);

it('starts a failed launch over only within the live-instance limit', async () => {
  const { accountId } = await t.newAccount();
  const queries = createInstanceQueries(t.db.pool);
  await queries.insertIntent(intentOf(accountId, 'f'));
  await queries.markLaunchFailed(`launch-${accountId}-f`, 'the test says so');
  await queries.insertIntent(intentOf(accountId, 'live'));
  await expect(queries.insertIntent({ ...intentOf(accountId, 'f'), maxLive: 1 })).rejects.toBeInstanceOf(
    LimitReachedError,
  );
  expect((await queries.findById(`launch-${accountId}-f`))?.status).toBe('failed');
  expect(await queries.insertIntent({ ...intentOf(accountId, 'f'), maxLive: 2 })).toMatchObject({
    status: 'provisioning',
    end_reason: null,
  });
});

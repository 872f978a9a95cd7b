/**
 * What admission counts of stopped RunPod pods (src/db/queries/admission.ts, migration 029): a launch's
 * admission counts their storage in the burn, and a start is admitted like a launch, holding its place (the
 * pod's price in the burn, a place in the live count) until the pod runs, so two starts cannot both pass on
 * the same money.
 */
import { admitLaunch } from '../../src/db/queries/admission';
import { admitStart } from '../../src/db/queries/start-admission';
import { createApiKeyQueries } from '../../src/db/queries/api-keys';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const HOUR = 3_600_000;

async function accountWith(id: string, balanceMicros: number) {
  await db.sql('INSERT INTO accounts (id, name) VALUES ($1, $1)', [id]);
  await db.sql('INSERT INTO account_balances (account_id, balance_micros) VALUES ($1, $2)', [id, balanceMicros]);
}

async function stoppedPod(accountId: string, id: string, priceMicros: number, storageMicros: number | null) {
  await db.sql(
    `INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
       gpu_count, price_per_hour_micros, storage_per_hour_micros, started_at, metered_through)
     VALUES ($1, $2, 'h', 'runpod', $1, 'pod', 'stopped', 'rtx-a6000', 1, $3, $4, now() - interval '2 hours',
       now() - interval '1 hour')`,
    [id, accountId, priceMicros, storageMicros],
  );
}

const intent = (accountId: string) => ({
  id: `launch-${accountId}-k`,
  accountId,
  requestHash: 'h',
  provider: 'runpod' as const,
  providerName: 'p',
  name: 'n',
  gpuType: 'rtx-a6000',
  gpuCount: 1,
  spot: false,
  region: null,
  dockerImage: null,
  warnings: [],
});

it("a launch's admission counts a stopped pod's storage in the burn", async () => {
  await accountWith('acct_storage', 1_200_000);
  // A pod that ran and stopped: its volume costs $1/h; it ran nothing since its stop.
  await stoppedPod('acct_storage', 'pod_stored', 490_000, 1_000_000);
  const decision = await admitLaunch(db.pool, {
    intent: intent('acct_storage'),
    quotePerHourMicros: 500_000,
    windowMs: HOUR,
    reserve: false,
  });
  expect(decision.outcome).toBe('refused');
  expect(decision.figures).toMatchObject({ burnPerHourMicros: 1_000_000, addsPerHourMicros: 500_000 });
  expect(decision.message).toMatch(/burn \$1\.00\/h/);
});

it(
  'a start holds its place: of two stopped pods, ' +
    'the second start cannot pass on the money the first was admitted on',
  async () => {
    await accountWith('acct_starts', 1_200_000);
    await stoppedPod('acct_starts', 'pod_one', 1_000_000, null);
    await stoppedPod('acct_starts', 'pod_two', 1_000_000, null);
    const start = (instanceId: string) =>
      admitStart(db.pool, { accountId: 'acct_starts', instanceId, windowMs: HOUR, maxLive: 10 });
    const [one, two] = await Promise.all([start('pod_one'), start('pod_two')]);
    expect([one.outcome, two.outcome].sort()).toEqual(['admitted', 'refused']);
    // Asked again while it holds its place, the admitted start is admitted on it; a launch sees it in the burn.
    const admitted = one.outcome === 'admitted' ? 'pod_one' : 'pod_two';
    expect((await start(admitted)).outcome).toBe('admitted');
    const launch = await admitLaunch(db.pool, {
      intent: intent('acct_starts'),
      quotePerHourMicros: 300_000,
      windowMs: HOUR,
      reserve: false,
    });
    expect(launch).toMatchObject({ outcome: 'refused', figures: { burnPerHourMicros: 1_000_000, unchargedMicros: 0 } });
  },
);

it("a start must fit the asking key's cap and the caps above it, as a launch by that key would", async () => {
  await accountWith('acct_family', 100_000_000);
  const keys = createApiKeyQueries(db.pool);
  const cap = { micros: 1_000_000, period: 'day' as const };
  const parent = await keys.insertApiKey('acct_family', { name: 'team', scopes: ['read'], spendLimit: cap });
  const [one, two] = await Promise.all(
    ['one', 'two'].map((name) =>
      keys.insertApiKey('acct_family', { maker: parent.row, name, scopes: ['read'], spendLimit: cap }),
    ),
  );
  // Key one runs a $0.50/h instance; key two starts a stopped $0.60/h pod: within its own $1, past the team's.
  await db.sql(
    `INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
       gpu_count, price_per_hour_micros, api_key_id)
     VALUES ('run_one', 'acct_family', 'h', 'runpod', 'run_one', 'pod', 'running', 'rtx-a6000', 1, 500000, $1)`,
    [one!.row.id],
  );
  await stoppedPod('acct_family', 'pod_family', 600_000, null);
  const start = (apiKeyId: string) =>
    admitStart(db.pool, { accountId: 'acct_family', instanceId: 'pod_family', windowMs: HOUR, apiKeyId });
  const refused = await start(two!.row.id);
  expect(refused).toMatchObject({ outcome: 'key_refused', keyCap: { name: 'team', family: true } });
  expect((refused as { message: string }).message).toMatch(/"team" .* is capped at \$1\.00 per day for itself/);
  // The team's own key is under the same cap; a start asked without a capped key is admitted.
  expect((await start(parent.row.id)).outcome).toBe('key_refused');
  expect(
    (await admitStart(db.pool, { accountId: 'acct_family', instanceId: 'pod_family', windowMs: HOUR })).outcome,
  ).toBe('admitted');
});

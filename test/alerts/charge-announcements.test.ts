/**
 * What a charge tells the alert monitor: it wakes the monitor only for an account whose charges can trigger
 * something (an active budget_limit alert, or a key with a spend cap), since every evaluation reads every
 * account's month. Other accounts' charges cost no evaluation; the monitor's budget tick still looks at all.
 * That the woken monitor then acts on the charges is end to end in monitor.test.ts and accrued-spend.test.ts.
 */
import { announceChargesToAlertMonitor } from '../../activities/alerts';
import type { ActivityDeps } from '../../activities/deps';
import { createAlertQueries } from '../../src/db/queries/alerts';
import { silentLogger } from '../../src/logger';
import type { AlertsDue } from '../../workflows/contracts/alerts';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

/** The signals one charge of `accountId` sends the monitor (a stand-in port records them). */
async function announced(accountId: string | null, alerts = createAlertQueries(t.db.pool)): Promise<AlertsDue[]> {
  const sent: AlertsDue[] = [];
  const deps = {
    logger: silentLogger,
    queries: { alerts },
    workflows: { notifyAlertMonitor: async (due: AlertsDue) => void sent.push(due) },
  } as unknown as ActivityDeps;
  await announceChargesToAlertMonitor(deps, accountId);
  return sent;
}

const alert = (auth: Record<string, string>, body: Record<string, unknown>) =>
  t.http.post('/v1/alerts').set(auth).send(body).expect(201);

it('an account with no budget alert and no capped key: its charges do not wake the monitor', async () => {
  const a = await t.newAccount();
  expect(await announced(a.accountId)).toEqual([]);
  // A price alert is evaluated on price refreshes, not on charges.
  await alert(a.auth, { type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 0.01 });
  expect(await announced(a.accountId)).toEqual([]);
});

it('an active budget alert: each charge wakes the monitor for budgets; once it triggered, no longer', async () => {
  const a = await t.newAccount();
  const b = await alert(a.auth, { type: 'budget_limit', threshold_dollars: 5 });
  expect(await announced(a.accountId)).toEqual([{ budget: true }]);
  await t.sql(`UPDATE alerts SET status = 'triggered', triggered_at = now() WHERE id = $1`, [b.body.id]);
  expect(await announced(a.accountId)).toEqual([]);
  // Another account's budget does not make this one's charges count.
  const other = await t.newAccount();
  await alert(other.auth, { type: 'budget_limit', threshold_dollars: 5 });
  expect(await announced(a.accountId)).toEqual([]);
});

it('a key with a spend cap, revoked or not: its account’s charges wake the monitor', async () => {
  const a = await t.newAccount();
  const capped = await t.http
    .post('/v1/api-keys')
    .set(a.auth)
    .send({ name: 'capped', scopes: ['read'], spend_limit: { amount: 1, period: 'day' } })
    .expect(201);
  expect(await announced(a.accountId)).toEqual([{ budget: true }]);
  await t.http.delete(`/v1/api-keys/${capped.body.id}`).set(a.auth).expect(200);
  expect(await announced(a.accountId)).toEqual([{ budget: true }]);
});

it('when the look fails or the account is unknown, the monitor is told anyway; nothing is thrown', async () => {
  const a = await t.newAccount();
  const failing = {
    spendWatched: () => Promise.reject(new Error('database down')),
  } as unknown as ReturnType<typeof createAlertQueries>;
  expect(await announced(a.accountId, failing)).toEqual([{ budget: true }]);
  expect(await announced(null)).toEqual([{ budget: true }]);
});

it('a monitor that cannot be signalled does not fail the charge: one warning, and the call resolves', async () => {
  const a = await t.newAccount();
  await alert(a.auth, { type: 'budget_limit', threshold_dollars: 5 });
  const warnings: string[] = [];
  const deps = {
    logger: { ...silentLogger, warn: (message: string) => void warnings.push(message) },
    queries: { alerts: createAlertQueries(t.db.pool) },
    workflows: { notifyAlertMonitor: () => Promise.reject(new Error('Temporal unavailable')) },
  } as unknown as ActivityDeps;
  await expect(announceChargesToAlertMonitor(deps, a.accountId)).resolves.toBeUndefined();
  expect(warnings).toEqual(['could not signal the alert monitor; budgets are evaluated at its next tick']);
});

/**
 * Scheduled runs and the key that made their schedule, on the real stack (Temporal dev server, Postgres, the
 * Vast.ai simulator): a schedule records its creating key; its runs are admitted against that key's spend cap
 * under the account's lock (racing runs cannot both take the last room), their instances count toward the key;
 * another key's schedule of the same account is unaffected; a revoked key's schedules run no more, with a
 * failure reason saying why.
 */
import { createInstanceQueries } from '../../src/db/queries/instances';
import type { WorkerDeps } from '../../src/worker';
import { createAlertMonitorClient } from '../../src/workflow-clients/alerts';
import { createTestContext, testVault, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(180_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let deps: WorkerDeps;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 500, meterIntervalMs: 60_000 } });
  temporal = await createTemporalTestEnv();
  // A run is a job: its instance runs the job wrapper, which would report to this address once the script ended
  // (these scripts never end).
  deps = t.workerDeps({ jobs: { publicBaseUrl: 'http://127.0.0.1:9', vault: testVault() } });
  await temporal.startWorker(deps, t.deps.temporal.taskQueue);
  // Instances stay booting: each run's instance stays live (and priced at its quote) while the test counts.
  t.sims.vastai.control.setBootDelay(600_000);
  await t.recordSimulatorPrices();
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Auth = { Authorization: string };
interface Run {
  id: string;
  status: string;
  instance_id: string | null;
  error: string | null;
}

/** A schedule that never fires by itself in a test's lifetime (Feb 29th at 03:17); runs come from `trigger`. */
async function createSchedule(auth: Auth, name: string): Promise<string> {
  const res = await t.http
    .post('/v1/schedules')
    .set(auth)
    .send({ name, gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 29 2 *' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Triggers the schedule and waits for the new run to be decided: launched (an instance accepted) or failed. */
async function triggerAndDecide(auth: Auth, scheduleId: string, earlier: readonly Run[] = []): Promise<Run> {
  await t.http.post(`/v1/schedules/${scheduleId}/trigger`).set(auth).expect(202);
  return eventually(
    `a decided run of ${scheduleId}`,
    async () => {
      const runs = (await t.http.get(`/v1/schedules/${scheduleId}/runs`).set(auth).expect(200)).body.data as Run[];
      return runs.find((r) => !earlier.some((e) => e.id === r.id) && (r.status === 'failed' || r.instance_id !== null));
    },
    60_000,
    // Up to nine of these poll one account side by side: once a second each stays under the account's 10 requests a
    // second (testAppDeps), so a slow decision never drains its burst and answers the test's next request with 429.
    1_000,
  );
}

// These two run at once, each on its own account; the next one makes Vast.ai's instances boot, so it comes after.
it.concurrent(
  "a key capped at $1/day: its schedules' runs are refused once the cap would be passed; another key runs on; a " +
    'revoked key runs nothing',
  async () => {
    const account = await t.newAccount('capped schedules', { credit: 100 });
    const simKey = t.sims.vastai.createKey();
    await t.http
      .post('/v1/settings/providers')
      .set(account.auth)
      .send({ provider: 'vastai', api_key: simKey })
      .expect(201);
    const created = await t.http
      .post('/v1/api-keys')
      .set(account.auth)
      .send({
        name: 'nightly-bot',
        scopes: ['read', 'schedules:write', 'compute:write'],
        spend_limit: { amount: 1, period: 'day' },
      });
    expect(created.status).toBe(201);
    const capped = { Authorization: `Bearer ${created.body.api_key}` };

    // A run launches on the cheapest offer for rtx-4090: Vast.ai spot. That many runs fit in $1 for their next hour.
    const offers = await t.deps.adapters.vastai.listOffers(simKey);
    const quote = Math.min(
      ...offers.filter((o) => o.gpuType === 'rtx-4090' && o.spot).map((o) => Math.round(o.pricePerHour * 1e6)),
    );
    const fits = Math.floor(1_000_000 / quote);
    expect(fits).toBeGreaterThanOrEqual(2);
    expect(fits).toBeLessThan(8);

    // One live run per schedule: fits + 2 schedules made with the capped key, all triggered at once.
    const scheduleIds: string[] = [];
    for (let i = 0; i <= fits + 1; i++) scheduleIds.push(await createSchedule(capped, `capped-${i}`));
    const runs = await Promise.all(scheduleIds.map((id) => triggerAndDecide(capped, id)));
    const launched = runs.filter((r) => r.instance_id !== null);
    const refused = runs.filter((r) => r.status === 'failed');
    expect(launched).toHaveLength(fits);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.error).toMatch(
        // The run's job names the offer it was refused on.
        /^vastai \(spot\): insufficient_balance: This API key \("nightly-bot", gpuo_sk_.{4}…\) is capped at \$1\.00 /,
      );
      // The launched runs' instances are the key's: their next hour is what the cap already carries.
      expect(r.error).toContain(`its live instances cost $${((fits * quote) / 1e6).toFixed(2)} for the next hour`);
    }
    expect(t.sims.vastai.control.instances(simKey)).toHaveLength(fits);
    const attributed = await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM instances WHERE api_key_id = $1', [
      created.body.id,
    ]);
    expect(attributed[0]!.n).toBe(fits);

    // The account's own key is not bound by the other key's cap: its schedule runs.
    const own = await triggerAndDecide(account.auth, await createSchedule(account.auth, 'own'));
    expect(own).toMatchObject({ error: null, instance_id: expect.any(String) });

    // Revoked: a schedule the key made runs no more, and its run says why; replaced (PUT) by a live key, it runs
    // under that key again.
    await t.http.delete(`/v1/api-keys/${created.body.id}`).set(account.auth).expect(200);
    const idle = scheduleIds.filter((_, i) => runs[i]!.status === 'failed');
    const orphanRun = await triggerAndDecide(account.auth, idle[0]!, runs);
    expect(orphanRun.status).toBe('failed');
    expect(orphanRun.error).toMatch(
      /^vastai \(spot\): api_key_unusable: The API key "nightly-bot" \(gpuo_sk_.{4}…\) that made this launch was /,
    );
    expect(t.sims.vastai.control.instances(simKey)).toHaveLength(fits + 1);
    await t.http.put(`/v1/schedules/${idle[1]}`).set(account.auth).send({ name: 'adopted' }).expect(200);
    const adopted = await triggerAndDecide(account.auth, idle[1]!, runs);
    expect(adopted).toMatchObject({ error: null, instance_id: expect.any(String) });
  },
);

it.concurrent("an expired key's schedule runs nothing, and its run says the key has expired", async () => {
  const account = await t.newAccount('expired key', { credit: 100 });
  const simKey = t.sims.vastai.createKey();
  await t.http
    .post('/v1/settings/providers')
    .set(account.auth)
    .send({ provider: 'vastai', api_key: simKey })
    .expect(201);
  const created = await t.http
    .post('/v1/api-keys')
    .set(account.auth)
    .send({ name: 'short-lived', scopes: ['read', 'schedules:write'] });
  const scheduleId = await createSchedule({ Authorization: `Bearer ${created.body.api_key}` }, 'outlives-its-key');
  // The key's expiry passes (written as time passing would leave it).
  await t.sql("UPDATE service_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [created.body.id]);
  const run = await triggerAndDecide(account.auth, scheduleId);
  expect(run.status).toBe('failed');
  expect(run.error).toMatch(
    /^vastai \(spot\): api_key_unusable: The API key "short-lived" \(gpuo_sk_.{4}…\) that made this launch has /,
  );
  expect(t.sims.vastai.control.instances(simKey)).toEqual([]);
});

it("a scheduled run's instance counts toward its key: reaching the cap ends it, and the run says why", async () => {
  t.sims.vastai.control.setBootDelay(300);
  const account = await t.newAccount('capped run ended', { credit: 100 });
  const simKey = t.sims.vastai.createKey();
  await t.http
    .post('/v1/settings/providers')
    .set(account.auth)
    .send({ provider: 'vastai', api_key: simKey })
    .expect(201);
  const created = await t.http
    .post('/v1/api-keys')
    .set(account.auth)
    .send({
      name: 'cron-agent',
      scopes: ['read', 'schedules:write', 'compute:write'],
      spend_limit: { amount: 1, period: 'day' },
    });
  const capped = { Authorization: `Bearer ${created.body.api_key}` };
  const scheduleId = await createSchedule(capped, 'long-job');
  const launched = await triggerAndDecide(capped, scheduleId);
  expect(launched.instance_id).toEqual(expect.any(String));
  await eventually(
    'the run to be running',
    async () =>
      ((await t.http.get(`/v1/schedules/${scheduleId}/runs`).set(capped).expect(200)).body.data as Run[]).find(
        (r) => r.status === 'running',
      ),
    60_000,
    200,
  );

  // Time passes for the run's instance: ten hours of it charged (the metering function at a later "now"),
  // which takes the key past $1 today; the monitor is told that charges landed, as metering does.
  const instances = createInstanceQueries(t.db.pool);
  const [row] = await t.sql<{ id: string; started_at: string }>(
    'SELECT id, started_at FROM instances WHERE provider_instance_id = $1',
    [launched.instance_id],
  );
  await instances.chargeThrough(row!.id, new Date(Date.parse(row!.started_at) + 10 * 3_600_000));
  await createAlertMonitorClient({
    client: t.temporal,
    taskQueue: t.deps.temporal.taskQueue,
    settings: deps.alertMonitor!,
  }).notify({ budget: true });

  const ended = await eventually(
    'the run to end',
    async () =>
      ((await t.http.get(`/v1/schedules/${scheduleId}/runs`).set(capped).expect(200)).body.data as Run[]).find(
        (r) => r.status === 'failed',
      ),
    60_000,
    200,
  );
  expect(ended.error).toMatch(
    new RegExp(
      '^the instance was ended: API key "cron-agent" \\(gpuo_sk_.{4}…\\) reached its spend cap: ' +
        '\\$\\d+\\.\\d\\d spent this day \\(UTC\\), cap \\$1\\.00$',
    ),
  );
  expect(t.sims.vastai.control.instances(simKey)).toEqual([]);
});

/**
 * Boots cannot hang: a boot that never ends is terminated at its deadline (compressed here to 2.5 s), never
 * charged, recorded `failed` with the reason and `instance.failed`; a boot the provider fails (RunPod EXITED,
 * Vast.ai exited, Lambda unhealthy) ends within one look, long before its deadline.
 */
import { type ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

const DEADLINE_MS = 2_500;
let t: TestContext;
let temporal: TemporalTestEnv;
const timing = { pollIntervalMs: 1_000, meterIntervalMs: 60_000, bootPollMaxMs: 300, bootDeadlineMs: DEADLINE_MS };

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: timing,
    // A scheduled run is a job: the attempt after a failed boot waits out the job's capacity backoff, compressed.
    jobBackoff: { backoffInitialMs: 500, backoffMaxMs: 1_000 },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  // Prices as a refresh leaves them, for the scheduled run's offers.
  await t.recordSimulatorPrices();
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

async function launch(a: { auth: Record<string, string> }, provider: ProviderId): Promise<string> {
  const res = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send({
      provider,
      gpu_type: provider === 'lambda' ? 'h100-80gb-sxm' : 'rtx-a6000',
      ...(provider === 'lambda' ? { region: 'us-east-1', gpu_count: 8 } : {}),
    });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function failedRow(id: string) {
  return eventually(
    `instance ${id} to fail`,
    async () => {
      const [row] = await t.sql<{
        id: string;
        status: string;
        end_reason: string;
        ended_at: Date;
        created_at: Date;
        account_id: string;
      }>(
        'SELECT id, status, end_reason, ended_at, created_at, account_id FROM instances ' +
          'WHERE provider_instance_id = $1',
        [id],
      );
      return row?.status === 'failed' ? row : undefined;
    },
    30_000,
    50,
  );
}

const chargesOf = async (rowId: string) =>
  Number(
    (await t.sql<{ n: string }>('SELECT count(*) AS n FROM ledger_entries WHERE instance_id = $1', [rowId]))[0]!.n,
  );
const eventsOf = (accountId: string) =>
  t.sql<{ type: string; data: Record<string, unknown> }>(
    'SELECT type, data FROM events WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );

it(
  'terminates a boot that never ends at its deadline, ' + 'charges nothing, records failed and instance.failed',
  async () => {
    const a = await t.connectedAccount('runpod');
    t.sims.runpod.control.setBootDelay(3_600_000);
    let id: string;
    try {
      id = await launch(a, 'runpod');
    } finally {
      t.sims.runpod.control.setBootDelay(200);
    }
    const row = await failedRow(id);
    expect(row.end_reason).toMatch(/did not start within 2.5 s \(boot deadline\)/);
    const bootMs = row.ended_at.getTime() - row.created_at.getTime();
    expect(bootMs).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]); // terminated at the provider
    expect(await chargesOf(row.id)).toBe(0);
    const events = await eventsOf(a.accountId);
    expect(events.map((e) => e.type)).toEqual(['instance.failed']);
    expect(events[0]!.data).toMatchObject({ instance_id: id, provider: 'runpod', reason: row.end_reason });
    const listed = await t.http.get('/v1/compute').set(a.auth);
    // Listed as failed (until a round no longer lists it at the provider), never as still provisioning.
    expect(
      listed.body.data.filter((i: { id: string }) => i.id === id).map((i: { status: string }) => i.status),
    ).toEqual(listed.body.data.some((i: { id: string }) => i.id === id) ? ['failed'] : []);
    expect((await temporal.env.client.workflow.getHandle(row.id).result()).outcome).toBe('boot_failed');
  },
);

describe.each([
  ['runpod', 'EXITED', (key: string, id: string) => t.sims.runpod.control.preempt(key, id)],
  ['vastai', 'exited', (key: string, id: string) => t.sims.vastai.control.preempt(key, id, 'exited')],
  ['lambda', 'unhealthy', (key: string, id: string) => t.sims.lambda.control.markUnhealthy(key, id)],
] as const)('%s', (provider, word, fail) => {
  it(`ends a boot the provider reports ${word} within one look, not at the deadline`, async () => {
    timing.bootDeadlineMs = 60_000;
    const a = await t.connectedAccount(provider);
    t.sims[provider].control.setBootDelay(3_600_000);
    let id: string;
    try {
      id = await launch(a, provider);
    } finally {
      t.sims[provider].control.setBootDelay(200);
      timing.bootDeadlineMs = DEADLINE_MS;
    }
    const failedAt = Date.now();
    fail(a.simKey, id);
    const row = await failedRow(id);
    expect(row.end_reason).toContain(`reported ${word} before the instance started`);
    // Ended for the provider's word (the reason above) at a look, well before the 60 s deadline would have: the
    // looks come at most bootPollMaxMs apart while booting (how soon is the observer's, in observer.test.ts).
    expect(row.ended_at.getTime() - failedAt).toBeLessThan(60_000 / 2);
    await eventually('the instance to be gone at the provider', () =>
      t.sims[provider].control.instances(a.simKey).every((i) => i.id !== id || /terminat/i.test(i.status ?? ''))
        ? true
        : undefined,
    );
    expect(await chargesOf(row.id)).toBe(0);
    expect((await eventsOf(a.accountId)).map((e) => e.type)).toEqual(['instance.failed']);
  });
});

// 150 s: room for the 100 s wait below to fail with its own message after the steps before it.
it('a scheduled run whose boot passes its deadline moves on to the next offer', async () => {
  const a = await t.connectedAccount('runpod');
  const vastKey = t.sims.vastai.createKey();
  await t.http.post('/v1/settings/providers').set(a.auth).send({ provider: 'vastai', api_key: vastKey }).expect(201);
  // rtx-4090 on demand: vastai $0.4021 before runpod $0.69; Vast.ai boots hang.
  t.sims.vastai.control.setBootDelay(3_600_000);
  try {
    const schedule = (
      await t.http
        .post('/v1/schedules')
        .set(a.auth)
        .send({ name: 'nightly', gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 29 2 *', prefer_spot: false })
        .expect(201)
    ).body as { id: string };
    await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
    type Run = { status: string; provider: string; instance_id: string };
    let runs: Run[] = [];
    // A give-up bound, not a timing assertion: the steps (a 2.5 s deadline, a backoff of at most 1 s, a 200 ms
    // boot) take seconds, many more on a loaded machine. What the run and its instances were is in the failure.
    const run = await eventually(
      'the run to run on the next offer',
      async () => {
        runs = (await t.http.get(`/v1/schedules/${schedule.id}/runs`).set(a.auth).expect(200)).body.data as Run[];
        return runs.find((r) => r.status === 'running');
      },
      100_000,
      200,
    ).catch(async (err: Error) => {
      // A failing read leaves the timeout's own message in front, not a database error in its place.
      const instances = await t
        .sql(
          'SELECT provider, status, end_reason, created_at, started_at, ended_at FROM instances ' +
            'WHERE account_id = $1 ORDER BY created_at',
          [a.accountId],
        )
        .then(JSON.stringify, (e: Error) => `unreadable (${e.message})`);
      throw new Error(`${err.message}; runs ${JSON.stringify(runs)}; instances ${instances}`);
    });
    expect(run.provider).toBe('runpod');
    // The Vast.ai attempt: terminated at its deadline, failed with the reason, never charged.
    const [vast] = await t.sql<{ id: string; status: string; end_reason: string }>(
      "SELECT id, status, end_reason FROM instances WHERE account_id = $1 AND provider = 'vastai'",
      [a.accountId],
    );
    expect(vast).toMatchObject({ status: 'failed', end_reason: expect.stringMatching(/boot deadline/) });
    expect(await chargesOf(vast!.id)).toBe(0);
    expect(t.sims.vastai.control.instances(vastKey)).toEqual([]);
    expect((await eventsOf(a.accountId)).map((e) => e.type)).toContain('instance.failed');
    await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
  } finally {
    t.sims.vastai.control.setBootDelay(200);
  }
}, 150_000);

/**
 * A launch whose instance was created and then failed to boot, re-posted with the same Idempotency-Key and
 * body: the answer is 409 naming why, and no row is left counting in the live limit or the burn without a
 * launch workflow to end it (the engine does not start a key's workflow again once it ran to the end).
 * Real Temporal, Postgres and the RunPod simulator, with a boot deadline of 2.5 s.
 */
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: 500, meterIntervalMs: 60_000, bootPollMaxMs: 300, bootDeadlineMs: 2_500 },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  // Never boots: every launch here fails at its boot deadline.
  t.sims.runpod.control.setBootDelay(3_600_000);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

const liveUsed = async (auth: Record<string, string>) =>
  ((await t.http.get('/v1/limits').set(auth).expect(200)).body.data as { name: string; used: number }[]).find(
    (l) => l.name === 'live_instances',
  )!.used;

it(
  'a failed boot, then the same Idempotency-Key re-posted: ' + '409, no ownerless row, /v1/limits back to its count',
  async () => {
    const a = await t.connectedAccount('runpod');
    const body = { provider: 'runpod', gpu_type: 'rtx-a6000' };
    const first = await t.http.post('/v1/compute/launch').set(a.auth).set('Idempotency-Key', 'boot-fails').send(body);
    expect(first.status).toBe(201);
    const id = first.body.id as string;
    await eventually(
      'the boot to fail',
      async () => {
        const [row] = await t.sql<{ status: string }>('SELECT status FROM instances WHERE provider_instance_id = $1', [
          id,
        ]);
        return row?.status === 'failed' ? true : undefined;
      },
      30_000,
      100,
    );
    expect(await liveUsed(a.auth)).toBe(0);

    const again = await t.http.post('/v1/compute/launch').set(a.auth).set('Idempotency-Key', 'boot-fails').send(body);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('new Idempotency-Key');

    // Nothing counts: no row of the account is live, the failed one still names its provider instance.
    expect(await liveUsed(a.auth)).toBe(0);
    const rows = await t.sql<{ status: string; provider_instance_id: string | null }>(
      'SELECT status, provider_instance_id FROM instances WHERE account_id = $1',
      [a.accountId],
    );
    expect(rows).toEqual([{ status: 'failed', provider_instance_id: id }]);
    const summary = (await t.http.get('/v1/billing/summary').set(a.auth).expect(200)).body;
    expect(summary).toMatchObject({ burn_rate_per_hour: 0, live_instances: 0 });

    // A new key launches afresh.
    const fresh = await t.http.post('/v1/compute/launch').set(a.auth).set('Idempotency-Key', 'boot-fails-2').send(body);
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(id);
  },
);

/**
 * Idle stop on the whole stack (API, worker, observer, provider simulators, Postgres): an instance launched with
 * `idle_stop` whose GPUs the simulator reports below the threshold is stopped (runpod) or terminated (vastai)
 * once the window has passed (minutes compressed to 1 s by `idleStopMinuteMs`, IDLE_STOP_MINUTE), charged up to
 * that moment, with the reason in its record and `instance.idle_stopped` in the events; above the threshold it
 * is left running; Lambda (no utilization reported) and out-of-range rules are refused with a 400. The window's
 * rules in workflow time are test/workflows/idle-stop.test.ts.
 */
import { type ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { terminated } from '../helpers/terminate';

jest.setTimeout(120_000);

const MINUTE_MS = 1_000; // one idle-stop "minute" here
const IDLE_STOP = { utilization_below_percent: 20, for_minutes: 2 };
let t: TestContext;
let temporal: TemporalTestEnv;
const timing = { pollIntervalMs: 400, meterIntervalMs: 60_000, bootPollMaxMs: 300, idleStopMinuteMs: MINUTE_MS };

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: timing });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  // Prices as a refresh leaves them, for the scheduled run's offers.
  await t.recordSimulatorPrices();
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

interface Row {
  id: string;
  status: string;
  end_reason: string | null;
  started_at: Date | null;
  metered_through: Date | null;
  price_per_hour_micros: string;
}
const rowOf = async (providerId: string) =>
  (
    await t.sql<Row>(
      'SELECT id, status, end_reason, started_at, metered_through, price_per_hour_micros FROM instances ' +
        'WHERE provider_instance_id = $1',
      [providerId],
    )
  )[0];

/** Launches with the idle-stop rule, the GPUs busy (the simulators report 0 % unless told), and waits for running. */
async function launchBusy(provider: Extract<ProviderId, 'runpod' | 'vastai'>) {
  const a = await t.connectedAccount(provider);
  const res = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send({ provider, gpu_type: 'rtx-4090', gpu_count: 2, idle_stop: IDLE_STOP });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  expect(res.body.idle_stop).toEqual(IDLE_STOP);
  t.sims[provider].control.setUtilization(a.simKey, id, 90);
  await eventually(
    `${id} running`,
    async () => ((await rowOf(id))?.status === 'running' ? true : undefined),
    30_000,
    50,
  );
  return { a, id };
}

async function eventTypes(auth: Record<string, string>): Promise<{ type: string; data: Record<string, unknown> }[]> {
  return (
    (await t.http.get('/v1/events').set(auth).expect(200)).body.data as {
      type: string;
      data: Record<string, unknown>;
    }[]
  ).reverse();
}

async function chargedMicros(row: Row, providerId: string): Promise<number> {
  const [sum] = await t.sql<{ micros: string | null }>(
    "SELECT -sum(amount_micros) AS micros FROM ledger_entries WHERE type = 'instance_charge' AND instance_id IN ($1, " +
      '$2)',
    [row.id, providerId],
  );
  return Number(sum?.micros ?? 0);
}

// Every test has its own account and instances (utilization is set per instance): they run side by side.
describe('idle stop', () => {
  it.concurrent.each([
    ['runpod', 'stopped', 'instance.stopped'],
    ['vastai', 'terminated', 'instance.terminated'],
  ] as const)(
    '%s: %s once every GPU stayed below the threshold for the minutes, charged to that moment, ' +
      'with the reason and instance.idle_stopped',
    async (provider, ended, plainEvent) => {
      const { a, id } = await launchBusy(provider);
      const idleFrom = Date.now();
      t.sims[provider].control.setUtilization(a.simKey, id, 5);
      const row = await eventually(
        `${id} ${ended}`,
        async () => {
          const r = await rowOf(id);
          return r?.status === ended ? r : undefined;
        },
        30_000,
        50,
      );
      const reason = 'idle stop: every GPU below 20% utilization for 2 minutes';
      expect(row.end_reason).toBe(reason);

      // Not before the window (2 "minutes" of 1 s) of idle readings.
      const endedAt = row.metered_through!.getTime();
      expect(endedAt - idleFrom).toBeGreaterThanOrEqual(2 * MINUTE_MS);
      // Charged from the start up to the end, at the launch price.
      const expected = Math.round(
        (Number(row.price_per_hour_micros) * (endedAt - row.started_at!.getTime())) / 3_600_000,
      );
      expect(Math.abs((await chargedMicros(row, id)) - expected)).toBeLessThanOrEqual(2);

      const events = await eventTypes(a.auth);
      const idle = events.filter((e) => e.type === 'instance.idle_stopped');
      expect(idle).toHaveLength(1);
      expect(idle[0]!.data).toMatchObject({
        instance_id: id,
        provider,
        reason,
        idle_stop: IDLE_STOP,
        at: row.metered_through!.toISOString(),
      });
      expect(events.map((e) => e.type)).toContain(plainEvent);
      expect(
        (await t.http.get('/v1/events?type=instance.idle_stopped').set(a.auth).expect(200)).body.data,
      ).toHaveLength(1);

      // At the provider too, and in the list's record.
      const simStatus = t.sims[provider].control.instances(a.simKey).find((i) => i.id === id)?.status ?? 'gone';
      expect(simStatus).toMatch(provider === 'runpod' ? /EXITED/ : /^(gone|.*(exited|stopped|terminat|destroy).*)$/i);
      if (provider === 'runpod') {
        const listed = (await t.http.get('/v1/compute').set(a.auth).expect(200)).body.data.find(
          (i: { id: string }) => i.id === id,
        );
        expect(listed).toMatchObject({ status: 'stopped', end_reason: reason, idle_stop: IDLE_STOP });
      }
    },
  );

  it.concurrent('leaves an instance whose GPUs stay at or above the threshold running', async () => {
    const { a, id } = await launchBusy('runpod');
    const from = Date.now();
    t.sims.runpod.control.setUtilization(a.simKey, id, 20); // at the threshold: busy
    // Rounds keep coming (the fleet view's observed_at moves) well past the 2 s window.
    await eventually(
      'observer rounds past the window',
      async () => {
        const body = (await t.http.get('/v1/compute').set(a.auth).expect(200)).body as {
          providers: { provider: string; observed_at: string | null }[];
        };
        const runpod = body.providers.find((p) => p.provider === 'runpod');
        return runpod?.observed_at && Date.parse(runpod.observed_at) - from > 3 * 2 * MINUTE_MS ? true : undefined;
      },
      30_000,
      100,
    );
    expect((await rowOf(id))?.status).toBe('running');
    expect(t.sims.runpod.control.instances(a.simKey).find((i) => i.id === id)?.status).toMatch(/RUNNING/);
    expect((await eventTypes(a.auth)).map((e) => e.type)).not.toContain('instance.idle_stopped');
    await terminated(t.http, a.auth, id);
  });

  it.concurrent('refuses idle_stop on lambda, and rules out of range, with a 400 that says why', async () => {
    const a = await t.connectedAccount('lambda');
    const lambda = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'lambda', gpu_type: 'h100-80gb-sxm', gpu_count: 8, region: 'us-east-1', idle_stop: IDLE_STOP });
    expect(lambda.status).toBe(400);
    expect(lambda.body.error.code).toBe('validation_error');
    expect(JSON.stringify(lambda.body.error)).toContain('Lambda reports no GPU utilization');
    for (const idle_stop of [
      { utilization_below_percent: 0, for_minutes: 5 },
      { utilization_below_percent: 101, for_minutes: 5 },
      { utilization_below_percent: 10, for_minutes: 0 },
      { utilization_below_percent: 10 },
    ]) {
      const res = await t.http
        .post('/v1/compute/launch')
        .set(a.auth)
        .send({ provider: 'runpod', gpu_type: 'rtx-4090', idle_stop });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await t.sql('SELECT id FROM instances WHERE account_id = $1', [a.accountId])).length).toBe(0);
  });

  it.concurrent('a schedule keeps its idle_stop (create, update, clear)', async () => {
    const a = await t.connectedAccount('runpod');
    const created = await t.http
      .post('/v1/schedules')
      .set(a.auth)
      .send({ name: 'nightly', gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 * * *', idle_stop: IDLE_STOP });
    expect(created.status).toBe(201);
    expect(created.body.idle_stop).toEqual(IDLE_STOP);
    const changed = await t.http
      .put(`/v1/schedules/${created.body.id}`)
      .set(a.auth)
      .send({ idle_stop: { utilization_below_percent: 5, for_minutes: 30 } });
    expect(changed.body.idle_stop).toEqual({ utilization_below_percent: 5, for_minutes: 30 });
    const cleared = await t.http.put(`/v1/schedules/${created.body.id}`).set(a.auth).send({ idle_stop: null });
    expect(cleared.body).not.toHaveProperty('idle_stop');
    const bad = await t.http
      .put(`/v1/schedules/${created.body.id}`)
      .set(a.auth)
      .send({ idle_stop: { utilization_below_percent: 5, for_minutes: 0 } });
    expect(bad.status).toBe(400);
  });

  it.concurrent(
    "a scheduled run's instance whose GPUs idle is terminated by the schedule's idle_stop, " +
      'and the run succeeds with the reason',
    async () => {
      const a = await t.connectedAccount('runpod');
      const schedule = (
        await t.http
          .post('/v1/schedules')
          .set(a.auth)
          .send({
            name: 'idle-job',
            gpu: 'rtx-4090',
            template: 'pytorch',
            cron: '17 3 29 2 *',
            prefer_spot: false,
            idle_stop: IDLE_STOP,
          })
          .expect(201)
      ).body as { id: string };
      await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
      // The simulator reports 0 % utilization unless told otherwise: the job's GPUs idle from the start.
      const run = await eventually(
        'the run to end',
        async () => {
          const [r] = (await t.http.get(`/v1/schedules/${schedule.id}/runs`).set(a.auth).expect(200)).body.data as {
            status: string;
            stop_reason: string | null;
            instance_id: string | null;
          }[];
          return r && r.status !== 'launching' && r.status !== 'running' ? r : undefined;
        },
        60_000,
        100,
      );
      expect(run).toMatchObject({
        status: 'succeeded',
        stop_reason: 'idle stop: every GPU below 20% utilization for 2 minutes',
      });
      const row = await rowOf(run.instance_id!);
      expect(row?.status).toBe('terminated'); // a scheduled run's pod is terminated, not kept stopped
      expect((await eventTypes(a.auth)).map((e) => e.type)).toEqual(
        expect.arrayContaining(['instance.idle_stopped', 'instance.terminated']),
      );
    },
  );
});

/**
 * Scheduled runs end on timers, not polls (real stack: Temporal dev server, Postgres, the Vast.ai simulator),
 * with the DEFAULT observation interval of 60 s: the launch tells its run when the create is accepted and when
 * the instance started, so the run is `running` at once and stops at `started_at + max_duration_hours`, not at
 * an observation round. The bounds are halves of that interval (a path through an observation round would take
 * most of it), not this machine's latency; the deadlines themselves (max_duration_hours exactly, max_cost at the
 * moment price × elapsed reaches it) are tested to the second in workflow time: test/workflows/schedule-run.test.ts.
 */
import { createPricingQueries } from '../../src/db/queries/pricing';
import { toStoredOffer } from '../../src/domain/pricing';
import { createTestContext, testVault, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(180_000);

/** The launch's look at a booting instance and the run's look at its row (the default observation interval). */
const OBSERVE_MS = 60_000;

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: OBSERVE_MS, meterIntervalMs: 3_600_000 },
  });
  temporal = await createTemporalTestEnv();
  // A run is a job: the wrapper would report to this address once the script ended (it never does here).
  await temporal.startWorker(
    t.workerDeps({ jobs: { publicBaseUrl: 'http://127.0.0.1:9', vault: testVault() } }),
    t.deps.temporal.taskQueue,
  );
  t.sims.vastai.control.setBootDelay(300);
  const offers = (await t.deps.adapters.vastai.listOffers(t.sims.vastai.createKey())).map(toStoredOffer);
  await createPricingQueries(t.db.pool).recordRefresh(
    {
      vastai: { ok: true, offers },
      runpod: { ok: false, error: 'not asked' },
      lambda: { ok: false, error: 'not asked' },
    },
    new Date(),
  );
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

interface Run {
  status: string;
  started_at: string | null;
  ended_at: string | null;
  price_per_hour: number | null;
  stop_reason: string | null;
}

async function triggeredRun(limits: Record<string, unknown>) {
  const account = await t.connectedAccount('vastai');
  const created = await t.http
    .post('/v1/schedules')
    .set(account.auth)
    .send({ name: 'timed', gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 29 2 *', prefer_spot: false, ...limits });
  expect(created.status).toBe(201);
  await t.http.post(`/v1/schedules/${created.body.id}/trigger`).set(account.auth).expect(202);
  const latest = async () =>
    ((await t.http.get(`/v1/schedules/${created.body.id}/runs`).set(account.auth)).body.data as Run[])[0];
  const running = await eventually(
    'the run to be running',
    async () => {
      const r = await latest();
      return r?.status === 'running' ? { run: r, seenAt: Date.now() } : undefined;
    },
    30_000,
    100,
  );
  // Recorded at once, from the launch's word: the run's own look comes an observation interval after the launch
  // began, so through it the run would be seen running most of that interval after started_at.
  expect(running.seenAt - Date.parse(running.run.started_at!)).toBeLessThan(OBSERVE_MS / 2);
  const ended = await eventually(
    'the run to end',
    async () => {
      const r = await latest();
      return r?.ended_at ? r : undefined;
    },
    90_000,
    100,
  );
  return { running: running.run, ended };
}

describe('with the default observation interval (60 s)', () => {
  // 7.2 s: far from any observation round (60 s), so only the timer can end it before one. The timer's own
  // exactness is shown in the time-skipping environment (test/workflows/schedule-run.test.ts).
  it(
    'max_duration_hours 0.002 stops after 7.2 s from the start, ' + 'by its timer, not at an observation round (60 s)',
    async () => {
      const { ended } = await triggeredRun({ max_duration_hours: 0.002 });
      expect(ended.status).toBe('stopped_max_duration');
      const ran = Date.parse(ended.ended_at!) - Date.parse(ended.started_at!);
      expect(ran).toBeGreaterThanOrEqual(7_200);
      expect(ran).toBeLessThan(7_200 + OBSERVE_MS / 2);
    },
  );
});

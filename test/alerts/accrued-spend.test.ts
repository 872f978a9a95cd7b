/**
 * Budgets and key caps act on accrued spend (posted charges plus what live instances have run since their last
 * charge, the figure GET /v1/billing/summary shows), evaluated every observation interval: with the meter at
 * an hour, nothing is posted before the end, and still a `stop_instances` budget and a $1/day key cap end their
 * instances once accrued spend crosses them, on RunPod, Vast.ai and Lambda. They act at a budget evaluation, not
 * at the monitor's full tick (5 min): the instance's cost overshoots the line by less than burn × half that tick.
 * The budget evaluations' cadence is asserted in workflow time (test/workflows/alert-monitor.test.ts). Real
 * Temporal, Postgres and simulators.
 */
import type { ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, uniqueTaskQueue, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(180_000);

/** The observation interval, and how often the monitor evaluates budgets (INSTANCE_OBSERVE_INTERVAL). */
const OBSERVE_MS = 1_000;
/** The monitor's full tick (ALERT_MONITOR_TICK), at which it evaluates prices and budgets alike. */
const MONITOR_TICK_MS = 5 * 60_000;

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: OBSERVE_MS, meterIntervalMs: 3_600_000 },
  });
  temporal = await createTemporalTestEnv();
  const deps = t.workerDeps({
    alertMonitor: { workflowId: uniqueTaskQueue('alert-monitor'), tickMs: MONITOR_TICK_MS, budgetTickMs: OBSERVE_MS },
  });
  await temporal.startWorker(deps, t.deps.temporal.taskQueue);
  for (const p of ['runpod', 'vastai', 'lambda'] as const) t.sims[p].control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

const LAUNCH: Record<ProviderId, Record<string, unknown>> = {
  runpod: { provider: 'runpod', gpu_type: 'rtx-a6000' },
  vastai: { provider: 'vastai', gpu_type: 'rtx-a6000' },
  lambda: { provider: 'lambda', gpu_type: 'rtx-a6000', region: 'us-west-1' },
};
const ENDED: Record<ProviderId, string> = { runpod: 'stopped', vastai: 'terminated', lambda: 'terminated' };

interface Row {
  id: string;
  status: string;
  price: string | null;
  metered_through: Date | null;
  end_reason: string | null;
}
const rowOf = async (providerInstanceId: string) =>
  (
    await t.sql<Row>(
      `SELECT id, status, coalesce(price_per_hour_micros, quote_per_hour_micros)::text AS price, metered_through, ` +
        `end_reason
     FROM instances WHERE provider_instance_id = $1`,
      [providerInstanceId],
    )
  )[0]!;

const posted = async (accountId: string) =>
  Number(
    (
      await t.sql<{ s: string }>(
        `SELECT coalesce(sum(-amount_micros), 0)::text AS s FROM ledger_entries WHERE account_id = $1 AND ` +
          `type = 'instance_charge'`,
        [accountId],
      )
    )[0]!.s,
  );

async function launchRunning(auth: { Authorization: string }, provider: ProviderId) {
  const res = await t.http.post('/v1/compute/launch').set(auth).send(LAUNCH[provider]);
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  // Metered from here on: the observer saw it running.
  const row = await eventually(
    `${provider} instance metered`,
    async () => {
      const r = await rowOf(id);
      return r.status === 'running' && r.metered_through !== null ? r : undefined;
    },
    60_000,
    100,
  );
  return { id, row, pricePerHourMicros: Number(row.price) };
}

const ended = (provider: ProviderId, id: string) =>
  eventually(
    `${provider} instance ${ENDED[provider]}`,
    async () => {
      const r = await rowOf(id);
      return r.status === ENDED[provider] ? r : undefined;
    },
    60_000,
    100,
  );

/**
 * burn × half the monitor's full tick, in micros: an end at a budget evaluation stays below it (seconds of burn,
 * more on a loaded machine); waiting for the full tick would not.
 */
const bound = (pricePerHourMicros: number) => (pricePerHourMicros * (MONITOR_TICK_MS / 2)) / 3_600_000;

describe.each(['runpod', 'vastai', 'lambda'] as const)('%s', (provider) => {
  it.concurrent(
    'a stop_instances budget ends the instance once accrued spend crosses it, ' +
      "with nothing posted before; overshoot below burn × half the monitor's tick",
    async () => {
      const a = await t.connectedAccount(provider);
      const thresholdMicros = 500;
      const alert = await t.http
        .post('/v1/alerts')
        .set(a.auth)
        .send({ type: 'budget_limit', action: 'stop_instances', threshold_dollars: thresholdMicros / 1e6 });
      expect(alert.status).toBe(201);
      const { id, pricePerHourMicros } = await launchRunning(a.auth, provider);

      const end = await ended(provider, id);
      expect(end.end_reason).toContain(`budget alert ${alert.body.id} reached`);
      const spent = await posted(a.accountId);
      expect(spent).toBeGreaterThanOrEqual(thresholdMicros);
      expect(spent - thresholdMicros).toBeLessThanOrEqual(bound(pricePerHourMicros));
      const [event] = await t.sql<{ data: { value: number } }>(
        `SELECT data FROM events WHERE account_id = $1 AND type = 'alert.triggered'`,
        [a.accountId],
      );
      expect(event!.data.value * 1e6).toBeGreaterThanOrEqual(thresholdMicros);
    },
  );

  it.concurrent(
    "a $1/day key cap ends the key's instance once its accrued spend crosses $1; overshoot below burn × half " +
      "the monitor's tick",
    async () => {
      const a = await t.connectedAccount(provider);
      const created = await t.http
        .post('/v1/api-keys')
        .set(a.auth)
        .send({ name: 'agent', scopes: ['read', 'compute:write'], spend_limit: { amount: 1, period: 'day' } });
      expect(created.status).toBe(201);
      const { id, row, pricePerHourMicros } = await launchRunning(
        { Authorization: `Bearer ${created.body.api_key}` },
        provider,
      );
      // The instance has run unposted for as long as $1 less 500 µ$ takes (a meter interval of an hour posts
      // nothing before the end): its run and last charge point moved back by that long.
      const capMicros = 1_000_000;
      const unpostedMs = Math.floor(((capMicros - 500) * 3_600_000) / pricePerHourMicros);
      await t.sql(
        `UPDATE instances SET started_at = now() - make_interval(secs => $2::float8 / 1000), metered_through = now() ` +
          `- make_interval(secs => $2::float8 / 1000) WHERE id = $1`,
        [row.id, unpostedMs],
      );

      const end = await ended(provider, id);
      expect(end.end_reason).toMatch(/^API key "agent" \(gpuo_sk_.{4}…\) reached its spend cap/);
      const spent = await posted(a.accountId);
      expect(spent).toBeGreaterThanOrEqual(capMicros);
      expect(spent - capMicros).toBeLessThanOrEqual(bound(pricePerHourMicros));
    },
  );
});

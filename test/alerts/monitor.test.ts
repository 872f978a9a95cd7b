/**
 * The alert monitor end to end on the real Temporal dev server, real Postgres and the provider simulators:
 * a cheaper offer appears at a provider → the pricing refresh signals the monitor → matching price alerts
 * trigger once with the offer in `alert.triggered`; metered charges trigger budget alerts; `stop_instances`
 * ends the account's instances through their launch workflows and leaves other accounts alone; a monitor that
 * is not running is started by the next signal; the periodic tick catches charges nobody signalled.
 */
import { createLedgerQueries } from '../../src/db/queries/ledger';
import type { ProviderId } from '../../src/providers/types';
import { createAlertMonitorClient, type AlertMonitorClient } from '../../src/workflow-clients/alerts';
import type { WorkerDeps } from '../../src/worker';
import type { AlertMonitorStats } from '../../workflows/contracts/alerts';
import type { PricingRefreshResult } from '../../workflows/contracts/maintenance';
import { createTestContext, testActivityDeps, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, uniqueTaskQueue, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';
import { terminated } from '../helpers/terminate';

jest.setTimeout(180_000);

/**
 * The monitor's counters once `reached` holds. An evaluation's activity triggers the alert; the run counts that
 * evaluation when the activity's result reaches it, a moment later: an alert seen triggered is not yet counted.
 */
function statsWhen(
  client: Pick<AlertMonitorClient, 'stats'>,
  reached: (stats: AlertMonitorStats) => boolean,
): Promise<AlertMonitorStats> {
  return eventually(
    'the monitor to count what it did',
    async () => {
      const stats = await client.stats();
      return reached(stats) ? stats : undefined;
    },
    30_000,
    200,
  );
}

let t: TestContext;
let temporal: TemporalTestEnv;
let deps: WorkerDeps;
let taskQueue: string;
let monitor: AlertMonitorClient;
let firstWorker: { worker: { shutdown(): void }; running: Promise<void> };

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 1_000 } });
  temporal = await createTemporalTestEnv();
  taskQueue = t.deps.temporal.taskQueue;
  deps = t.workerDeps({
    pricingKeys: { runpod: t.sims.runpod.createKey(), lambda: t.sims.lambda.createKey() },
  });
  // Starts this worker's alert monitor, as the worker process does.
  firstWorker = await temporal.startWorker(deps, taskQueue);
  monitor = createAlertMonitorClient({ client: t.temporal, taskQueue, settings: deps.alertMonitor! });
  for (const p of ['runpod', 'vastai', 'lambda'] as const) t.sims[p].control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Auth = { Authorization: string };

const runRefresh = () =>
  t.temporal.workflow.execute('pricingRefresh', {
    taskQueue,
    workflowId: uniqueTaskQueue('pricing-refresh'),
  }) as Promise<PricingRefreshResult>;

interface EventRow {
  type: string;
  data: { alert: { id: string }; value: number; [field: string]: unknown };
}

const events = (accountId: string, type?: string) =>
  t.sql<EventRow>(
    `SELECT type, data FROM events WHERE account_id = $1 ${type ? 'AND type = $2' : ''} ORDER BY created_at`,
    type ? [accountId, type] : [accountId],
  );

const createAlert = async (auth: Auth, body: Record<string, unknown>): Promise<string> => {
  const res = await t.http.post('/v1/alerts').set(auth).send(body);
  expect(res.status).toBe(201);
  return res.body.id;
};

const alertById = async (auth: Auth, id: string) =>
  (
    (await t.http.get('/v1/alerts').set(auth)).body.data as {
      id: string;
      status: string;
      current_value: number | null;
    }[]
  ).find((a) => a.id === id)!;

const triggered = (auth: Auth, id: string) =>
  eventually(
    `alert ${id} to trigger`,
    async () => ((await alertById(auth, id)).status === 'triggered' ? true : undefined),
    60_000,
    200,
  );

async function accountWith(...providers: ProviderId[]) {
  const account = await t.newAccount();
  const simKeys = {} as Record<ProviderId, string>;
  for (const provider of providers) {
    simKeys[provider] = t.sims[provider].createKey();
    await t.http
      .post('/v1/settings/providers')
      .set(account.auth)
      .send({ provider, api_key: simKeys[provider] })
      .expect(201);
  }
  return { ...account, simKeys };
}

async function launch(auth: Auth, provider: ProviderId): Promise<string> {
  const res = await t.http.post('/v1/compute/launch').set(auth).send({ provider, gpu_type: 'rtx-a6000' });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function waitForStatus(auth: Auth, id: string, status: string) {
  return eventually(
    `instance ${id} to be ${status}`,
    async () => {
      const res = await t.http.get('/v1/compute').set(auth);
      const found = (res.body.data as { id: string; status: string }[]).find((i) => i.id === id);
      return found?.status === status ? found : undefined;
    },
    60_000,
    200,
  );
}

const monthSpend = async (accountId: string) =>
  Number(
    (
      await t.sql<{ s: string }>(
        `SELECT coalesce(sum(-amount_micros), 0) AS s FROM ledger_entries WHERE account_id = $1 AND ` +
          `type = 'instance_charge'`,
        [accountId],
      )
    )[0]!.s,
  ) / 1e6;

describe('price drops', () => {
  it(
    'a cheaper offer appearing triggers the matching alerts once, ' + 'with the offer; the others stay active',
    async () => {
      // Before: Vast has no H100 SXM, so the lowest available price is RunPod's / Lambda's $2.99.
      t.sims.vastai.control.setNoCapacity('h100-80gb-sxm', true);
      await runRefresh();
      const a = await t.newAccount();
      const b = await t.newAccount();
      const matching = await createAlert(a.auth, { type: 'price_drop', gpu_type: 'h100-80gb-sxm', threshold_price: 2 });
      const tooLow = await createAlert(a.auth, { type: 'price_drop', gpu_type: 'h100-80gb-sxm', threshold_price: 0.5 });
      const otherGpu = await createAlert(a.auth, { type: 'price_drop', gpu_type: 'gh200-96gb', threshold_price: 0.5 });
      const deleted = await createAlert(a.auth, {
        type: 'price_drop',
        gpu_type: 'h100-80gb-sxm',
        threshold_price: 2.5,
      });
      const otherAccount = await createAlert(b.auth, {
        type: 'price_drop',
        gpu_type: 'h100-80gb-sxm',
        threshold_price: 1,
      });
      expect(await alertById(a.auth, matching)).toMatchObject({ status: 'active', current_value: 2.99 });
      await t.http.delete(`/v1/alerts/${deleted}`).set(a.auth).expect(200);

      // The drop: Vast's H100 SXM offers (on-demand $1.8521, interruptible $0.8325) come back.
      t.sims.vastai.control.setNoCapacity('h100-80gb-sxm', false);
      await runRefresh();
      await triggered(a.auth, matching);
      await triggered(b.auth, otherAccount);

      const [event] = await events(a.accountId, 'alert.triggered');
      expect(event!.data).toEqual({
        alert: expect.objectContaining({
          id: matching,
          type: 'price_drop',
          status: 'triggered',
          gpu_type: 'h100-80gb-sxm',
          threshold_price: 2,
          current_value: 0.8325,
        }),
        value: 0.8325,
        // Vast lists no region.
        offer: { provider: 'vastai', gpu_type: 'h100-80gb-sxm', price_per_hour: 0.8325, spot: true, region: null },
      });
      const listed = (await t.http.get('/v1/alerts').set(a.auth)).body.data as {
        id: string;
        status: string;
        triggered_at: string | null;
      }[];
      expect(listed.map((x) => [x.id, x.status])).toEqual([
        [otherGpu, 'active'],
        [tooLow, 'active'],
        [matching, 'triggered'],
      ]);
      expect(listed.find((x) => x.id === matching)!.triggered_at).toEqual(expect.any(String));

      // Another refresh with the same low price: a sentinel alert created now proves an evaluation ran
      // after it, and the earlier alerts were not moved or announced again.
      const sentinel = await createAlert(b.auth, {
        type: 'price_drop',
        gpu_type: 'h100-80gb-sxm',
        threshold_price: 1.5,
      });
      await runRefresh();
      await triggered(b.auth, sentinel);
      expect((await events(a.accountId, 'alert.triggered')).map((e) => e.data.alert.id)).toEqual([matching]);
      expect((await events(b.accountId, 'alert.triggered')).map((e) => e.data.alert.id)).toEqual([
        otherAccount,
        sentinel,
      ]);
      expect((await alertById(a.auth, tooLow)).status).toBe('active');
    },
  );

  it('a monitor that is not running is started by the next pricing refresh, under its fixed id', async () => {
    await t.temporal.workflow.getHandle(monitor.workflowId).terminate('test: monitor lost');
    const a = await t.newAccount();
    const id = await createAlert(a.auth, { type: 'price_drop', gpu_type: 'rtx-4090', threshold_price: 5 });
    await runRefresh();
    await triggered(a.auth, id);
    const described = await t.temporal.workflow.getHandle(monitor.workflowId).describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.type).toBe('alertMonitor');
    await statsWhen(monitor, (stats) => stats.priceTriggered >= 1);
  });
});

describe('budgets', () => {
  // The first three (own accounts, the one monitor) run side by side; the rest stop the worker or the monitor
  // and run after them, one by one.
  it.concurrent(
    'a notify budget alert triggers once metered charges reach it; the instance keeps running',
    async () => {
      const a = await accountWith('runpod');
      const budget = await createAlert(a.auth, { type: 'budget_limit', threshold_dollars: 0.0004 });
      const high = await createAlert(a.auth, { type: 'budget_limit', threshold_dollars: 1000 });
      const id = await launch(a.auth, 'runpod');
      await waitForStatus(a.auth, id, 'running');
      await triggered(a.auth, budget);

      const [event] = await events(a.accountId, 'alert.triggered');
      expect(event!.data.alert).toMatchObject({
        id: budget,
        type: 'budget_limit',
        action: 'notify',
        threshold_dollars: 0.0004,
        status: 'triggered',
      });
      expect(event!.data.value).toBeGreaterThanOrEqual(0.0004);
      expect((await waitForStatus(a.auth, id, 'running')).status).toBe('running');

      await terminated(t.http, a.auth, id);
      const spent = await monthSpend(a.accountId);
      // The value is the accrued spend when it triggered: part of what the instance cost in the end.
      expect(event!.data.value).toBeLessThanOrEqual(spent);
      expect(await alertById(a.auth, high)).toMatchObject({ status: 'active', current_value: spent });
      expect((await events(a.accountId, 'alert.triggered')).length).toBe(1);
    },
  );

  it.concurrent(
    "stop_instances stops the account's runpod instance and terminates its Vast one, " +
      'with the reason; other accounts run on',
    async () => {
      const a = await accountWith('runpod', 'vastai');
      const other = await accountWith('runpod');
      const otherAlert = await createAlert(other.auth, {
        type: 'budget_limit',
        threshold_dollars: 1000,
        action: 'stop_instances',
      });
      const [pod, vast, otherPod] = await Promise.all([
        launch(a.auth, 'runpod'),
        launch(a.auth, 'vastai'),
        launch(other.auth, 'runpod'),
      ]);
      await Promise.all([
        waitForStatus(a.auth, pod, 'running'),
        waitForStatus(a.auth, vast, 'running'),
        waitForStatus(other.auth, otherPod, 'running'),
      ]);

      const alert = await createAlert(a.auth, {
        type: 'budget_limit',
        threshold_dollars: 0.0002,
        action: 'stop_instances',
      });
      await triggered(a.auth, alert);
      await waitForStatus(a.auth, pod, 'stopped');
      await eventually(
        'the Vast instance gone',
        async () =>
          (await t.sql(`SELECT 1 FROM instances WHERE provider_instance_id = $1 AND status = 'terminated'`, [vast]))
            .length === 1
            ? true
            : undefined,
        60_000,
        200,
      );
      expect(t.sims.vastai.control.instances(a.simKeys.vastai)).toEqual([]);
      expect(t.sims.runpod.control.instances(a.simKeys.runpod).map((i) => i.status)).toEqual([
        expect.stringMatching(/EXITED|stopped/i),
      ]);

      const ended = await eventually('both end events', async () => {
        const found = await events(a.accountId);
        return found.some((e) => e.type === 'instance.stopped') && found.some((e) => e.type === 'instance.terminated')
          ? found
          : undefined;
      });
      const reason = expect.stringContaining(`budget alert ${alert} reached`);
      expect(ended.find((e) => e.type === 'instance.stopped')!.data).toMatchObject({ instance_id: pod, reason });
      expect(ended.find((e) => e.type === 'instance.terminated')!.data).toMatchObject({ instance_id: vast, reason });
      const requests = await t.sql<{ action: string; delivered_at: Date | null }>(
        `SELECT r.action, r.delivered_at FROM alert_stop_requests r WHERE r.alert_id = $1 ORDER BY r.action`,
        [alert],
      );
      expect(requests.map((r) => r.action)).toEqual(['stop', 'terminate']);
      expect(requests.every((r) => r.delivered_at !== null)).toBe(true);

      // The other account: still running, still metered, its alert still active, nothing ended.
      expect((await waitForStatus(other.auth, otherPod, 'running')).status).toBe('running');
      expect((await alertById(other.auth, otherAlert)).status).toBe('active');
      // Its start is recorded once its observer saw it running (the API lists the provider's live view sooner).
      await eventually("the other account's instance.started", async () =>
        (await events(other.accountId)).length > 0 ? true : undefined,
      );
      expect((await events(other.accountId)).map((e) => e.type)).toEqual(['instance.started']);

      // Ended, final charges posted: no charge of this test's lands later, while a later test wants one monitor alone.
      await Promise.all([terminated(t.http, other.auth, otherPod), terminated(t.http, a.auth, pod)]);
    },
  );

  it.concurrent(
    'a stop request written but never delivered (a crash after the commit) is delivered at the next evaluation',
    async () => {
      const a = await accountWith('runpod');
      const pod = await launch(a.auth, 'runpod');
      await waitForStatus(a.auth, pod, 'running');
      await t.sql(
        `INSERT INTO alert_stop_requests (alert_id, instance_id, account_id, action, reason)
       SELECT 'alert_crashed', id, account_id, 'stop', 'budget alert alert_crashed reached' FROM instances ` +
          `WHERE provider_instance_id = $1`,
        [pod],
      );
      await monitor.notify({ price: true }); // any evaluation looks for pending deliveries
      await waitForStatus(a.auth, pod, 'stopped');
      // The record says stopped as soon as the provider does; the event follows the final charge.
      const [stopped] = await eventually('instance.stopped', async () => {
        const found = await events(a.accountId, 'instance.stopped');
        return found.length > 0 ? found : undefined;
      });
      expect(stopped!.data).toMatchObject({ instance_id: pod, reason: 'budget alert alert_crashed reached' });
      expect(
        (await t.sql(`SELECT 1 FROM alert_stop_requests WHERE alert_id = 'alert_crashed' AND delivered_at IS NOT NULL`))
          .length,
      ).toBe(1);
      await terminated(t.http, a.auth, pod);
    },
  );

  it('outlives its worker: signals sent while no worker runs are evaluated by the next worker', async () => {
    firstWorker.worker.shutdown();
    await firstWorker.running;
    const a = await t.newAccount();
    const id = await createAlert(a.auth, { type: 'budget_limit', threshold_dollars: 1 });
    await createLedgerQueries(t.db.pool).postEntry({
      accountId: a.accountId,
      type: 'instance_charge',
      amountMicros: -1_500_000,
      description: 'c',
      instanceId: 'x',
      idempotencyKey: 'while-down',
    });
    await monitor.notify({ budget: true }); // what the charge activity sends; the server keeps it for the monitor
    expect((await alertById(a.auth, id)).status).toBe('active');
    const before = (await t.temporal.workflow.getHandle(monitor.workflowId).describe()).runId;

    await temporal.startWorker(deps, taskQueue);
    await triggered(a.auth, id);
    // The same monitor run carried on (its state and timer survived the worker): not a new one.
    expect((await t.temporal.workflow.getHandle(monitor.workflowId).describe()).runId).toBe(before);
    expect((await events(a.accountId, 'alert.triggered')).map((e) => e.data.value)).toEqual([1.5]);
  });

  it('the periodic tick evaluates charges that nobody signalled', async () => {
    // A second worker and monitor on the same database, ticking every second, sees charges posted without
    // any signal. The first monitor is stopped so that only the tick can find them.
    await t.temporal.workflow.getHandle(monitor.workflowId).terminate('test: only the ticking monitor runs');
    const ticking = testActivityDeps(t.db.pool, {
      alertMonitor: { workflowId: uniqueTaskQueue('alert-monitor-tick'), tickMs: 1_000 },
    });
    const { taskQueue: tickQueue } = await temporal.startWorker(ticking);
    const tickMonitor = createAlertMonitorClient({
      client: t.temporal,
      taskQueue: tickQueue,
      settings: ticking.alertMonitor!,
    });
    try {
      const a = await t.newAccount();
      const id = await createAlert(a.auth, { type: 'budget_limit', threshold_dollars: 3 });
      const ledger = createLedgerQueries(t.db.pool);
      await ledger.postEntry({
        accountId: a.accountId,
        type: 'instance_charge',
        amountMicros: -3_000_000,
        description: 'c',
        instanceId: 'x',
        idempotencyKey: 'unsignalled',
      });
      await triggered(a.auth, id);
      expect((await statsWhen(tickMonitor, (stats) => stats.budgetTriggered >= 1)).budgetTriggered).toBe(1);
      expect((await events(a.accountId, 'alert.triggered')).map((e) => e.data.value)).toEqual([3]);
    } finally {
      // Left running, it would evaluate the next test's charges before that test's own monitor.
      await t.temporal.workflow.getHandle(tickMonitor.workflowId).terminate('test finished');
    }
  });

  it('continues as new with its totals carried over and keeps evaluating', async () => {
    const workflowId = uniqueTaskQueue('alert-monitor-can');
    const handle = await t.temporal.workflow.start('alertMonitor', {
      workflowId,
      taskQueue,
      args: [{ tickMs: 10 * 60_000, continueAsNewAfter: 2 }],
    });
    const short = createAlertMonitorClient({
      client: t.temporal,
      taskQueue,
      settings: { workflowId, tickMs: 10 * 60_000 },
    });
    await eventually(
      'the first evaluation',
      async () => ((await short.stats()).evaluations >= 1 ? true : undefined),
      30_000,
      200,
    );
    await short.notify({ price: true }); // the second evaluation, after which the run continues as new
    await eventually(
      'a new run',
      async () => ((await handle.describe()).runId !== handle.firstExecutionRunId ? true : undefined),
      30_000,
      200,
    );

    const a = await t.newAccount();
    const id = await createAlert(a.auth, { type: 'budget_limit', threshold_dollars: 2 });
    await createLedgerQueries(t.db.pool).postEntry({
      accountId: a.accountId,
      type: 'instance_charge',
      amountMicros: -2_000_000,
      description: 'c',
      instanceId: 'x',
      idempotencyKey: 'after-can',
    });
    await short.notify({ budget: true });
    await triggered(a.auth, id);
    // Counting on from the first run's 2 (not from 0) is what reaches 3.
    const stats = await statsWhen(short, (now) => now.evaluations >= 3);
    expect(stats.budgetTriggered).toBe(1);
    await handle.terminate('test finished');
  });
});

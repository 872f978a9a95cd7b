/**
 * The alert monitor's timing in workflow time (Temporal's time-skipping server, activities as plain functions):
 * a fresh monitor evaluates everything at once, then on every tick (ALERT_MONITOR_TICK, 5 min) with no signal, and
 * budgets alone every budget tick (the observation interval, 1 min) in between;
 * `alertsDue` evaluates at once, only what landed; stop requests whose delivery keeps failing (5 quick attempts)
 * hold up nothing and are delivered after a later evaluation; it continues as new with its totals carried.
 * The SQL of an evaluation and what triggers stays end to end (test/alerts/monitor.test.ts, test/alerts/api.test.ts).
 */
import { alertMonitor } from '../../workflows';
import { activityScheduledAtMs, createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const MINUTE = 60_000;
const TICK_MS = 5 * MINUTE;

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

interface Evaluation {
  atMs: number;
  kinds: { price?: boolean; budget?: boolean };
}

function monitorActivities(options: { pendingStopRequests?: () => number; deliver?: () => number } = {}) {
  const evaluations: Evaluation[] = [];
  const deliveries: number[] = [];
  return {
    evaluations,
    deliveries,
    activities: {
      evaluateAlerts: async (kinds: { price?: boolean; budget?: boolean }) => {
        evaluations.push({ atMs: activityScheduledAtMs(), kinds });
        return {
          priceTriggered: 0,
          budgetTriggered: 0,
          stopRequests: 0,
          pendingStopRequests: options.pendingStopRequests?.() ?? 0,
        };
      },
      deliverAlertStopRequests: async () => {
        deliveries.push(activityScheduledAtMs());
        return { delivered: options.deliver ? options.deliver() : 0 };
      },
    },
  };
}

async function startMonitor(taskQueue: string, extra: { continueAsNewAfter?: number; budgetTickMs?: number } = {}) {
  const handle = await ts.env.client.workflow.start(alertMonitor, {
    taskQueue,
    workflowId: `alert-monitor-test-${Math.random().toString(36).slice(2, 10)}`,
    // Budgets on the same tick as prices unless a test says otherwise: the budget tick is its own test.
    args: [{ tickMs: TICK_MS, budgetTickMs: TICK_MS, ...extra }],
  });
  ts.afterWorker(() => handle.terminate('test finished').then(() => undefined));
  return handle;
}

type Stats = { evaluations: number; stopRequestsDelivered: number; deliveryFailures: number };

describe('alertMonitor (time-skipping)', () => {
  it('evaluates everything at start, then once per tick without any signal', async () => {
    const m = monitorActivities();
    await ts.withWorker(m.activities, async (taskQueue) => {
      const handle = await startMonitor(taskQueue);
      await ts.env.sleep(3 * TICK_MS + MINUTE);
      expect(m.evaluations.map((e) => e.kinds)).toEqual(Array(4).fill({ price: true, budget: true }));
      // Ticks keep their schedule from the start: evaluation k comes k ticks after it, however long each took.
      const startMs = (await handle.describe()).startTime.getTime();
      m.evaluations.forEach((e, k) => {
        expect(e.atMs - startMs).toBeGreaterThanOrEqual(k * TICK_MS);
        expect(e.atMs - startMs).toBeLessThan(k * TICK_MS + MINUTE);
      });
    });
  });

  it('evaluates budgets alone every budget tick (1 min by default) between the full ticks', async () => {
    const m = monitorActivities();
    await ts.withWorker(m.activities, async (taskQueue) => {
      // Without budgetTickMs: the default (INSTANCE_OBSERVE_INTERVAL's, 60 s).
      const handle = await startMonitor(taskQueue, { budgetTickMs: undefined });
      await ts.env.sleep(TICK_MS + MINUTE / 2);
      const both = { price: true, budget: true };
      const budgetOnly = { price: false, budget: true };
      expect(m.evaluations.map((e) => e.kinds)).toEqual([both, budgetOnly, budgetOnly, budgetOnly, budgetOnly, both]);
      // Each budget evaluation a minute after the one before, the full tick on its schedule from the start. The
      // time an evaluation takes is real time, even here (seconds on a loaded machine): a quarter minute allowed.
      const SLACK_MS = MINUTE / 4;
      const startMs = (await handle.describe()).startTime.getTime();
      m.evaluations.slice(1, 5).forEach((e, k) => {
        const gap = e.atMs - m.evaluations[k]!.atMs;
        expect(gap).toBeGreaterThanOrEqual(MINUTE);
        expect(gap).toBeLessThan(MINUTE + SLACK_MS);
      });
      expect(m.evaluations[5]!.atMs - startMs).toBeGreaterThanOrEqual(TICK_MS);
      expect(m.evaluations[5]!.atMs - startMs).toBeLessThan(TICK_MS + SLACK_MS);
    });
  });

  it('alertsDue evaluates at once, only what landed', async () => {
    const m = monitorActivities();
    await ts.withWorker(m.activities, async (taskQueue) => {
      const handle = await startMonitor(taskQueue);
      await ts.env.sleep(MINUTE);
      const signalledAt = await ts.now();
      await handle.signal('alertsDue', { price: true });
      await ts.env.sleep(MINUTE);
      expect(m.evaluations).toHaveLength(2);
      expect(m.evaluations[1]!.kinds).toEqual({ price: true, budget: false });
      expect(m.evaluations[1]!.atMs - signalledAt).toBeLessThan(30_000); // not at the tick
    });
  });

  it(
    'a stop request whose delivery keeps failing holds up ' + 'nothing and is delivered after a later evaluation',
    async () => {
      let pending = 1;
      let deliveryWorks = false;
      const m = monitorActivities({
        pendingStopRequests: () => pending,
        deliver: () => {
          if (!deliveryWorks) throw new Error('launch workflow unreachable');
          pending = 0;
          return 1;
        },
      });
      await ts.withWorker(m.activities, async (taskQueue) => {
        const handle = await startMonitor(taskQueue);
        await ts.env.sleep(TICK_MS - MINUTE);
        expect(m.deliveries).toHaveLength(5); // the quick attempts of the first turn, then it gave up for now
        expect(await handle.query<Stats>('stats')).toMatchObject({
          evaluations: 1,
          deliveryFailures: 1,
          stopRequestsDelivered: 0,
        });
        deliveryWorks = true;
        await ts.env.sleep(2 * MINUTE); // the next tick evaluates and delivers
        expect(await handle.query<Stats>('stats')).toMatchObject({
          evaluations: 2,
          deliveryFailures: 1,
          stopRequestsDelivered: 1,
        });
      });
    },
  );

  it('continues as new with its totals carried over', async () => {
    const m = monitorActivities();
    await ts.withWorker(m.activities, async (taskQueue) => {
      const handle = await startMonitor(taskQueue, { continueAsNewAfter: 2 });
      await ts.env.sleep(4 * TICK_MS + MINUTE);
      const latest = ts.env.client.workflow.getHandle(handle.workflowId);
      expect((await latest.describe()).runId).not.toBe(handle.firstExecutionRunId);
      expect((await latest.query<Stats>('stats')).evaluations).toBe(5);
      ts.afterWorker(() => latest.terminate('test finished').then(() => undefined));
    });
  });
});

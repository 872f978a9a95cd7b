/**
 * The balance grace period in workflow time (Temporal's time-skipping server, activities as plain functions):
 * a depleted account's instances are ended exactly when the grace runs out (stop on RunPod, terminate
 * elsewhere, with the reason), a credit during the grace ends the workflow at once without touching them,
 * a credit that leaves the balance at or below zero does not reset the grace, and a credit whose signal was
 * lost still counts at the deadline. The e2e test (test/billing/enforcement.test.ts) keeps the wiring: the
 * charge that starts it, the Stripe webhook that signals it, the launch workflows that act on it.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { balanceDepletion } from '../../workflows';
import { createTimeSkippingEnv, runTimeMs, signalsReceived, standInActivities, startStandIn, type TimeSkippingEnv } from '../helpers/time-skipping';

const MINUTE = 60_000;
const GRACE_MS = 30 * MINUTE; // the default BALANCE_GRACE_PERIOD: no need to compress it here

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

function accountId(): string {
  return `acct_${Math.random().toString(36).slice(2, 12)}`;
}

/** Activities over an in-memory balance the test moves. */
function billing(balance: { micros: number }, live: { id: string; provider: 'runpod' | 'vastai' | 'lambda' }[]) {
  return {
    getBalanceMicros: async () => balance.micros,
    listLiveManagedInstances: async () => live,
  };
}

async function start(taskQueue: string, id: string): Promise<WorkflowHandle<typeof balanceDepletion>> {
  return ts.env.client.workflow.start(balanceDepletion, {
    taskQueue,
    workflowId: `balance-depleted-${id}`,
    args: [{ accountId: id, graceMs: GRACE_MS }],
  });
}

describe('balanceDepletion (time-skipping)', () => {
  it('ends every live instance when the grace runs out: stop on runpod, terminate elsewhere, with the reason', async () => {
    const account = accountId();
    const live = [
      { id: `launch-${account}-a`, provider: 'runpod' as const },
      { id: `launch-${account}-b`, provider: 'lambda' as const },
      { id: `launch-${account}-gone`, provider: 'vastai' as const }, // its workflow already finished
    ];
    await ts.withWorker({ ...billing({ micros: -5 }, live), ...standInActivities }, async (taskQueue) => {
      const standIns = await Promise.all(live.slice(0, 2).map((i) => startStandIn(ts, taskQueue, i.id)));
      const handle = await start(taskQueue, account);
      const result = await handle.result();
      const elapsed = await runTimeMs(handle);

      expect(result).toEqual({ outcome: 'instances_ended', endedInstanceIds: [live[0]!.id, live[1]!.id] });
      expect(elapsed).toBeGreaterThanOrEqual(GRACE_MS);
      expect(elapsed).toBeLessThan(GRACE_MS + MINUTE);
      const reason = 'prepaid balance depleted: no top-up within the 30 min grace period';
      expect(await signalsReceived(standIns[0]!, 'endInstance')).toEqual([{ action: 'stop', reason }]);
      expect(await signalsReceived(standIns[1]!, 'endInstance')).toEqual([{ action: 'terminate', reason }]);
    });
  });

  it('a credit during the grace ends it at once and touches no instance', async () => {
    const account = accountId();
    const balance = { micros: -5 };
    const live = [{ id: `launch-${account}-a`, provider: 'runpod' as const }];
    await ts.withWorker({ ...billing(balance, live), ...standInActivities }, async (taskQueue) => {
      const standIn = await startStandIn(ts, taskQueue, live[0]!.id);
      const handle = await start(taskQueue, account);
      await ts.env.sleep(10 * MINUTE);
      balance.micros = 20_000_000;
      await handle.signal('balanceCredited');
      expect(await handle.result()).toEqual({ outcome: 'credited', endedInstanceIds: [] });
      expect(await runTimeMs(handle)).toBeLessThan(11 * MINUTE);
      expect(await signalsReceived(standIn, 'endInstance')).toEqual([]);
    });
  });

  it('a credit that leaves the balance at or below zero does not restart the grace', async () => {
    const account = accountId();
    const balance = { micros: -50_000_000 };
    await ts.withWorker(billing(balance, []), async (taskQueue) => {
      const handle = await start(taskQueue, account);
      await ts.env.sleep(20 * MINUTE);
      balance.micros = -1_000_000; // topped up, still negative
      await handle.signal('balanceCredited');
      expect(await handle.result()).toEqual({ outcome: 'instances_ended', endedInstanceIds: [] });
      const elapsed = await runTimeMs(handle);
      expect(elapsed).toBeGreaterThanOrEqual(GRACE_MS);
      expect(elapsed).toBeLessThan(GRACE_MS + MINUTE); // not 20 + 30 minutes
    });
  });

  it('a credit whose signal never arrived still counts at the deadline', async () => {
    const account = accountId();
    const balance = { micros: -5 };
    const live = [{ id: `launch-${account}-a`, provider: 'vastai' as const }];
    await ts.withWorker({ ...billing(balance, live), ...standInActivities }, async (taskQueue) => {
      const standIn = await startStandIn(ts, taskQueue, live[0]!.id);
      const handle = await start(taskQueue, account);
      await ts.env.sleep(5 * MINUTE);
      balance.micros = 1; // committed, but the API died before it signalled
      expect(await handle.result()).toEqual({ outcome: 'credited', endedInstanceIds: [] });
      expect(await signalsReceived(standIn, 'endInstance')).toEqual([]);
    });
  });
});

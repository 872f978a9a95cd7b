/**
 * Runs of `balanceDepletion` started before it became the per-account spend watcher (same workflow type and
 * id, input `{ accountId, graceMs }` only) still finish on today's code, in workflow time (Temporal's
 * time-skipping server, activities as plain functions): the grace runs out and every live instance is asked to
 * end with the reason, or a credit during the grace (today's `spendChanged` with cause `credit`) ends the run
 * with nothing touched. That their recorded histories replay is test/workflows/replay.test.ts
 * (balanceDepletion/556d392-parent-*.pb).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { balanceDepletion } from '../../workflows';
import type { GraceOnlyDepletionInput } from '../../workflows/contracts/billing';
import {
  createTimeSkippingEnv,
  signalsReceived,
  standInActivities,
  startStandIn,
  type TimeSkippingEnv,
} from '../helpers/time-skipping';

const MINUTE = 60_000;
const GRACE_MS = 30 * MINUTE;
const reason = 'prepaid balance depleted: no top-up within the 30 min grace period';

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

/** An account as the grace-only run reads it: a ledger balance and its live managed instances. */
function account(balanceMicros: number, live: { id: string; provider: 'runpod' | 'vastai' | 'lambda' }[]) {
  const state = { id: `acct_${Math.random().toString(36).slice(2, 12)}`, balanceMicros, live };
  return {
    state,
    activities: {
      getBalanceMicros: async () => state.balanceMicros,
      listLiveManagedInstances: async () => state.live,
    },
  };
}

async function startGraceOnly(taskQueue: string, accountId: string): Promise<WorkflowHandle<typeof balanceDepletion>> {
  const input: GraceOnlyDepletionInput = { accountId, graceMs: GRACE_MS };
  const handle = await ts.env.client.workflow.start(balanceDepletion, {
    taskQueue,
    workflowId: `balance-depleted-${accountId}`,
    args: [input],
  });
  ts.afterWorker(() =>
    handle.terminate('test finished').then(
      () => undefined,
      () => undefined,
    ),
  );
  return handle;
}

describe('balanceDepletion runs started before the spend watcher (time-skipping)', () => {
  it('end every live instance once the grace period has run out', async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    const acct = account(-5, [
      { id: `launch-pod-${suffix}`, provider: 'runpod' },
      { id: `launch-box-${suffix}`, provider: 'vastai' },
    ]);
    await ts.withWorker({ ...acct.activities, ...standInActivities }, async (taskQueue) => {
      const standIns = await Promise.all(acct.state.live.map((i) => startStandIn(ts, taskQueue, i.id)));
      const handle = await startGraceOnly(taskQueue, acct.state.id);
      await ts.env.sleep(20 * MINUTE);
      expect(await signalsReceived(standIns[0]!, 'endInstance')).toEqual([]);
      const result = await handle.result();
      expect(result).toEqual({ outcome: 'instances_ended', endedInstanceIds: acct.state.live.map((i) => i.id) });
      expect(await signalsReceived(standIns[0]!, 'endInstance')).toEqual([{ action: 'stop', reason }]);
      expect(await signalsReceived(standIns[1]!, 'endInstance')).toEqual([{ action: 'terminate', reason }]);
    });
  });

  it('stand down, nothing ended, when a credit lifts the balance above zero during the grace', async () => {
    const acct = account(-5, [{ id: `launch-box-${Math.random().toString(36).slice(2, 8)}`, provider: 'vastai' }]);
    await ts.withWorker({ ...acct.activities, ...standInActivities }, async (taskQueue) => {
      const [standIn] = await Promise.all(acct.state.live.map((i) => startStandIn(ts, taskQueue, i.id)));
      const handle = await startGraceOnly(taskQueue, acct.state.id);
      await ts.env.sleep(10 * MINUTE);
      acct.state.balanceMicros = 50_000_000;
      // What today's Stripe webhook sends (the older `balanceCredited` is no longer sent).
      await handle.signal('spendChanged', { cause: 'credit' });
      expect(await handle.result()).toEqual({ outcome: 'credited', endedInstanceIds: [] });
      // At the credit, not at the deadline's own look at the balance.
      const run = await handle.describe();
      expect(run.closeTime!.getTime() - run.startTime.getTime()).toBeLessThan(GRACE_MS);
      expect(await signalsReceived(standIn!, 'endInstance')).toEqual([]);
    });
  });
});

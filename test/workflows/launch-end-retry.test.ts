/**
 * A terminate the provider keeps refusing, in workflow time (Temporal's time-skipping server, activities over
 * the in-memory cloud of test/helpers/fake-cloud.ts): the workflow retries it in runs of bounded history
 * (continue-as-new with the end carried), meters the instance all along, and ends it once the provider accepts.
 */
import { launchInstance } from '../../workflows';
import { endInstanceSignal } from '../../workflows/contracts/launch';
import { observerWorkflowId } from '../../workflows/contracts/observation';
import { launchInputFixture } from '../fixtures/launch-input';
import { createFakeCloud } from '../helpers/fake-cloud';
import { createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const PRICE = 2_000_000; // $2/h

let ts: TimeSkippingEnv;
beforeEach(async () => {
  ts = await createTimeSkippingEnv();
});
afterEach(async () => {
  await ts?.close();
});

describe('launchInstance, an end the provider refuses (time-skipping)', () => {
  it('continues as new every 20 refused rounds, keeps metering, and terminates once the provider accepts', async () => {
    const cloud = createFakeCloud(ts, { provider: 'vastai', pricePerHourMicros: PRICE, bootMs: 10 * SECOND });
    let refusing = true;
    const refused = { rounds: 0 };
    const activities = {
      ...cloud.activities,
      async terminateInstance(id: string) {
        if (refusing) {
          refused.rounds++;
          throw new Error('the provider answered 503');
        }
        return cloud.activities.terminateInstance!(id);
      },
    };
    const input = launchInputFixture({
      provider: 'vastai',
      pollIntervalMs: 20 * MINUTE,
      meterIntervalMs: HOUR,
      bootDeadlineMs: HOUR,
      endRetryInitialMs: MINUTE,
      endRetryMaxMs: MINUTE,
      continueAsNewAfter: 20,
    });
    await ts.withWorker(activities, async (taskQueue) => {
      const handle = await ts.env.client.workflow.start(launchInstance, {
        taskQueue,
        workflowId: input.instanceId,
        args: [input],
      });
      const observer = ts.env.client.workflow.getHandle(observerWorkflowId(input.accountId, input.provider));
      ts.afterWorker(() =>
        observer.result().then(
          () => undefined,
          () => undefined,
        ),
      );
      await ts.env.sleep(MINUTE);
      expect(cloud.rows.get(input.instanceId)!.status).toBe('running');
      await handle.signal(endInstanceSignal, { action: 'terminate', reason: 'test done' });

      // About 100 refused rounds, a minute apart (each round is 3 activity attempts).
      await ts.env.sleep(100 * MINUTE);
      const latest = ts.env.client.workflow.getHandle(input.instanceId);
      const { runId } = await latest.describe();
      expect(runId).not.toBe(handle.firstExecutionRunId);
      // Each run holds at most 20 rounds: its history stays bounded however long the provider refuses.
      expect((await latest.fetchHistory()).events!.length).toBeLessThan(20 * 20 + 50);
      expect(cloud.rows.get(input.instanceId)!.lifecycle_warning).toMatch(/terminate has not reached the provider/);
      expect(refused.rounds).toBeGreaterThan(3 * 90);

      refusing = false;
      expect(await handle.result()).toEqual({ instanceId: input.instanceId, outcome: 'terminated' });
    });
    const row = cloud.rows.get(input.instanceId)!;
    expect(row).toMatchObject({ status: 'terminated', lifecycle_warning: null });
    // Metered from the start to the confirmed terminate across every run: no gap, nothing twice.
    const charges = cloud.charges.filter((c) => c.instanceId === input.instanceId);
    expect(charges.length).toBeGreaterThanOrEqual(2);
    expect(charges[0]!.fromMs).toBe(Date.parse(row.started_at!));
    charges.slice(1).forEach((c, i) => expect(c.fromMs).toBe(charges[i]!.throughMs));
    expect(charges[charges.length - 1]!.throughMs).toBe(Date.parse(row.ended_at!));
    expect(Date.parse(row.ended_at!) - Date.parse(row.started_at!)).toBeGreaterThan(100 * MINUTE);
  });
});

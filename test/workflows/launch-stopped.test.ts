/**
 * A stopped pod's launch workflow in workflow time (Temporal's time-skipping server, activities over the
 * in-memory cloud of test/helpers/fake-cloud.ts): it sleeps from one meter boundary to the next, so its history
 * grows by a few events per interval, and it still ends when asked.
 */
import { launchInstance } from '../../workflows';
import { endInstanceSignal, stopInstanceUpdate } from '../../workflows/contracts/launch';
import { observerWorkflowId } from '../../workflows/contracts/observation';
import { launchInputFixture } from '../fixtures/launch-input';
import { createFakeCloud } from '../helpers/fake-cloud';
import { createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let ts: TimeSkippingEnv;
beforeEach(async () => {
  ts = await createTimeSkippingEnv();
});
afterEach(async () => {
  await ts?.close();
});

describe('launchInstance, a stopped pod (time-skipping)', () => {
  it('sleeps while stopped: 10 meter intervals add at most 15 history events each, in the same run', async () => {
    const cloud = createFakeCloud(ts, { provider: 'runpod', pricePerHourMicros: 2_000_000, bootMs: 10 * SECOND });
    const input = launchInputFixture({ pollIntervalMs: 20 * MINUTE, meterIntervalMs: HOUR, bootDeadlineMs: HOUR });
    await ts.withWorker(cloud.activities, async (taskQueue) => {
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
      await ts.env.sleep(MINUTE); // the pod boots in 10 s
      expect(cloud.rows.get(input.instanceId)!.status).toBe('running');
      const stopped = await handle.executeUpdate(stopInstanceUpdate);
      expect(stopped.status).toBe('stopped');
      const { runId } = await handle.describe();
      const eventsAtStop = (await handle.fetchHistory()).events!.length;

      await ts.env.sleep(10 * HOUR);

      const latest = ts.env.client.workflow.getHandle(input.instanceId);
      expect((await latest.describe()).runId).toBe(runId); // no continue-as-new: nothing piled up
      const grown = (await latest.fetchHistory()).events!.length - eventsAtStop;
      expect(grown).toBeGreaterThan(0); // it woke at the boundaries (the observer kept watching)
      expect(grown).toBeLessThanOrEqual(10 * 15);
      // Nothing is charged for the stopped time, and the stopped pod still ends when asked.
      const charged = cloud.chargedMicros(input.instanceId);
      await latest.signal(endInstanceSignal, { action: 'terminate', reason: 'test done' });
      expect(await handle.result()).toEqual({ instanceId: input.instanceId, outcome: 'terminated' });
      expect(cloud.chargedMicros(input.instanceId)).toBe(charged);
      expect(cloud.rows.get(input.instanceId)!.status).toBe('terminated');
    });
  });
});

/**
 * A webhook delivery's retry path in workflow time (Temporal's time-skipping server, activities as plain
 * functions): each attempt happens when the delivery's record says it is due (the default schedule 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h: 27.5 hours in a few seconds), never earlier, and the delivery ends `failed` after
 * the last; `retryDeliveryNow` attempts at once during a wait; `endpointChanged` during a wait re-reads the
 * delivery (cancelled when the endpoint was deactivated) without attempting. Where the schedule is computed
 * and recorded, and what a receiver sees, stays end to end (test/webhooks/lifecycle.test.ts).
 */
import { webhookDelivery } from '../../workflows';
import {
  activityScheduledAtMs,
  createTimeSkippingEnv,
  runTimeMs,
  type TimeSkippingEnv,
} from '../helpers/time-skipping';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DEFAULT_SCHEDULE = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

type Status = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/**
 * A delivery record in memory that behaves as the activities' one does: the first attempt is due at once, each
 * failed attempt schedules the next per `schedule`, the attempt after the last fails the delivery for good.
 */
function failingDelivery(schedule: number[]) {
  const attempts: { atMs: number; manual: boolean }[] = [];
  const adopted: number[] = [];
  let endpointActive = true;
  let status: Status = 'pending';
  let nextAttemptAt: number | null = null;
  return {
    attempts,
    adopted,
    deactivateEndpoint() {
      endpointActive = false;
    },
    activities: {
      adoptWebhookDelivery: async () => {
        adopted.push(activityScheduledAtMs());
        if (!endpointActive && status === 'pending') status = 'cancelled';
        nextAttemptAt ??= activityScheduledAtMs();
        return { status, nextAttemptAt: status === 'pending' ? nextAttemptAt : null };
      },
      attemptWebhookDelivery: async ({ manual }: { deliveryId: string; manual: boolean }) => {
        const atMs = activityScheduledAtMs();
        attempts.push({ atMs, manual });
        const wait = schedule[attempts.length - 1];
        status = wait === undefined ? 'failed' : 'pending';
        nextAttemptAt = wait === undefined ? null : atMs + wait;
        return { status, nextAttemptAt };
      },
    },
  };
}

function start(taskQueue: string) {
  const deliveryId = `whd_${Math.random().toString(36).slice(2, 12)}`;
  return ts.env.client.workflow.start(webhookDelivery, {
    taskQueue,
    workflowId: `webhook-delivery-${deliveryId}`,
    args: [{ deliveryId }],
  });
}

describe('webhookDelivery (time-skipping)', () => {
  it('attempts on the default schedule, never early, and ends failed after the last retry', async () => {
    const delivery = failingDelivery(DEFAULT_SCHEDULE);
    await ts.withWorker(delivery.activities, async (taskQueue) => {
      const handle = await start(taskQueue);
      expect(await handle.result()).toEqual({ status: 'failed', nextAttemptAt: null });
      const gaps = delivery.attempts.slice(1).map((a, i) => a.atMs - delivery.attempts[i]!.atMs);
      expect(delivery.attempts).toHaveLength(DEFAULT_SCHEDULE.length + 1);
      gaps.forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(DEFAULT_SCHEDULE[i]!);
        expect(gap).toBeLessThan(DEFAULT_SCHEDULE[i]! + 2 * SECOND);
      });
      expect(delivery.attempts.every((a) => !a.manual)).toBe(true);
      // 27 h 35 min 5 s
      expect(await runTimeMs(handle)).toBeGreaterThanOrEqual(DEFAULT_SCHEDULE.reduce((a, b) => a + b));
    });
  });

  it('retryDeliveryNow attempts at once during a two-hour wait', async () => {
    const delivery = failingDelivery([2 * HOUR, 2 * HOUR]);
    await ts.withWorker(delivery.activities, async (taskQueue) => {
      const handle = await start(taskQueue);
      await ts.env.sleep(10 * MINUTE);
      expect(delivery.attempts).toHaveLength(1);
      const signalledAt = await ts.now();
      await handle.signal('retryDeliveryNow');
      await handle.result();
      expect(delivery.attempts).toHaveLength(3);
      expect(delivery.attempts[1]!.atMs - signalledAt).toBeLessThan(MINUTE); // not at the 2 h mark
      expect(delivery.attempts[2]!.atMs - delivery.attempts[1]!.atMs).toBeGreaterThanOrEqual(2 * HOUR);
    });
  });

  it(
    'endpointChanged during a wait re-reads the delivery: ' + 'a deactivated endpoint cancels it without an attempt',
    async () => {
      const delivery = failingDelivery([5 * HOUR]);
      await ts.withWorker(delivery.activities, async (taskQueue) => {
        const handle = await start(taskQueue);
        await ts.env.sleep(HOUR);
        delivery.deactivateEndpoint();
        await handle.signal('endpointChanged');
        expect(await handle.result()).toEqual({ status: 'cancelled', nextAttemptAt: null });
        expect(delivery.attempts).toHaveLength(1);
        expect(delivery.adopted).toHaveLength(2);
        expect(await runTimeMs(handle)).toBeLessThan(2 * HOUR);
      });
    },
  );
});

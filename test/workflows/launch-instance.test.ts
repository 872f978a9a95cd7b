/**
 * The launch workflow's timers in workflow time (Temporal's time-skipping server, activities as plain functions
 * over an in-memory cloud, test/helpers/fake-cloud.ts): a running instance is charged at every meter interval
 * and once more up to the moment the provider confirmed the terminate; continue-as-new carries the record and
 * the meter across runs (no interval charged twice or skipped, a terminate on the new run ends it); a create
 * whose answer was lost is retried and finds the instance it made instead of making a second one. What the
 * providers and Postgres do with those steps stays end to end (test/compute/launch.test.ts, leak.test.ts,
 * worker-crash.test.ts).
 */
import { launchInstance } from '../../workflows';
import { jobStartCommandRef } from '../../workflows/contracts/jobs';
import { endInstanceSignal, instanceQuery, type LaunchInput } from '../../workflows/contracts/launch';
import { launchInputFixture } from '../fixtures/launch-input';
import { observerWorkflowId } from '../../workflows/contracts/observation';
import { createFakeCloud, type FakeCloud } from '../helpers/fake-cloud';
import { createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const PRICE = 2_000_000; // $2/h

// A test server per test: after a launch (and its observer, an abandoned child) ends, the test server's clock can
// stay locked for the next workflow on the same server (temporalio/sdk-java#1138, #1540), a few seconds each.
let ts: TimeSkippingEnv;
beforeEach(async () => {
  ts = await createTimeSkippingEnv();
});
afterEach(async () => {
  await ts?.close();
});

/**
 * The production meter (an hour) and boot deadline; the observer's steady round every 20 min instead of 60 s:
 * each round is a workflow task and an activity the test server runs, 180 of them over 3 simulated hours (8–10 s
 * a test), and what these tests assert is the meter's.
 */
const launchInput = (extra: Partial<LaunchInput> = {}) =>
  launchInputFixture({ pollIntervalMs: 20 * MINUTE, meterIntervalMs: HOUR, bootDeadlineMs: HOUR, ...extra });

/** Launches, lets `runFor` of workflow time pass after the start, terminates; the workflow's result and ids. */
async function launchRunTerminate(cloud: FakeCloud, input: LaunchInput, runFor: number) {
  return ts.withWorker(cloud.activities, async (taskQueue) => {
    const handle = await ts.env.client.workflow.start(launchInstance, {
      taskQueue,
      workflowId: input.instanceId,
      args: [input],
    });
    const startedAtMs = (await handle.describe()).startTime.getTime();
    // The observer the launch started ends by itself a round after the instance (nothing left to watch).
    const observer = ts.env.client.workflow.getHandle(observerWorkflowId(input.accountId, input.provider));
    ts.afterWorker(() =>
      observer.result().then(
        () => undefined,
        () => undefined,
      ),
    );
    await ts.env.sleep(runFor);
    const latest = ts.env.client.workflow.getHandle(input.instanceId);
    const beforeEnd = await latest.query(instanceQuery);
    const lastRunId = (await latest.describe()).runId;
    await latest.signal(endInstanceSignal, { action: 'terminate', reason: 'test done' });
    const result = await handle.result();
    return { result, workflowStartMs: startedAtMs, beforeEnd, firstRunId: handle.firstExecutionRunId, lastRunId };
  });
}

describe('launchInstance (time-skipping)', () => {
  it(
    'charges a running instance at every meter interval and ' + 'up to the confirmed terminate, at the launch price',
    async () => {
      const cloud = createFakeCloud(ts, { provider: 'runpod', pricePerHourMicros: PRICE, bootMs: 10 * SECOND });
      const input = launchInput();
      const { result, workflowStartMs } = await launchRunTerminate(cloud, input, 3 * HOUR + 30 * MINUTE);

      expect(result).toEqual({ instanceId: input.instanceId, outcome: 'terminated' });
      const row = cloud.rows.get(input.instanceId)!;
      expect(row.status).toBe('terminated');
      const started = Date.parse(row.started_at!);
      const ended = Date.parse(row.ended_at!);
      // Metering starts at the boot, seen by the observer within its boot looks (1 s, 2 s, 3 s, …).
      expect(started - workflowStartMs).toBeGreaterThanOrEqual(10 * SECOND);
      expect(started - workflowStartMs).toBeLessThan(15 * SECOND);
      // One charge per meter interval (the meter counts from the launch), then the final one through the end.
      const charges = cloud.charges.filter((c) => c.instanceId === input.instanceId);
      expect(charges).toHaveLength(4);
      expect(charges[0]!.throughMs - workflowStartMs).toBeGreaterThanOrEqual(HOUR);
      expect(charges[0]!.throughMs - workflowStartMs).toBeLessThan(HOUR + SECOND);
      expect(charges.slice(1, 3).map((c, i) => c.throughMs - charges[i]!.throughMs)).toEqual([HOUR, HOUR]);
      expect(charges[0]!.fromMs).toBe(started);
      charges.slice(1).forEach((c, i) => expect(c.fromMs).toBe(charges[i]!.throughMs)); // no gap, nothing twice
      expect(charges[3]!.throughMs).toBe(ended);
      expect(ended - workflowStartMs).toBeGreaterThanOrEqual(3 * HOUR + 30 * MINUTE);
      expect(ended - workflowStartMs).toBeLessThan(3 * HOUR + 31 * MINUTE);
      // What the user pays: the price × the time it ran, nothing more.
      expect(Math.abs(cloud.chargedMicros(input.instanceId) - (PRICE * (ended - started)) / HOUR)).toBeLessThanOrEqual(
        2,
      );
      expect(cloud.events.filter((e) => e.instanceId === input.instanceId).map((e) => e.type)).toEqual([
        'instance.started',
        'instance.terminated',
      ]);
    },
  );

  it(
    'continues as new with the record and the meter carried over: every interval charged once, ' +
      'the terminate ends the new run',
    async () => {
      const cloud = createFakeCloud(ts, { provider: 'runpod', pricePerHourMicros: PRICE, bootMs: 10 * SECOND });
      const input = launchInput({ continueAsNewAfter: 2 });
      const { result, workflowStartMs, beforeEnd, firstRunId, lastRunId } = await launchRunTerminate(
        cloud,
        input,
        5 * HOUR + 30 * MINUTE,
      );

      expect(lastRunId).not.toBe(firstRunId);
      // The new run answers for the instance as the first one left it.
      expect(beforeEnd).toMatchObject({
        id: input.instanceId,
        status: 'running',
        started_at: cloud.rows.get(input.instanceId)!.started_at,
      });
      // ...metered as far as the last charge before the question, not as the create left it.
      const chargedBefore = cloud.charges.filter((c) => c.instanceId === input.instanceId).slice(0, 5);
      expect(beforeEnd!.metered_through).toBe(
        new Date(chargedBefore[chargedBefore.length - 1]!.throughMs).toISOString(),
      );
      expect(result).toEqual({ instanceId: input.instanceId, outcome: 'terminated' });
      const row = cloud.rows.get(input.instanceId)!;
      const started = Date.parse(row.started_at!);
      const ended = Date.parse(row.ended_at!);
      const throughs = cloud.charges
        .filter((c) => c.instanceId === input.instanceId)
        .map((c) => c.throughMs - workflowStartMs);
      expect(throughs).toHaveLength(6);
      // Hourly across the continue-as-new (after the third charge): none missed, none twice.
      expect(throughs.slice(1, 5).map((t, i) => t - throughs[i]!)).toEqual([HOUR, HOUR, HOUR, HOUR]);
      expect(throughs[5]! - throughs[4]!).toBeGreaterThanOrEqual(30 * MINUTE);
      expect(throughs[5]! - throughs[4]!).toBeLessThan(31 * MINUTE);
      const charges = cloud.charges.filter((c) => c.instanceId === input.instanceId);
      expect(charges[0]!.fromMs).toBe(started);
      charges.slice(1).forEach((c, i) => expect(c.fromMs).toBe(charges[i]!.throughMs));
      expect(charges[5]!.throughMs).toBe(ended);
      expect(Math.abs(cloud.chargedMicros(input.instanceId) - (PRICE * (ended - started)) / HOUR)).toBeLessThanOrEqual(
        3,
      );
      expect(cloud.events.filter((e) => e.type === 'instance.started')).toHaveLength(1);
    },
  );

  it(
    'a create whose answer was lost is retried and finds the instance it made: one instance, ' +
      'launched and ended once',
    async () => {
      const cloud = createFakeCloud(ts, { provider: 'vastai', pricePerHourMicros: PRICE, bootMs: 10 * SECOND });
      cloud.loseCreateAnswers(1);
      const input = launchInput({ provider: 'vastai' });
      const { result } = await launchRunTerminate(cloud, input, 30 * MINUTE);

      expect(result).toEqual({ instanceId: input.instanceId, outcome: 'terminated' });
      const made = [...cloud.created.values()];
      expect(made).toHaveLength(1);
      expect(made[0]).toMatchObject({ name: input.providerName, status: 'terminated' });
      expect(cloud.rows.get(input.instanceId)).toMatchObject({
        provider_instance_id: made[0]!.id,
        status: 'terminated',
      });
      expect(cloud.chargedMicros(input.instanceId)).toBeGreaterThan(0);
    },
  );

  it(
    'a job command that exits as its instance boots, seen exited before it was seen running, its exit reported: ' +
      'terminated, charged from the create’s acknowledgement to the terminate (without a report it is a failed ' +
      'boot, never charged: test/compute/boot-deadline.test.ts)',
    async () => {
      const cloud = createFakeCloud(ts, {
        provider: 'vastai',
        pricePerHourMicros: PRICE,
        bootMs: 10 * SECOND,
        command: { exitsAfterMs: 0 },
      });
      const input = launchInput({ provider: 'vastai', onstartCmd: jobStartCommandRef('job_exitsearly', 1) });
      const result = await ts.withWorker(cloud.activities, async (taskQueue) => {
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
        return handle.result();
      });

      const row = cloud.rows.get(input.instanceId)!;
      expect([...cloud.created.values()].map((i) => i.status)).toEqual(['terminated']);
      const charges = cloud.charges.filter((c) => c.instanceId === input.instanceId);
      const types = cloud.events.filter((e) => e.instanceId === input.instanceId).map((e) => e.type);
      expect(result).toEqual({ instanceId: input.instanceId, outcome: 'terminated' });
      expect(row.status).toBe('terminated');
      expect(row.started_at).toBe(row.accepted_at);
      const [accepted, ended] = [Date.parse(row.accepted_at!), Date.parse(row.ended_at!)];
      // Seen exited at the first boot look after the 10 s boot: it ran from the acknowledgement until then.
      expect(ended - accepted).toBeGreaterThanOrEqual(10 * SECOND);
      expect(charges).toEqual([
        {
          instanceId: input.instanceId,
          fromMs: accepted,
          throughMs: ended,
          micros: Math.round((PRICE * (ended - accepted)) / HOUR),
        },
      ]);
      expect(types).toEqual(['instance.started', 'instance.terminated']);
    },
  );
});

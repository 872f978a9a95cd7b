/**
 * Idle stop in workflow time (Temporal's time-skipping server, activities as plain functions): the launch
 * workflow of a running instance with an `idleStop` rule, and the (account, provider) observer it signals,
 * whose round reports GPU utilization from a script over the minutes since the first round. An instance idle
 * (every GPU below the threshold) for the rule's minutes is stopped (runpod) or terminated (vastai) at the
 * first reading past the window, charged up to that moment, with the reason and `instance.idle_stopped`; a
 * busy GPU keeps it untouched; a busy reading resets the window; a missing reading neither resets it nor ends
 * it. What the provider reports and what the user sees of it stays end to end (test/compute/idle-stop.test.ts).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Activities } from '../../activities';
import type { InstanceRow } from '../../src/db/queries/instances';
import type { ProviderId, ProviderInstance } from '../../src/providers/types';
import { launchInstance, observeProviderInstances } from '../../workflows';
import { observerWorkflowId } from '../../workflows/contracts/observation';
import { instanceQuery, type LaunchInput, type LaunchResult } from '../../workflows/contracts/launch';
import { launchInputFixture } from '../fixtures/launch-input';
import { activityScheduledAtMs, createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const MINUTE = 60_000;
const RULE = { utilization_below_percent: 10, for_minutes: 10 };

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

/** Utilization per GPU at the n-th minute after the first round; null: the provider reported none. */
type Script = (minute: number) => number[] | null;

interface World {
  /** Workflow time of the observer's first round. */
  firstRoundAt: number | null;
  stops: number[];
  terminates: number[];
  charges: number[];
  ends: { status: string; events: unknown; atMs: number; extra: Record<string, unknown> }[];
}

function runningRow(id: string, accountId: string, provider: ProviderId, startedAtMs: number): InstanceRow {
  const at = new Date(startedAtMs).toISOString();
  return {
    id,
    account_id: accountId,
    request_hash: 'h',
    provider,
    provider_instance_id: `pi-${id.slice(-6)}`,
    provider_name: 'idle-test',
    name: 'idle-test',
    status: 'running',
    provider_status: 'RUNNING',
    gpu_type: 'rtx-4090',
    gpu_count: 2,
    price_per_hour_micros: 1_200_000,
    spot: false,
    region: null,
    docker_image: null,
    public_ip: null,
    ssh: null,
    warnings: [],
    started_at: at,
    metered_through: at,
    ended_at: null,
    end_reason: null,
    lifecycle_warning: null,
    created_at: at,
    provider_key_fingerprint: null,
    key_warning: null,
    accepted_at: null,
    idle_stop: RULE,
  };
}

/** The activities the launch workflow and its observer call, over an in-memory world the test reads. */
function activitiesFor(world: World, row: { current: InstanceRow }, script: Script): Partial<Activities> {
  const providerInstance = (utilization: number[] | null): ProviderInstance => ({
    id: row.current.provider_instance_id!,
    provider: row.current.provider,
    name: row.current.name,
    status: 'running',
    providerStatus: 'RUNNING',
    gpuType: 'rtx-4090',
    gpuCount: 2,
    pricePerHour: 1.2,
    spot: false,
    region: null,
    dockerImage: null,
    publicIp: null,
    ssh: null,
    createdAt: null,
    startedAt: null,
    gpuUtilization: utilization,
  });
  return {
    observeAccountProvider: async () => {
      const atMs = activityScheduledAtMs();
      world.firstRoundAt ??= atMs;
      const live = row.current.status === 'running';
      const minute = Math.floor((atMs - world.firstRoundAt + 1_000) / MINUTE);
      const observation = { gone: false, instance: providerInstance(script(minute)), atMs };
      return {
        watchedIds: live ? [row.current.id] : [],
        booting: false,
        spotRunning: false,
        changes: live ? [{ instanceId: row.current.id, observation }] : [],
        providerCalls: 1,
      };
    },
    chargeInstance: async (_id: string, throughMs: number) => {
      world.charges.push(throughMs);
      row.current = { ...row.current, metered_through: new Date(throughMs).toISOString() };
      return { chargedMicros: 1 };
    },
    stopInstance: async () => {
      world.stops.push(activityScheduledAtMs());
      return { atMs: activityScheduledAtMs() };
    },
    terminateInstance: async () => {
      world.terminates.push(activityScheduledAtMs());
      return { atMs: activityScheduledAtMs() };
    },
    finishInstance: async (_id, status, events, atMs, extra = {}) => {
      world.ends.push({ status, events, atMs, extra });
      row.current = {
        ...row.current,
        status,
        end_reason: typeof extra.reason === 'string' ? extra.reason : row.current.end_reason,
      };
      return row.current;
    },
  };
}

async function launchRunning(
  provider: ProviderId,
  script: Script,
  body: (h: WorkflowHandle<typeof launchInstance>, world: World) => Promise<void>,
) {
  const accountId = `acct_${Math.random().toString(36).slice(2, 12)}`;
  const id = `launch-${accountId}-idle`;
  const world: World = { firstRoundAt: null, stops: [], terminates: [], charges: [], ends: [] };
  const row = { current: runningRow(id, accountId, provider, await ts.now()) };
  const input: LaunchInput = launchInputFixture({
    instanceId: id,
    accountId,
    provider,
    gpuCount: 2,
    name: 'idle-test',
    providerName: 'idle-test',
    pollIntervalMs: MINUTE, // the observer's steady interval (INSTANCE_OBSERVE_INTERVAL)
    meterIntervalMs: 60 * MINUTE,
    idleStop: RULE,
  });
  await ts.withWorker(activitiesFor(world, row, script), async (taskQueue) => {
    // The observer as a launch starts it, minus the search attributes (the test server has none registered).
    await ts.env.client.workflow.start(observeProviderInstances, {
      taskQueue,
      workflowId: observerWorkflowId(accountId, provider),
      args: [{ accountId, provider, steadyMs: MINUTE, spotMs: 10_000, bootMs: 3_000 }],
    });
    const handle = await ts.env.client.workflow.start(launchInstance, {
      taskQueue,
      workflowId: id,
      args: [input, { row: row.current, nextChargeAt: (await ts.now()) + 60 * MINUTE }],
    });
    ts.afterWorker(async () => {
      await handle.terminate('test finished').catch(() => undefined);
      await ts.env.client.workflow
        .getHandle(observerWorkflowId(accountId, provider))
        .terminate('test finished')
        .catch(() => undefined);
    });
    await body(handle, world);
  });
}

const idleAlways: Script = () => [3, 4];

/**
 * The workflow's result once it has closed, read from its history. (Waiting on `result()` here made later
 * tests of the same file hang on the test server's time skipping; every test waits with `env.sleep` instead.)
 */
async function closedResult(handle: WorkflowHandle): Promise<LaunchResult | null> {
  const events = (await handle.fetchHistory()).events ?? [];
  const payload = events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  return payload
    ? defaultPayloadConverter.fromPayload(payload as Parameters<typeof defaultPayloadConverter.fromPayload>[0])
    : null;
}

describe('idle stop (time-skipping)', () => {
  it(
    'stops a runpod pod whose GPUs all stayed below the threshold for the minutes, charged to that moment, ' +
      'with the reason and event',
    async () => {
      await launchRunning('runpod', idleAlways, async (handle, world) => {
        await ts.env.sleep(15 * MINUTE);
        const row = await handle.query(instanceQuery);
        expect(row?.status).toBe('stopped');
        expect(row?.end_reason).toBe('idle stop: every GPU below 10% utilization for 10 minutes');
        expect(world.stops).toHaveLength(1);
        expect(world.terminates).toHaveLength(0);
        // Idle since the first reading; stopped at the first reading the window's length later.
        const stoppedAfter = world.stops[0]! - world.firstRoundAt!;
        expect(stoppedAfter).toBeGreaterThanOrEqual(10 * MINUTE);
        expect(stoppedAfter).toBeLessThan(11 * MINUTE);
        expect(world.charges.at(-1)).toBe(world.stops[0]);
        expect(world.ends).toEqual([
          {
            status: 'stopped',
            events: ['instance.idle_stopped', 'instance.stopped'],
            atMs: world.stops[0],
            extra: { reason: row?.end_reason, idle_stop: RULE },
          },
        ]);
      });
    },
  );

  it('terminates a vastai instance at the window and ends the workflow idle_stopped', async () => {
    await launchRunning('vastai', idleAlways, async (handle, world) => {
      await ts.env.sleep(15 * MINUTE);
      expect(await closedResult(handle)).toEqual({
        instanceId: handle.workflowId,
        outcome: 'idle_stopped',
        reason: 'idle stop: every GPU below 10% utilization for 10 minutes',
      });
      expect(world.terminates).toHaveLength(1);
      expect(world.terminates[0]! - world.firstRoundAt!).toBeGreaterThanOrEqual(10 * MINUTE);
      expect(world.terminates[0]! - world.firstRoundAt!).toBeLessThan(11 * MINUTE);
      expect(world.charges.at(-1)).toBe(world.terminates[0]);
      expect(world.ends.map((e) => [e.status, e.events])).toEqual([
        ['terminated', ['instance.idle_stopped', 'instance.terminated']],
      ]);
    });
  });

  it('leaves an instance alone while any GPU is at or above the threshold', async () => {
    await launchRunning(
      'runpod',
      () => [3, 10],
      async (handle, world) => {
        await ts.env.sleep(45 * MINUTE);
        expect((await handle.query(instanceQuery))?.status).toBe('running');
        expect(world.stops).toEqual([]);
        expect(world.terminates).toEqual([]);
        expect(world.ends).toEqual([]);
      },
    );
  });

  it('a busy reading restarts the window; missing readings neither restart nor end it', async () => {
    // Idle, busy once at minute 5, idle from 6 (the window's new start), nothing reported at 15–17, idle again at 18.
    const script: Script = (m) => (m === 5 ? [3, 80] : m >= 15 && m <= 17 ? null : [1, 2]);
    await launchRunning('vastai', script, async (handle, world) => {
      await ts.env.sleep(25 * MINUTE);
      expect((await closedResult(handle))?.outcome).toBe('idle_stopped');
      const endedAfter = world.terminates[0]! - world.firstRoundAt!;
      expect(endedAfter).toBeGreaterThanOrEqual(18 * MINUTE);
      expect(endedAfter).toBeLessThan(19 * MINUTE);
    });
  });

  it('missing readings alone never stop an instance', async () => {
    await launchRunning(
      'vastai',
      () => null,
      async (handle, world) => {
        await ts.env.sleep(30 * MINUTE);
        expect((await handle.query(instanceQuery))?.status).toBe('running');
        expect(world.terminates).toEqual([]);
        expect(world.ends).toEqual([]);
      },
    );
  });
});

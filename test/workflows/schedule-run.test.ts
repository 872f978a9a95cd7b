/**
 * A scheduled run's limits in workflow time (Temporal's time-skipping server; the run's, its job's and the job's
 * launch's activities as plain functions over an in-memory cloud, test/helpers/fake-cloud.ts): the run is a job,
 * and its instance is ended at
 * exactly `started_at + max_duration_hours`, and at the moment price × elapsed reaches `max_cost`, so the
 * charges never pass the cap; both with production intervals (hour-long meter, minute-long observer). The run
 * records `stopped_max_duration` / `stopped_max_cost` with the reason. The e2e test
 * (test/schedules/run-timers.test.ts) keeps the wiring: the API's trigger, the real provider's start, the run's row.
 */
import type { AttemptEndReason, JobStatus } from '../../src/db/queries/jobs';
import type { ScheduleRow } from '../../src/db/queries/schedules';
import { runEndOfJob, scheduleRunJobSpec } from '../../src/jobs/schedule-runs';
import type { SshAccess } from '../../activities/instances';
import { scheduleRun } from '../../workflows';
import type { LaunchInput } from '../../workflows/contracts/launch';
import { observerWorkflowId } from '../../workflows/contracts/observation';
import { createFakeCloud, type FakeCloud } from '../helpers/fake-cloud';
import { createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// A test server per test (see launch-instance.test.ts): a finished run's abandoned children can hold its clock.
let ts: TimeSkippingEnv;
beforeEach(async () => {
  ts = await createTimeSkippingEnv();
});
afterEach(async () => {
  await ts?.close();
});

interface Finished {
  status: string;
  stopReason: string | null;
  error: string | null;
}

/**
 * The run's own activities (its row) and its job's (job_1, one attempt) beside the cloud's; what the run and the
 * job recorded is kept for the test.
 */
function runActivities(cloud: FakeCloud, schedule: ScheduleRow, pricePerHourMicros: number) {
  const recorded: {
    runningSinceMs?: number;
    attemptEnd?: { reason: AttemptEndReason; detail: string };
    job?: { status: JobStatus; error: string | null };
    finished?: Finished;
  } = {};
  const spec = scheduleRunJobSpec(schedule, ['runpod']);
  return {
    recorded,
    activities: {
      ...cloud.activities,
      // This cloud runs no start command: the attempt's wrapper (made from the job's row) is left out.
      createAndRecord: (input: LaunchInput, ssh?: SshAccess) =>
        cloud.activities.createAndRecord!({ ...input, onstartCmd: undefined }, ssh),
      beginScheduleRun: async () => ({
        run: { id: 'run_1', status: 'launching' },
        schedule,
        dockerImage: 'pytorch/pytorch',
      }),
      makeScheduleRunJob: async () => ({ jobId: 'job_1' }),
      readJob: async () => ({ name: schedule.name, apiKeyId: null, spec, dockerImage: 'pytorch/pytorch', attempts: 0 }),
      jobCostMicros: async () => [...cloud.rows.keys()].reduce((sum, id) => sum + cloud.chargedMicros(id), 0),
      findJobOffers: async () => [{ provider: 'runpod' as const, spot: false, pricePerHourMicros }],
      admitJobAttempt: async () => null,
      markJobAttemptLaunched: async () => undefined,
      markJobAttemptStarted: async (input: { startedAtMs: number }) => {
        recorded.runningSinceMs = input.startedAtMs;
      },
      readJobAttempt: async () => ({ exitCode: null }),
      finishJobAttempt: async (input: { reason: AttemptEndReason; detail: string }) => {
        recorded.attemptEnd = input;
      },
      jobRetrying: async () => undefined,
      finishJob: async (input: { status: JobStatus; error: string | null }) => {
        recorded.job = input;
      },
      finishScheduleRunOfJob: async () => {
        const end = runEndOfJob(recorded.job!, { end_reason: recorded.attemptEnd?.reason ?? null });
        recorded.finished = end;
        return { status: end.status };
      },
    } as unknown as FakeCloud['activities'],
  };
}

function schedule(limits: { max_duration_hours?: number; max_cost_micros?: number }): ScheduleRow {
  const now = new Date().toISOString();
  return {
    id: `sched_${Math.random().toString(36).slice(2, 12)}`,
    account_id: `acct_${Math.random().toString(36).slice(2, 12)}`,
    name: 'nightly training',
    gpu: 'rtx-4090',
    template: 'pytorch',
    cron: '0 3 * * *',
    max_duration_hours: limits.max_duration_hours ?? null,
    max_cost_micros: limits.max_cost_micros ?? null,
    prefer_spot: false,
    docker_image: null,
    startup_script: null,
    status: 'active',
    last_run_at: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    api_key_id: null,
    idle_stop: null,
  };
}

/** Fires the schedule once and waits (in skipped time) for the run to end; the run's record and its instance. */
async function fire(s: ScheduleRow, pricePerHourMicros: number) {
  const cloud = createFakeCloud(ts, { provider: 'runpod', pricePerHourMicros, bootMs: 20 * SECOND });
  const run = runActivities(cloud, s, pricePerHourMicros);
  const result = await ts.withWorker(run.activities, async (taskQueue) => {
    // The launch's observer ends by itself a round after the instance.
    const observer = ts.env.client.workflow.getHandle(observerWorkflowId(s.account_id, 'runpod'));
    ts.afterWorker(() =>
      observer.result().then(
        () => undefined,
        () => undefined,
      ),
    );
    const handle = await ts.env.client.workflow.start(scheduleRun, {
      taskQueue,
      workflowId: `${s.id}-run-2026-11-24T03:00:00Z`,
      // The production meter; the observer's round every 20 min, not 60 s (each round is work the test server
      // runs: 150 of them over 2.5 simulated hours): the run's own timers end it, which is what is asserted.
      args: [
        { scheduleId: s.id, accountId: s.account_id, launch: { pollIntervalMs: 20 * MINUTE, meterIntervalMs: HOUR } },
      ],
    });
    return handle.result();
  });
  const [instance] = [...cloud.rows.values()];
  return { result, recorded: run.recorded, cloud, instance: instance! };
}

describe('scheduleRun (time-skipping)', () => {
  it('max_duration_hours ends the instance at exactly started_at + the limit, charged for just that', async () => {
    const price = 2_000_000; // $2/h
    const { result, recorded, cloud, instance } = await fire(schedule({ max_duration_hours: 2.5 }), price);

    expect(result).toEqual({ runId: 'run_1', status: 'stopped_max_duration' });
    expect(recorded.finished).toMatchObject({
      status: 'stopped_max_duration',
      stopReason: 'max_duration_hours (2.5) reached',
    });
    expect(instance).toMatchObject({
      status: 'terminated',
      end_reason: expect.stringContaining('max_duration_hours (2.5) reached'),
    });
    const started = Date.parse(instance.started_at!);
    const ran = Date.parse(instance.ended_at!) - started;
    expect(recorded.runningSinceMs).toBe(started);
    expect(ran).toBeGreaterThanOrEqual(2.5 * HOUR);
    expect(ran).toBeLessThan(2.5 * HOUR + SECOND);
    // Charged hourly and then up to the end: exactly the 2.5 hours it ran (to the second).
    expect(cloud.chargedMicros(instance.id)).toBeGreaterThanOrEqual(price * 2.5);
    expect(cloud.chargedMicros(instance.id)).toBeLessThan(price * 2.5 + price / 3600);
    expect([...cloud.created.values()].map((i) => i.status)).toEqual(['terminated']);
  });

  it('max_cost ends the instance at the moment price × elapsed reaches it: charges stay within the cap', async () => {
    const price = 3_000_000; // $3/h, so a $4.50 cap is reached after 1.5 h
    const { result, recorded, cloud, instance } = await fire(schedule({ max_cost_micros: 4_500_000 }), price);

    expect(result).toEqual({ runId: 'run_1', status: 'stopped_max_cost' });
    expect(recorded.finished).toMatchObject({ status: 'stopped_max_cost', stopReason: 'max_cost (4.5) reached' });
    const ran = Date.parse(instance.ended_at!) - Date.parse(instance.started_at!);
    expect(ran).toBeGreaterThanOrEqual(1.5 * HOUR);
    expect(ran).toBeLessThan(1.5 * HOUR + SECOND);
    // At most a second's worth past the cap (the provider's confirmation of the terminate).
    expect(cloud.chargedMicros(instance.id)).toBeGreaterThanOrEqual(4_500_000);
    expect(cloud.chargedMicros(instance.id)).toBeLessThanOrEqual(4_500_000 + price / 3600);
    expect([...cloud.created.values()].map((i) => i.status)).toEqual(['terminated']);
  });
});

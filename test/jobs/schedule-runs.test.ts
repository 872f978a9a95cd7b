/**
 * A scheduled run's status from its job's end (src/jobs/schedule-runs.ts), as docs/jobs.md tabulates it, and the
 * job a run makes from its schedule. Plain functions: no database, no engine.
 */
import type { AttemptEndReason, JobStatus } from '../../src/db/queries/jobs';
import type { ScheduleRow } from '../../src/db/queries/schedules';
import { KEEP_RUNNING_COMMAND, runEndOfJob, scheduleRunJobSpec } from '../../src/jobs/schedule-runs';

const ended = (status: JobStatus, error: string | null, last: AttemptEndReason | null, instanceEndReason?: string) =>
  runEndOfJob({ status, error }, last === null ? null : { end_reason: last }, instanceEndReason ?? null);

describe('a run ends as its job ended', () => {
  it('exit 0 succeeds; another exit code fails with it', () => {
    expect(ended('succeeded', null, 'exited')).toMatchObject({ status: 'succeeded', error: null });
    expect(ended('failed', 'the command exited with 3', 'exited')).toEqual({
      status: 'failed',
      stopReason: null,
      error: 'the command exited with 3',
    });
  });

  it("the job's limits are the run's stopped_* statuses, with the job's reason", () => {
    expect(ended('failed', 'max_duration_hours (2) reached', 'max_duration')).toEqual({
      status: 'stopped_max_duration',
      stopReason: 'max_duration_hours (2) reached',
      error: null,
    });
    expect(ended('failed', 'max_cost (1.5) reached', 'max_cost')).toMatchObject({ status: 'stopped_max_cost' });
    // The budget spent before another attempt could start: the last attempt ended otherwise (preempted).
    expect(ended('failed', 'max_cost (1.5) reached across 2 attempt(s)', 'preempted')).toMatchObject({
      status: 'preempted',
    });
    expect(ended('failed', 'max_cost (1.5) reached across 2 attempt(s)', 'lost')).toMatchObject({
      status: 'stopped_max_cost',
      stopReason: 'max_cost (1.5) reached across 2 attempt(s)',
    });
  });

  it('a preemption with no attempt left is preempted; a cancel is cancelled with its reason', () => {
    expect(ended('failed', 'attempt 3 was preempted and the retry policy allows no other', 'preempted')).toMatchObject({
      status: 'preempted',
      stopReason: 'spot capacity reclaimed by the provider',
    });
    expect(ended('cancelled', 'the schedule sched_1 was deleted', 'cancelled')).toEqual({
      status: 'cancelled',
      stopReason: 'the schedule sched_1 was deleted',
      error: null,
    });
  });

  it("any other failure fails the run with the job's error, or why the service ended the instance", () => {
    expect(ended('failed', 'vastai (spot): insufficient_balance: …', null)).toMatchObject({
      status: 'failed',
      error: 'vastai (spot): insufficient_balance: …',
    });
    expect(
      ended('failed', 'attempt 1: the instance was ended outside the job', 'ended', 'API key capped'),
    ).toMatchObject({
      status: 'failed',
      error: 'the instance was ended: API key capped',
    });
    // The schedule's idle_stop ended an idle instance: the run succeeded, with the rule as its reason.
    const idle = 'idle stop: every GPU below 20% utilization for 2 minutes';
    expect(ended('failed', 'the instance was ended outside the job', 'ended', idle)).toEqual({
      status: 'succeeded',
      stopReason: idle,
      error: null,
    });
    // A job whose workflow failed before it ended has no outcome: the run fails rather than staying live.
    expect(ended('running', null, null)).toMatchObject({ status: 'failed' });
  });
});

it("a run's job carries the schedule's settings", () => {
  const schedule = {
    gpu: 'rtx-4090',
    template: 'custom',
    docker_image: 'ghcr.io/acme/train:1',
    startup_script: null,
    prefer_spot: false,
    max_cost_micros: 2_500_000,
    max_duration_hours: 4,
    idle_stop: null,
  } as unknown as ScheduleRow;
  expect(scheduleRunJobSpec(schedule, ['vastai'])).toMatchObject({
    gpu: 'rtx-4090',
    gpu_count: 1,
    template: null,
    docker_image: 'ghcr.io/acme/train:1',
    command: KEEP_RUNNING_COMMAND,
    providers: ['vastai'],
    spot_policy: 'on-demand',
    max_cost_micros: 2_500_000,
    max_duration_hours: 4,
  });
  const spot = {
    ...schedule,
    template: 'pytorch',
    docker_image: null,
    startup_script: 'python train.py',
    prefer_spot: true,
  };
  expect(scheduleRunJobSpec(spot, ['runpod', 'vastai'])).toMatchObject({
    template: 'pytorch',
    docker_image: null,
    command: 'python train.py',
    spot_policy: 'auto',
  });
});

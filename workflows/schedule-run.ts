import { patched, workflowInfo } from '@temporalio/workflow';
import type { RunOffer } from '../src/db/queries/schedules';
import { SCHEDULE_RUN_AS_JOB_PATCH, type ScheduleRunInput, type ScheduleRunResult } from './contracts/schedules';
import { RunAttempt } from './schedule-run/attempt';
import { runAsJob } from './schedule-run/job';
import { runAdmission, runLaunchInput } from './schedule-run/launch';
import { RunSignals, ScheduledRun, scheduleRunActivities } from './schedule-run/run';

/** Temporal appends the scheduled time to a schedule's workflow id: `sched_…-run-2026-11-22T10:00:00Z`. */
const SCHEDULED_TIME_SUFFIX = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/;

/**
 * One firing of a schedule. Workflow id `<schedule id>-run-<scheduled time>` (a `trigger` uses the time of
 * the trigger). Records the run (`launching`, or `skipped` while the previous run is live: the Temporal
 * overlap policy is ALLOW_ALL so this decision is ours), then carries it out as a job: a `runJob` child made
 * from the schedule's settings (exit code, recovery after a preemption, max_duration_hours and max_cost per
 * the job), cancelled when the schedule is deleted, and the run ended as the job ended (src/jobs/schedule-runs.ts).
 *
 * Runs begun before the `schedule-run-as-job` marker keep their own launch: they try the offers cheapest first
 * (falling back on any refusal), launch through an abandoned launchInstance child, and end the instance at the
 * earliest of: its container exiting (`succeeded`), max_duration_hours after it started running, the moment its
 * cost would exceed max_cost, a preemption, a failure, or the schedule's deletion (`cancelled`).
 */
export async function scheduleRun(input: ScheduleRunInput): Promise<ScheduleRunResult> {
  const db = scheduleRunActivities(input);
  const signals = new RunSignals();

  const info = workflowInfo();
  const suffix = SCHEDULED_TIME_SUFFIX.exec(info.workflowId);
  const scheduledAtMs = suffix ? Date.parse(suffix[1]!) : info.startTime.getTime();
  const begun = await db.beginScheduleRun({
    workflowId: info.workflowId,
    scheduleId: input.scheduleId,
    accountId: input.accountId,
    scheduledAtMs,
  });
  if (!begun) return { runId: null, status: 'schedule_deleted' };
  const { run: row, schedule, dockerImage } = begun;
  if (row.status !== 'launching' && row.status !== 'running') return { runId: row.id, status: row.status };
  const run = new ScheduledRun(input, info.workflowId, row.id, schedule, dockerImage, signals, db);
  if (patched(SCHEDULE_RUN_AS_JOB_PATCH)) return runAsJob(run);
  return tryOffers(run);
}

/**
 * A run begun before runs were jobs: launches on the offers cheapest first, each after the previous one was
 * refused, until one decides the run.
 */
async function tryOffers(run: ScheduledRun): Promise<ScheduleRunResult> {
  const { input, schedule, signals, db } = run;
  const offers: RunOffer[] = await db.findScheduleRunOffers({
    accountId: input.accountId,
    gpu: schedule.gpu,
    preferSpot: schedule.prefer_spot,
  });
  if (offers.length === 0) {
    return run.finish('failed', {
      error: `no available offer for ${schedule.gpu} on a connected provider that can run the job (runpod, vastai)`,
    });
  }

  const refusals: string[] = [];
  for (let attempt = 0; attempt < offers.length; attempt++) {
    if (signals.cancelReason) return run.finish('cancelled', { stopReason: signals.cancelReason });
    const offer = offers[attempt]!;
    // One launch per run and offer: the ids derive from the run, so a replayed or retried step joins the same launch.
    const launch = runLaunchInput(input, {
      runId: run.runId,
      schedule,
      dockerImage: run.dockerImage,
      offer,
      attempt,
      instanceRowId: `launch-${input.accountId}-${run.runId}-${attempt}`,
      runWorkflowId: run.workflowId,
    });
    const refusal = await db.checkScheduleRunBalance(runAdmission(input, offer, launch));
    if (refusal) return run.finish('failed', { error: refusal });
    const launched = await RunAttempt.start(run, offer, launch);
    await launched.watch();
    const outcome = await launched.conclude();
    if ('refused' in outcome) {
      refusals.push(outcome.refused);
      continue;
    }
    return run.finish(outcome.status, outcome.detail);
  }
  return run.finish('failed', { error: `every offer was refused: ${refusals.join('; ')}` });
}

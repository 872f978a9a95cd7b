/**
 * A run carried out by a job: the run's `runJob` child (the schedule's settings, `startup_script` as the
 * command), told of a cancel, and the run ended as the job ended. The job records its attempts on the run as
 * they launch and start (activities/jobs.ts), so the run shows `running`, its provider and instance meanwhile.
 */
import { condition, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { cancelJobSignal, jobWorkflowId } from '../contracts/jobs';
import { SCHEDULE_RUN_JOB_BACKOFF, type ScheduleRunResult } from '../contracts/schedules';
import { runSearchAttributes } from '../contracts/search-attributes';
import { runJob } from '../job';
import type { ScheduledRun } from './run';

export async function runAsJob(run: ScheduledRun): Promise<ScheduleRunResult> {
  const { input, signals, db } = run;
  if (signals.cancelReason) return run.finish('cancelled', { stopReason: signals.cancelReason });
  const made = await db.makeScheduleRunJob({ runId: run.runId });
  if ('cancelled' in made) return run.finish('cancelled', { stopReason: made.cancelled });
  if ('error' in made) return run.finish('failed', { error: made.error });

  const job = await startChild(runJob, {
    workflowId: jobWorkflowId(made.jobId),
    args: [
      {
        jobId: made.jobId,
        accountId: input.accountId,
        timing: { launch: input.launch, ...(input.jobBackoff ?? SCHEDULE_RUN_JOB_BACKOFF) },
      },
    ],
    // The job (and through it the instance) must outlive anything that happens to this run workflow.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: runSearchAttributes({
      accountId: input.accountId,
      scheduleId: input.scheduleId,
      jobId: made.jobId,
    }),
  });
  let ended = false;
  // A job workflow that failed has no outcome of its own: the run reads its row and ends `failed`.
  const result = job.result().then(
    () => (ended = true),
    () => (ended = true),
  );
  await condition(() => ended || signals.cancelReason !== null);
  if (!ended) await job.signal(cancelJobSignal, { reason: signals.cancelReason! });
  await result;
  const finished = await db.finishScheduleRunOfJob({ runId: run.runId, jobId: made.jobId });
  return { runId: run.runId, status: finished.status };
}

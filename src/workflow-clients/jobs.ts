/**
 * Client side of the jobs family: starts a job's `runJob` workflow (id `job-<job id>`, idempotent), and tells it
 * of a cancel or of its command's exit report (and the attempt's launch, which ends the instance at once). Every
 * call goes through {@link withEngine}.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  cancelJobSignal,
  exitEndReason,
  jobExitReportedSignal,
  jobWorkflowId,
  type JobTiming,
} from '../../workflows/contracts/jobs';
import { endInstanceSignal } from '../../workflows/contracts/launch';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { runJob } from '../../workflows/job';
import { withEngine } from './engine';

export const DEFAULT_JOB_BACKOFF = { backoffInitialMs: 60_000, backoffMaxMs: 600_000 };

export function createJobClient(deps: { temporal: { client: Client; taskQueue: string }; timing: JobTiming }) {
  const { client, taskQueue } = deps.temporal;
  return {
    /** Starts the job's workflow; a second start of the same job (a retried request) joins the first. */
    async start(jobId: string, accountId: string): Promise<void> {
      await withEngine(client, async () => {
        try {
          await client.workflow.start(runJob, {
            workflowId: jobWorkflowId(jobId),
            taskQueue,
            args: [{ jobId, accountId, timing: deps.timing }],
            typedSearchAttributes: runSearchAttributes({ accountId, jobId }),
          });
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
      });
    },

    /** Asks the job to end (`cancelled`); a job that ended already has nothing to cancel. */
    async cancel(jobId: string, reason: string): Promise<void> {
      await withEngine(client, async () => {
        try {
          await client.workflow.getHandle(jobWorkflowId(jobId)).signal(cancelJobSignal, { reason });
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      });
    },

    /**
     * Attempt `n` reported how its command ended (the report is in the database already): wakes the job, and
     * asks the attempt's launch (`instanceRowId`) to terminate the instance at once. The job asks the launch the
     * same, a workflow task and a signal later; on a busy worker those cost seconds of paid time. The launch's
     * signal is best effort: the job's own is the one the end relies on.
     */
    async exitReported(report: { jobId: string; n: number; exitCode: number; instanceRowId: string }): Promise<void> {
      const { jobId, n, exitCode, instanceRowId } = report;
      const endNow = withEngine(client, () =>
        client.workflow
          .getHandle(instanceRowId)
          .signal(endInstanceSignal, { action: 'terminate', reason: exitEndReason(jobId) }),
      ).catch(() => undefined);
      await withEngine(client, async () => {
        try {
          await client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobExitReportedSignal, { n, exitCode });
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      });
      await endNow;
    },
  };
}
export type JobClient = ReturnType<typeof createJobClient>;

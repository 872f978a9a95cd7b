/**
 * Client side of the jobs family: starts a job's `runJob` workflow (id `job-<job id>`, idempotent), and tells it
 * of a cancel or of its command's exit report. Every call goes through {@link withEngine}.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { cancelJobSignal, jobExitReportedSignal, jobWorkflowId, type JobTiming } from '../../workflows/contracts/jobs';
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

    /** Wakes the job: attempt `n` reported how its command ended (the report is in the database already). */
    async exitReported(jobId: string, n: number, exitCode: number): Promise<void> {
      await withEngine(client, async () => {
        try {
          await client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobExitReportedSignal, { n, exitCode });
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      });
    },
  };
}
export type JobClient = ReturnType<typeof createJobClient>;

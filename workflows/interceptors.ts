/**
 * Workflow interceptors (they run in the workflow isolate, so they only reach the outside through a sink):
 * every run's outcome is handed to the worker, which counts it in `gpuo_workflow_completions_total`.
 * Not a workflow: the worker loads this module through `interceptors.workflowModules` / the bundle's
 * `workflowInterceptorModules` (see src/worker.ts).
 */
import {
  ContinueAsNew,
  isCancellation,
  proxySinks,
  TemporalFailure,
  type Sinks,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

export type WorkflowRunOutcome = 'completed' | 'failed' | 'continued_as_new' | 'cancelled' | 'task_failed';

export interface WorkflowMetricsSinks extends Sinks {
  metrics: {
    /** Called once when a run's main function returns or throws (not during replay). */
    workflowEnded(outcome: WorkflowRunOutcome): void;
  };
}

const { metrics } = proxySinks<WorkflowMetricsSinks>();

function outcomeOf(err: unknown): WorkflowRunOutcome {
  if (err instanceof ContinueAsNew) return 'continued_as_new';
  if (isCancellation(err)) return 'cancelled';
  // Only a TemporalFailure fails the run; anything else fails the workflow task, which Temporal retries.
  if (err instanceof TemporalFailure) return 'failed';
  return 'task_failed';
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        try {
          const result = await next(input);
          metrics.workflowEnded('completed');
          return result;
        } catch (err) {
          metrics.workflowEnded(outcomeOf(err));
          throw err;
        }
      },
    },
  ],
});

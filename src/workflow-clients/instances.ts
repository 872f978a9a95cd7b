/**
 * Client side of the launchInstance workflow family: the only place (besides composition roots) that talks to
 * Temporal about instances. Routes, CLIs and tests call these functions; workflow and engine failures come
 * back as our documented errors.
 */
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  WorkflowUpdateStage,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  endInstanceSignal,
  launchAcceptedUpdate,
  startInstanceUpdate,
  stopInstanceUpdate,
  terminateInstanceUpdate,
  type EndInstanceRequest,
  type LaunchInput,
} from '../../workflows/contracts/launch';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { launchInstance } from '../../workflows/launch-instance';
import type { InstanceQueries, InstanceRow } from '../db/queries/instances';
import { ConflictError, ServiceUnavailableError, UnsupportedOperationError } from '../errors';
import { launchRefusalError } from '../launch/failures';
import { isEngineUnavailable, withEngine } from './engine';

/** How long the API waits on the workflow before answering with what it knows; the work goes on either way. */
export interface AnswerBounds {
  /**
   * A launch waits for the provider's accept; past this the answer is 503 and the same Idempotency-Key resumes it.
   * Default 30 s.
   */
  launchMs: number;
  /**
   * A stop or terminate waits for the provider; past this the answer is 202 with the record as it stands. Default 10 s.
   */
  lifecycleMs: number;
  /**
   * Any other call to the engine; past this (engine unreachable) the answer is 503 service_unavailable. Default 10 s.
   */
  engineMs: number;
}
export const DEFAULT_ANSWER_BOUNDS: AnswerBounds = { launchMs: 30_000, lifecycleMs: 10_000, engineMs: 10_000 };

export interface EndResult {
  row: InstanceRow;
  /** False when the bound passed first: the stop or terminate is accepted and continues in the workflow. */
  done: boolean;
}

export function createInstanceClient(deps: {
  temporal: { client: Client; taskQueue: string };
  instances: InstanceQueries;
  bounds?: Partial<AnswerBounds>;
}) {
  const { client, taskQueue } = deps.temporal;
  const bounds = { ...DEFAULT_ANSWER_BOUNDS, ...deps.bounds };
  return {
    /**
     * Starts (or joins) the launch workflow for `input.instanceId` and resolves once the provider accepted
     * the create. The same id and request hash replay the instance; another hash is 409.
     */
    async launch(input: LaunchInput): Promise<InstanceRow> {
      try {
        return await withEngine(
          client,
          () =>
            client.workflow.executeUpdateWithStart(launchAcceptedUpdate, {
              args: [input.requestHash],
              startWorkflowOperation: new WithStartWorkflowOperation(launchInstance, {
                workflowId: input.instanceId,
                taskQueue,
                args: [input],
                workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
                // A launch that was refused (nothing created) may be retried with the same key; one that ran may not.
                workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
                typedSearchAttributes: runSearchAttributes({ accountId: input.accountId, provider: input.provider }),
              }),
            }),
          bounds.launchMs,
        );
      } catch (err) {
        if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
          throw new ServiceUnavailableError(
            'The launch is still waiting for the provider; retry with the same Idempotency-Key to get its result.',
          );
        }
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
          throw launchRefusalError(err.cause, input.provider);
        }
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          // The key's launch has run its course: replay its record.
          const row = await deps.instances.findById(input.instanceId);
          if (!row) throw new ConflictError('This Idempotency-Key belongs to an earlier launch.');
          if (row.request_hash !== input.requestHash)
            throw new ConflictError('This Idempotency-Key was used with a different request body.');
          return row;
        }
        throw err;
      }
    },

    /**
     * Stops (runpod) or terminates a managed instance. Resolves with the final record once the provider
     * confirmed, or, when that takes longer than the bound (provider slow or unreachable, key removed), with the
     * record as it stands and `done: false`: the request is durable in the workflow and goes on.
     */
    async end(row: InstanceRow, action: 'stop' | 'terminate'): Promise<EndResult> {
      const handle = client.workflow.getHandle(row.id);
      let update;
      try {
        update = await withEngine(
          client,
          () =>
            handle.startUpdate(action === 'stop' ? stopInstanceUpdate : terminateInstanceUpdate, {
              waitForStage: WorkflowUpdateStage.ACCEPTED,
            }),
          bounds.engineMs,
        );
      } catch (err) {
        // The workflow has ended: the row is the whole truth.
        if (err instanceof WorkflowNotFoundError || isClosedWorkflow(err)) {
          return { row: (await deps.instances.findById(row.id)) ?? row, done: true };
        }
        throw err;
      }
      try {
        const updated = await client.withDeadline(Date.now() + bounds.lifecycleMs, () => update.result());
        return { row: updated ?? row, done: true };
      } catch (err) {
        if (!(err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) && !isEngineUnavailable(err)) throw err;
        const latest = (await deps.instances.findById(row.id)) ?? row;
        const ended = latest.status === 'terminated' || (action === 'stop' && latest.status === 'stopped');
        const status = ended ? latest.status : action === 'stop' ? 'stopping' : 'terminating';
        return { row: { ...latest, status }, done: ended };
      }
    },

    /**
     * Starts a stopped pod through its workflow. Resolves with the record once the workflow has seen it running
     * (metering resumed), or, past the answer bound, as it stands with `done: false` (the start goes on);
     * throws the provider's refusal as our error.
     */
    async start(row: InstanceRow): Promise<EndResult> {
      const handle = client.workflow.getHandle(row.id);
      let update;
      try {
        update = await withEngine(
          client,
          () => handle.startUpdate(startInstanceUpdate, { waitForStage: WorkflowUpdateStage.ACCEPTED }),
          bounds.engineMs,
        );
      } catch (err) {
        if (err instanceof WorkflowNotFoundError || isClosedWorkflow(err)) {
          throw new UnsupportedOperationError(
            'This instance is no longer managed by the service, so it cannot be started here.',
          );
        }
        throw err;
      }
      try {
        const started = await client.withDeadline(Date.now() + bounds.lifecycleMs, () => update.result());
        return { row: started, done: started.status !== 'stopped' };
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure)
          throw launchRefusalError(err.cause, row.provider);
        if (!(err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) && !isEngineUnavailable(err)) throw err;
        return { row: (await deps.instances.findById(row.id)) ?? row, done: false };
      }
    },

    /** True while the instance's workflow runs (it watches, meters and ends the instance). */
    async isManaged(rowId: string): Promise<boolean> {
      try {
        const description = await withEngine(
          client,
          () => client.workflow.getHandle(rowId).describe(),
          bounds.engineMs,
        );
        return description.status.name === 'RUNNING';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },

    /** Starts a workflow for an instance that has a row but no workflow (reconciliation's adoption). */
    async manage(input: LaunchInput, row: InstanceRow): Promise<void> {
      try {
        await withEngine(
          client,
          () =>
            client.workflow.start(launchInstance, {
              workflowId: row.id,
              taskQueue,
              args: [input, { row, nextChargeAt: Date.now() + input.meterIntervalMs }],
              workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
              typedSearchAttributes: runSearchAttributes({
                accountId: row.account_id,
                provider: row.provider,
                instanceId: row.provider_instance_id ?? undefined,
              }),
            }),
          bounds.engineMs,
        );
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // someone adopted it first
      }
    },

    /**
     * Asks an instance's workflow to stop or terminate it for a reason of ours (budget reached, balance
     * depleted, schedule limit) without waiting: the reason lands in the instance's record and events.
     */
    async requestEnd(rowId: string, request: EndInstanceRequest): Promise<void> {
      try {
        await withEngine(
          client,
          () => client.workflow.getHandle(rowId).signal(endInstanceSignal, request),
          bounds.engineMs,
        );
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err; // a finished workflow has nothing left to end
      }
    },
  };
}
export type InstanceClient = ReturnType<typeof createInstanceClient>;

/** Temporal's answer to an update sent to a workflow that has already completed. */
function isClosedWorkflow(err: unknown): boolean {
  return err instanceof Error && /workflow execution already completed|already completed/i.test(err.message);
}

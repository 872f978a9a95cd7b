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
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { LaunchInput } from '../../activities/instances';
import {
  endInstanceSignal,
  launchAcceptedUpdate,
  launchInstance,
  stopInstanceUpdate,
  terminateInstanceUpdate,
  type EndInstanceRequest,
} from '../../workflows/launch-instance';
import type { InstanceQueries, InstanceRow } from '../db/queries/instances';
import {
  ApiError,
  ConflictError,
  NoCapacityError,
  ProviderApiError,
  ProviderNotConnectedError,
  ProviderUnavailableError,
  ValidationError,
} from '../errors';
import type { ProviderId } from '../providers/types';
import { runSearchAttributes } from '../temporal/search-attributes';
import { withEngine } from './engine';

/** The documented error for a launch the workflow refused (its ApplicationFailure type). */
function launchRefusal(provider: ProviderId, failure: ApplicationFailure): ApiError {
  switch (failure.type) {
    case 'idempotency_conflict':
      return new ConflictError(failure.message);
    case 'provider_no_capacity':
      return new NoCapacityError(provider, failure.message);
    case 'provider_not_connected':
      return new ProviderNotConnectedError(provider);
    case 'validation_error':
      return new ValidationError(failure.message);
    case 'provider_rate_limited':
    case 'provider_transient':
    case 'provider_unavailable':
      return new ProviderUnavailableError(provider, failure.message);
    default: {
      const detail = failure.details?.[0] as { providerStatus?: number | null } | undefined;
      return new ProviderApiError(provider, detail?.providerStatus ?? 0, failure.message);
    }
  }
}

export function createInstanceClient(deps: { temporal: { client: Client; taskQueue: string }; instances: InstanceQueries }) {
  const { client, taskQueue } = deps.temporal;
  return {
    /**
     * Starts (or joins) the launch workflow for `input.instanceId` and resolves once the provider accepted
     * the create. The same id and request hash replay the instance; another hash is 409.
     */
    async launch(input: LaunchInput): Promise<InstanceRow> {
      try {
        return await withEngine(client, () =>
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
        );
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
          throw launchRefusal(input.provider, err.cause);
        }
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          // The key's launch has run its course: replay its record.
          const row = await deps.instances.findById(input.instanceId);
          if (!row) throw new ConflictError('This Idempotency-Key belongs to an earlier launch.');
          if (row.request_hash !== input.requestHash) throw new ConflictError('This Idempotency-Key was used with a different request body.');
          return row;
        }
        throw err;
      }
    },

    /** Stops (runpod) or terminates a managed instance and resolves with its record. */
    async end(row: InstanceRow, action: 'stop' | 'terminate'): Promise<InstanceRow> {
      try {
        const handle = client.workflow.getHandle(row.id);
        const updated = await withEngine(client, () =>
          handle.executeUpdate(action === 'stop' ? stopInstanceUpdate : terminateInstanceUpdate),
        );
        return updated ?? row;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return (await deps.instances.findById(row.id)) ?? row;
        throw err;
      }
    },

    /**
     * Asks an instance's workflow to stop or terminate it for a reason of ours (budget reached, balance
     * depleted, schedule limit) without waiting: the reason lands in the instance's record and events.
     */
    async requestEnd(rowId: string, request: EndInstanceRequest): Promise<void> {
      try {
        await withEngine(client, () => client.workflow.getHandle(rowId).signal(endInstanceSignal, request));
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err; // a finished workflow has nothing left to end
      }
    },
  };
}
export type InstanceClient = ReturnType<typeof createInstanceClient>;

/**
 * Client side of the webhook workflow family: starting the dispatcher (idempotently), waking it when the
 * outbox fills, and talking to per-delivery retry workflows. Engine failures become 503 through `withEngine`.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  configureDispatcherSignal,
  endpointChangedSignal,
  outboxChangedSignal,
  retryDeliveryNowSignal,
  webhookDeliveryWorkflowId,
  webhookDispatcherWorkflowId,
  type WebhookDispatcherInput,
} from '../../workflows/contracts/webhooks';
import { webhookDelivery } from '../../workflows/webhook-delivery';
import { webhookDispatcher } from '../../workflows/webhook-dispatcher';
import { withEngine } from './engine';

export function createWebhookClient(deps: { temporal: { client: Client; taskQueue: string } }) {
  const { client, taskQueue } = deps.temporal;
  const dispatcherId = webhookDispatcherWorkflowId(taskQueue);
  return {
    dispatcherId,

    /**
     * Starts the dispatcher unless it already runs, and hands it the current settings either way (every
     * worker start calls this; concurrent calls all succeed and leave one dispatcher).
     */
    async ensureDispatcher(settings: WebhookDispatcherInput): Promise<void> {
      const input: WebhookDispatcherInput = { ...settings };
      await withEngine(client, () =>
        client.workflow.signalWithStart(webhookDispatcher, {
          workflowId: dispatcherId,
          taskQueue,
          args: [input],
          signal: configureDispatcherSignal,
          signalArgs: [input],
        }),
      );
    },

    /** Wakes the dispatcher: new events are in the outbox. */
    async signalOutbox(): Promise<void> {
      await withEngine(client, () => client.workflow.getHandle(dispatcherId).signal(outboxChangedSignal));
    },

    /** Attempts a delivery now with the same webhook-id (starting its retry workflow again if it had ended). */
    async retryDelivery(deliveryId: string): Promise<void> {
      await withEngine(client, () =>
        client.workflow.signalWithStart(webhookDelivery, {
          workflowId: webhookDeliveryWorkflowId(deliveryId),
          taskQueue,
          args: [{ deliveryId }],
          signal: retryDeliveryNowSignal,
          signalArgs: [],
        }),
      );
    },

    /** Tells waiting retry workflows that their endpoint was deleted or deactivated, so they end now. */
    async notifyEndpointChanged(deliveryIds: string[]): Promise<void> {
      const signalOne = async (id: string) => {
        try {
          await client.workflow.getHandle(webhookDeliveryWorkflowId(id)).signal(endpointChangedSignal);
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      };
      for (let i = 0; i < deliveryIds.length; i += 50) {
        await withEngine(client, () => Promise.all(deliveryIds.slice(i, i + 50).map(signalOne)));
      }
    },
  };
}
export type WebhookClient = ReturnType<typeof createWebhookClient>;

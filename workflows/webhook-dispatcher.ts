import {
  allHandlersFinished,
  condition,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import {
  configureDispatcherSignal,
  outboxChangedSignal,
  webhookDeliveryWorkflowId,
  type WebhookDispatcherInput,
} from './contracts/webhooks';
import { webhookDelivery } from './webhook-delivery';

const { dispatchWebhookBatch } = proxyActivities<Activities>({
  // Pumps for up to pumpMs (30 s), plus a last batch whose attempts are bounded by WEBHOOK_TIMEOUT_MS (<= 60 s).
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds', // a killed worker's batch is retried within seconds
  // Postgres away: keep trying; nothing is lost meanwhile (the events wait in the outbox).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/**
 * The one long-running dispatcher: woken by a signal when events land in the outbox (and by a periodic tick),
 * it runs batches that claim events, fan them out and make every first attempt inside one activity (no
 * workflow round trip per message). Deliveries whose first attempt failed, and orphans whose batch died, are
 * handed to their own retry workflow `webhook-delivery-<delivery id>` (durable timers, survives everything).
 */
export async function webhookDispatcher(initial: WebhookDispatcherInput): Promise<void> {
  let input = initial;
  const maxInFlight = () => input.maxInFlight ?? 4;
  const batchesPerRun = () => input.batchesPerRun ?? 1000;
  let wake = true; // a new run looks at once: events may have arrived during the continue-as-new
  let inFlight = 0;
  let batches = 0;
  setHandler(outboxChangedSignal, () => void (wake = true));
  setHandler(configureDispatcherSignal, (next) => {
    input = next;
    wake = true;
  });

  const startRetry = async (deliveryId: string) => {
    try {
      await startChild(webhookDelivery, {
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        args: [{ deliveryId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };
  const runBatch = async () => {
    try {
      const result = await dispatchWebhookBatch({ pumpMs: input.pumpMs ?? 30_000 });
      if (result.more) wake = true;
      await Promise.all(result.handoff.map(startRetry));
    } catch {
      // A hand-off that could not start: the delivery's lease runs out and a later sweep hands it on again.
      wake = true;
    } finally {
      inFlight--;
    }
  };

  while (batches < batchesPerRun() && !workflowInfo().continueAsNewSuggested) {
    await condition(() => wake && inFlight < maxInFlight(), input.tickMs);
    if (inFlight >= maxInFlight()) continue;
    wake = false;
    batches++;
    inFlight++;
    void runBatch();
  }
  await condition(() => inFlight === 0 && allHandlersFinished());
  await continueAsNew<typeof webhookDispatcher>(input);
}

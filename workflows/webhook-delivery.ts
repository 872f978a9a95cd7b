import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  endpointChangedSignal,
  retryDeliveryNowSignal,
  type DeliveryState,
  type WebhookDeliveryInput,
} from './contracts/webhooks';

const acts = proxyActivities<Activities>({
  // An attempt is bounded by WEBHOOK_TIMEOUT_MS (at most 60 s) plus the database work.
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The retry path of one (event, endpoint) delivery, id `webhook-delivery-<delivery id>`. Takes the delivery
 * over from the dispatcher, waits on durable timers until each scheduled attempt (5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h, 10 h by default; the schedule lives in the activities' config), and ends when the delivery
 * succeeds, fails for good, is cancelled (endpoint deactivated) or disappears (endpoint deleted).
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<DeliveryState | null> {
  let retryNow = false;
  let changed = false;
  setHandler(retryDeliveryNowSignal, () => void (retryNow = true));
  setHandler(endpointChangedSignal, () => void (changed = true));

  let state = await acts.adoptWebhookDelivery(input.deliveryId);
  for (;;) {
    if (state === null) return null;
    if (state.status !== 'pending') {
      if (!retryNow) return state;
      retryNow = false;
      state = await acts.attemptWebhookDelivery({ deliveryId: input.deliveryId, manual: true });
      continue;
    }
    const waitMs = state.nextAttemptAt === null ? 0 : state.nextAttemptAt - Date.now();
    if (waitMs > 0 && !retryNow) await condition(() => retryNow || changed, waitMs);
    if (changed && !retryNow && state.nextAttemptAt !== null && Date.now() < state.nextAttemptAt) {
      changed = false;
      state = await acts.adoptWebhookDelivery(input.deliveryId); // cancels it when the endpoint is inactive
      continue;
    }
    retryNow = false;
    changed = false;
    state = await acts.attemptWebhookDelivery({ deliveryId: input.deliveryId, manual: false });
  }
}

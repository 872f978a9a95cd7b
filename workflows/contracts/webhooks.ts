/**
 * Contract of the webhook family: the dispatcher (`webhookDispatcher`, one per task queue, id
 * `webhook-dispatcher-<task queue>`) and the per-delivery retry workflows (`webhookDelivery`, id
 * `webhook-delivery-<delivery id>`). A leaf.
 */
import { defineSignal } from '@temporalio/workflow';
import type { DeliveryStatus } from '../../src/db/queries/webhooks';

/** Attempt now (POST …/deliveries/{id}/retry): during the retry wait, or once more after the delivery ended. */
export const retryDeliveryNowSignal = defineSignal('retryDeliveryNow');
/** The endpoint was deleted or deactivated: re-check at once instead of at the end of the wait. */
export const endpointChangedSignal = defineSignal('endpointChanged');

export interface WebhookDeliveryInput {
  deliveryId: string;
}

/** Workflow id of a delivery's retry workflow: the business key shown in the Temporal UI. */
export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `webhook-delivery-${deliveryId}`;
}

/** "New rows in the outbox": sent by the worker's LISTEN on `events_outbox`. */
export const outboxChangedSignal = defineSignal('outboxChanged');
/** New settings from a worker start (config may have changed); they also carry over continue-as-new. */
export const configureDispatcherSignal = defineSignal<[WebhookDispatcherInput]>('configureDispatcher');

export interface WebhookDispatcherInput {
  /** Safety tick: a batch runs at least this often even without a signal (lost NOTIFY, orphan sweep). */
  tickMs: number;
  /** Batches running at once (each one attempts its deliveries in parallel). */
  maxInFlight?: number;
  /** Batch activities per run before continue-as-new (keeps the history small). */
  batchesPerRun?: number;
  /** How long one batch activity keeps pumping (LISTEN in the activity) before it returns; default 30 s. */
  pumpMs?: number;
}

/** Workflow id of the dispatcher of one task queue (one per deployment): `webhook-dispatcher-<task queue>`. */
export function webhookDispatcherWorkflowId(taskQueue: string): string {
  return `webhook-dispatcher-${taskQueue}`;
}

export interface DeliveryState {
  status: DeliveryStatus;
  /** Epoch ms of the next automatic attempt while pending; null otherwise (or "now" for a fresh delivery). */
  nextAttemptAt: number | null;
}

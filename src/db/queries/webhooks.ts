/**
 * Everything webhooks read and write, one query module per table (webhook-endpoints.ts, events.ts,
 * webhook-deliveries.ts), offered together to the webhook routes and activities.
 */
import type { Pool } from '../pool';
import { createEventQueries } from './events';
import { createWebhookDeliveryQueries } from './webhook-deliveries';
import { createWebhookEndpointQueries } from './webhook-endpoints';

export { EventRow } from './events';
export { decodePageCursor, type Page } from './paging';
export { AttemptRow, DeliveryRow, DeliveryStatus, DeliveryWork } from './webhook-deliveries';
export { EndpointRow } from './webhook-endpoints';

export function createWebhookQueries(pool: Pool) {
  return { ...createWebhookEndpointQueries(pool), ...createEventQueries(pool), ...createWebhookDeliveryQueries(pool) };
}
export type WebhookQueries = ReturnType<typeof createWebhookQueries>;

/**
 * Everything webhooks read and write, one query module per table (webhook-endpoints.ts, events.ts,
 * webhook-deliveries.ts), offered together to the webhook routes and activities.
 */
import type { KeyVault } from '../../domain/key-vault';
import type { Pool } from '../pool';
import { createEventQueries } from './events';
import { createWebhookDeliveryQueries } from './webhook-deliveries';
import { createWebhookEndpointQueries } from './webhook-endpoints';

export { EventRow } from './events';
export { decodePageCursor, type Page } from './paging';
export { AttemptRow, DeliveryRow, DeliveryStatus, DeliveryWork } from './webhook-deliveries';
export { EndpointRow, WEBHOOK_SECRET_AAD } from './webhook-endpoints';

/**
 * `vault`: the key vault of provider keys; webhook signing secrets are sealed with it at rest and opened only
 * into the delivery work that signs with them.
 */
export function createWebhookQueries(pool: Pool, vault: Pick<KeyVault, 'seal' | 'open'>) {
  return {
    ...createWebhookEndpointQueries(pool, vault),
    ...createEventQueries(pool),
    ...createWebhookDeliveryQueries(pool, vault),
  };
}
export type WebhookQueries = ReturnType<typeof createWebhookQueries>;

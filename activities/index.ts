/**
 * Activities: every side effect of a workflow (provider APIs, Postgres, Stripe). `createActivities(deps)`
 * merges one group per concern; workflows see only the type.
 */
import type { Pool } from '../src/db/pool';
import type { Logger } from '../src/logger';
import type { ProviderAdapter, ProviderId } from '../src/providers/types';
import { createHealthActivities } from './health';
import { createInstanceActivities } from './instances';
import { createPricingActivities } from './pricing';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import type { ProviderCredentials } from '../src/services/provider-credentials';

export interface ActivityDeps {
  pool: Pool;
  logger: Logger;
  adapters: Record<ProviderId, ProviderAdapter>;
  /** Platform-level keys used only to read price lists. */
  pricingKeys: Partial<Record<ProviderId, string>>;
  /** The accounts' provider keys, decrypted for one call at a time. */
  credentials: ProviderCredentials;
  /** Webhook delivery settings, DNS and the per-attempt metrics hook; defaults are the real ones. */
  webhooks?: WebhookActivityDeps;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...createPricingActivities(deps),
    ...createInstanceActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

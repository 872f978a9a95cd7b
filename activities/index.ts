/**
 * Activities: every side effect of a workflow (provider APIs, Postgres, Stripe). `createActivities(deps)`
 * merges one group per concern; workflows see only the type.
 */
import type { Client } from '@temporalio/client';
import type { Pool } from '../src/db/pool';
import type { Logger } from '../src/logger';
import type { ProviderAdapter, ProviderId } from '../src/providers/types';
import { createAlertActivities } from './alerts';
import { createBillingActivities } from './billing';
import { createBootActivities } from './boots';
import { createHealthActivities } from './health';
import { createInstanceActivities } from './instances';
import { createObservationActivities } from './observation';
import { createPricingActivities } from './pricing';
import { createReconciliationActivities, type ReconcileSettings } from './reconciliation';
import { createScheduleActivities } from './schedules';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import type { ProviderCredentials } from '../src/services/provider-credentials';
import type { AlertMonitorSettings } from '../src/workflow-clients/alerts';

export interface ActivityDeps {
  pool: Pool;
  logger: Logger;
  adapters: Record<ProviderId, ProviderAdapter>;
  /** Platform-level keys used only to read price lists. */
  pricingKeys: Partial<Record<ProviderId, string>>;
  /** The accounts' provider keys, decrypted for one call at a time. */
  credentials: ProviderCredentials;
  /** For activities that start or look at workflows (reconciliation's adoption). */
  temporal?: { client: Client; taskQueue: string };
  reconcile?: ReconcileSettings;
  /** The alert monitor that pricing refreshes and charges signal; default id `alert-monitor`, 5 min tick. */
  alertMonitor?: AlertMonitorSettings;
  /** Grace between a depleted balance and ending the account's instances (BALANCE_GRACE_PERIOD; 30 min). */
  balanceGraceMs?: number;
  /** Boot deadlines by `provider` or `provider:gpu` (BOOT_DEADLINES); the defaults are in src/domain/boot-deadlines.ts. */
  bootDeadlines?: Record<string, number>;
  /** Webhook delivery settings, DNS and the per-attempt metrics hook; defaults are the real ones. */
  webhooks?: WebhookActivityDeps;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...createPricingActivities(deps),
    ...createInstanceActivities(deps),
    ...createObservationActivities(deps),
    ...createBootActivities(deps),
    ...createReconciliationActivities(deps),
    ...createAlertActivities(deps),
    ...createScheduleActivities(deps),
    ...createBillingActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

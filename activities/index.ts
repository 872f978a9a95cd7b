/**
 * Activities: every side effect of a workflow (provider APIs, Postgres, Stripe). `createActivities(deps)`
 * merges one group per concern; workflows see only the type. The deps (activities/deps.ts) are built by the
 * worker's composition root (src/worker.ts).
 */
import { createAlertActivities } from './alerts';
import { createBillingActivities } from './billing';
import { createBootActivities } from './boots';
import type { ActivityDeps } from './deps';
import { createHealthActivities } from './health';
import { createInstanceActivities } from './instances';
import { createJobActivities } from './jobs';
import { createObservationActivities } from './observation';
import { createPricingActivities } from './pricing';
import { createReconciliationActivities } from './reconciliation';
import { createScheduleActivities } from './schedules';
import { createWebhookActivities } from './webhooks';

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
    ...createJobActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

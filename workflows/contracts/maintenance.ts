/**
 * Contract of the maintenance workflows the service runs for itself: `healthProbe`, `pricingRefresh` (Temporal
 * Schedule `pricing-refresh`) and `reconcileInstances` (Temporal Schedule `instance-reconciliation`). A leaf.
 */
import type { ProviderId } from '../../src/providers/types';

export const PRICING_SCHEDULE_ID = 'pricing-refresh';
export const RECONCILIATION_SCHEDULE_ID = 'instance-reconciliation';

export interface HealthProbeInput {
  message: string;
}

export interface HealthProbeResult {
  echoed: string;
  workerPid: number;
}

export interface PricingRefreshResult {
  snapshotId: number;
  gpuTypes: number;
  offers: number;
  failedProviders: ProviderId[];
}

export interface ReconcileTarget {
  accountId: string;
  provider: ProviderId;
}

export interface ReconcileReport {
  /** Instances at the provider that trace to one of our rows. */
  seen: number;
  /** Ours with no live workflow (or an ended row) and terminated at the provider. */
  terminated: string[];
  /** Ours with no live workflow, managed again from now. */
  adopted: string[];
  /** Rows whose instance the provider no longer knows, finished with a final charge. */
  finished: string[];
  /** Set when the account has no key for this provider: nothing could be looked at. */
  skipped?: string;
  /** Of `terminated`: second instances of a launch that recorded another one (a create sent twice). */
  duplicates?: string[];
  /** Rows absent from the list of a key that did not create them: left as they are (and warned about), not finished. */
  keyMismatch?: string[];
}

export interface ReconcileSummary {
  targets: number;
  failedTargets: number;
  terminated: number;
  adopted: number;
  finished: number;
}

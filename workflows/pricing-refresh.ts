import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProviderOutcome } from '../src/db/queries/pricing';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import type { PricingRefreshResult } from './contracts/maintenance';

const { fetchProviderOffers } = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { maximumAttempts: 3, initialInterval: '2 seconds', backoffCoefficient: 2 },
});
const { recordPricingRefresh } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second' },
});

const { notifyAlertMonitor } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * One pricing refresh: all providers fetched in parallel; a provider that fails (after retries) is recorded
 * as failed and keeps its last good offers (for up to an hour) in the snapshot.
 * Started by the `pricing-refresh` Temporal Schedule.
 */
export async function pricingRefresh(): Promise<PricingRefreshResult> {
  const entries = await Promise.all(
    PROVIDERS.map(async (provider): Promise<[ProviderId, ProviderOutcome]> => {
      try {
        return [provider, { ok: true, offers: await fetchProviderOffers(provider) }];
      } catch (err) {
        return [provider, { ok: false, error: failureMessage(err) }];
      }
    }),
  );
  const outcomes = Object.fromEntries(entries) as Record<ProviderId, ProviderOutcome>;
  const stored = await recordPricingRefresh({ outcomes });
  // Price alerts are evaluated as prices land; if this fails, the alert monitor's tick catches up.
  await notifyAlertMonitor({ price: true }).catch(() => undefined);
  return { ...stored, failedProviders: entries.filter(([, o]) => !o.ok).map(([p]) => p) };
}

import { ApplicationFailure } from '@temporalio/activity';
import type { ProviderOutcome } from '../src/db/queries/pricing';
import { toStoredOffer, type StoredOffer } from '../src/domain/pricing';
import type { ProviderId } from '../src/providers/types';
import type { ActivityDeps } from './deps';
import { toActivityFailure } from './provider-failures';

/** Providers whose price list can be read without a key. */
const PUBLIC_PRICE_LISTS: readonly ProviderId[] = ['vastai'];

export function createPricingActivities(deps: ActivityDeps) {
  const queries = deps.queries.pricing;
  return {
    /** Current offers of one provider, normalized (per GPU per hour, known slugs only). */
    async fetchProviderOffers(provider: ProviderId): Promise<StoredOffer[]> {
      const key = deps.pricingKeys[provider];
      if (!key && !PUBLIC_PRICE_LISTS.includes(provider)) {
        throw ApplicationFailure.nonRetryable(
          `no platform key for ${provider} prices (set PRICING_${provider.toUpperCase()}_API_KEY)`,
          'pricing_key_missing',
        );
      }
      try {
        const offers = await deps.adapters[provider].listOffers(key);
        return offers.map(toStoredOffer);
      } catch (err) {
        throw toActivityFailure(err);
      }
    },

    /** Stores the refresh, the snapshot and history in one transaction; listeners are notified. */
    async recordPricingRefresh(input: { outcomes: Record<ProviderId, ProviderOutcome> }): Promise<{
      snapshotId: number;
      gpuTypes: number;
      offers: number;
    }> {
      const { snapshotId, snapshot } = await queries.recordRefresh(input.outcomes, new Date());
      const offers = snapshot.gpu_types.reduce((n, g) => n + g.offers.length, 0);
      deps.logger.info('pricing snapshot stored', {
        snapshot_id: snapshotId,
        gpu_types: snapshot.gpu_types.length,
        offers,
      });
      return { snapshotId, gpuTypes: snapshot.gpu_types.length, offers };
    },
  };
}

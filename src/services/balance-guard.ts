/**
 * Launch-time enforcement of the prepaid balance: a launch whose first hour the balance cannot cover is
 * refused with 402 `insufficient_balance` before anything is created at the provider.
 *
 * The first hour is priced from the current pricing snapshot (the offer of that provider for that GPU, spot
 * or on-demand as asked, in the asked region when the offer has one; the cheapest such offer) × gpu_count.
 * When the snapshot has no such offer, the provider's live price list is asked with the account's key (and
 * kept for a minute). When
 * no price can be found at all, the launch needs a balance above zero.
 */
import type { InstanceQueries } from '../db/queries/instances';
import type { LedgerQueries } from '../db/queries/ledger';
import { dollarsToMicros, microsToDollars } from '../domain/money';
import { InsufficientBalanceError } from '../errors';
import type { Logger } from '../logger';
import type { ProviderAdapter, ProviderId, ProviderOffer } from '../providers/types';
import type { PricingCache } from './pricing-cache';
import type { ProviderCredentials } from './provider-credentials';

export interface LaunchCost {
  /** Launch workflow id / instance row id: a replayed launch (Idempotency-Key) is never refused. */
  instanceId: string;
  accountId: string;
  provider: ProviderId;
  gpuType: string;
  gpuCount: number;
  spot: boolean;
  region?: string;
}

interface PricedOffer {
  provider: ProviderId;
  spot: boolean;
  region?: string | null;
  pricePerHourMicros: number;
}

/** The cheapest offer that matches the launch, or null. */
export function matchOffer(offers: readonly PricedOffer[], launch: Pick<LaunchCost, 'provider' | 'spot' | 'region'>): PricedOffer | null {
  const matching = offers.filter(
    (o) => o.provider === launch.provider && o.spot === launch.spot && (!launch.region || !o.region || o.region === launch.region),
  );
  return matching.reduce<PricedOffer | null>((best, o) => (best === null || o.pricePerHourMicros < best.pricePerHourMicros ? o : best), null);
}

/** How long a live price list stands in for a missing snapshot offer. */
const LIVE_PRICE_TTL_MS = 60_000;

const dollars = (micros: number) => `$${microsToDollars(micros).toFixed(2)}`;

export function createBalanceGuard(deps: {
  ledger: LedgerQueries;
  instances: InstanceQueries;
  pricing: PricingCache;
  adapters: Record<ProviderId, ProviderAdapter>;
  credentials: ProviderCredentials;
  logger: Logger;
}) {
  /** Live price lists by provider, kept for a minute: the snapshot normally answers, this is the fallback. */
  const liveCache = new Map<ProviderId, { at: number; offers: Promise<ProviderOffer[]> }>();
  async function liveOffers(launch: LaunchCost): Promise<ProviderOffer[]> {
    const cached = liveCache.get(launch.provider);
    if (cached && Date.now() - cached.at < LIVE_PRICE_TTL_MS) return cached.offers;
    const offers = (async () => {
      const apiKey = await deps.credentials.findApiKey(launch.accountId, launch.provider);
      return deps.adapters[launch.provider].listOffers(apiKey ?? undefined);
    })();
    liveCache.set(launch.provider, { at: Date.now(), offers });
    offers.catch(() => liveCache.delete(launch.provider));
    return offers;
  }

  /** Price per GPU-hour in micros for this launch, and where it came from; null when nobody quotes one. */
  async function quote(launch: LaunchCost): Promise<{ perGpuMicros: number; source: 'snapshot' | 'provider' } | null> {
    const fromSnapshot = deps.pricing.latest?.byGpu.get(launch.gpuType)?.offers ?? [];
    const snapshotOffer = matchOffer(
      fromSnapshot.map((o) => ({ provider: o.provider, spot: o.spot, region: o.region, pricePerHourMicros: dollarsToMicros(o.price_per_hour) })),
      launch,
    );
    if (snapshotOffer) return { perGpuMicros: snapshotOffer.pricePerHourMicros, source: 'snapshot' };
    try {
      const live = await liveOffers(launch);
      const liveOffer = matchOffer(
        live
          .filter((o) => o.gpuType === launch.gpuType)
          .map((o) => ({ provider: o.provider, spot: o.spot, region: o.region, pricePerHourMicros: dollarsToMicros(o.pricePerHour) })),
        launch,
      );
      return liveOffer ? { perGpuMicros: liveOffer.pricePerHourMicros, source: 'provider' } : null;
    } catch (err) {
      // The launch itself will meet the same provider trouble and answer for it; here the price is unknown.
      deps.logger.warn('no live price for the balance check', { provider: launch.provider, gpu_type: launch.gpuType, err });
      return null;
    }
  }

  return {
    /** The launch's hourly price for the whole instance (micros), or null when nobody quotes one. */
    async hourlyPriceMicros(launch: LaunchCost): Promise<number | null> {
      const price = await quote(launch);
      return price === null ? null : price.perGpuMicros * launch.gpuCount;
    },

    /**
     * Throws 402 `insufficient_balance` when the balance is below the launch's first hour (or not above zero
     * when no price is known). A launch whose instance already exists (an Idempotency-Key replay) passes.
     */
    async assertCoversFirstHour(launch: LaunchCost): Promise<void> {
      if (await deps.instances.findById(launch.instanceId)) return;
      const balance = await deps.ledger.getBalance(launch.accountId);
      const price = await quote(launch);
      if (price === null) {
        if (balance > 0) return;
        throw new InsufficientBalanceError(
          `The balance is ${dollars(balance)}; launches need a positive balance. Add credit with POST /v1/billing/credit.`,
        );
      }
      const firstHour = price.perGpuMicros * launch.gpuCount;
      if (balance >= firstHour) return;
      throw new InsufficientBalanceError(
        `This launch needs ${dollars(firstHour)} for its first hour (${launch.gpuCount}× ${launch.gpuType} on ${launch.provider} at ` +
          `${dollars(price.perGpuMicros)}/h per GPU) and the balance is ${dollars(balance)}. Add credit with POST /v1/billing/credit.`,
      );
    },
  };
}
export type BalanceGuard = ReturnType<typeof createBalanceGuard>;

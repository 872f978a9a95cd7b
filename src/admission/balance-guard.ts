/**
 * Launch-time enforcement of the prepaid balance and of the launching key's spend cap: the launch is quoted
 * here and admitted by `admitLaunch` (balance − uncharged usage ≥ window × (every live instance + this one), and
 * the key's spend this period + the next hour of its live instances + this one ≤ its cap), else refused with
 * 402 `insufficient_balance` naming the numbers before anything is created at the provider.
 *
 * The launch is priced from the current pricing snapshot (the offer of that provider for that GPU, spot
 * or on-demand as asked, in the asked region when the offer has one; the cheapest such offer) × gpu_count.
 * When the snapshot has no such offer, the provider's live price list is asked with the account's key (and
 * kept for a minute). When
 * no price can be found at all, the launch adds nothing to the burn but needs a positive available balance.
 */
import { admitLaunch, releaseReservation, type AdmissionDecision, type LaunchIntent } from '../db/queries/admission';
import type { InstanceQueries } from '../db/queries/instances';
import type { Pool } from '../db/pool';
import { dollarsToMicros } from '../domain/money';
export { DEFAULT_ADMISSION_WINDOW_MS } from '../domain/admission';
import { ConflictError, InsufficientBalanceError, LimitReachedError, UnauthenticatedError } from '../errors';
import type { Logger } from '../logger';
import type { ProviderAdapter, ProviderId, ProviderOffer } from '../providers/types';
import type { PricingCache } from '../db/pricing-cache';
import type { ProviderCredentials } from '../providers/provider-credentials';

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

/**
 * The launch's answer to a refusal: 422 at the live-instance limit, 402 naming the numbers for the balance or
 * the key's cap, 401 for a key revoked or expired since the request was authenticated.
 */
function refuseUnlessAdmitted(decision: AdmissionDecision): AdmissionDecision {
  if (decision.outcome === 'limited') throw new LimitReachedError('live_instances', decision.max, decision.message);
  if (decision.outcome === 'refused') throw new InsufficientBalanceError(decision.message!);
  if (decision.outcome === 'key_refused') {
    throw decision.keyCap ? new InsufficientBalanceError(decision.message) : new UnauthenticatedError(decision.message);
  }
  return decision;
}

export function createBalanceGuard(deps: {
  pool: Pool;
  instances: InstanceQueries;
  /** BALANCE_ADMISSION_WINDOW: how far ahead the balance must cover the whole fleet (1 h). */
  windowMs: number;
  /** LIMIT_LIVE_INSTANCES: admission refuses (422 limit_reached) at this many live instances. Unset: none. */
  maxLive?: number;
  pricing: PricingCache;
  adapters: Record<ProviderId, ProviderAdapter>;
  credentials: ProviderCredentials;
  logger: Logger;
}) {
  /** Live price lists by provider, kept for a minute: the snapshot normally answers, this is the fallback. */
  const liveCache = new Map<ProviderId, { at: number; offers: Promise<ProviderOffer[]>; resolved?: ProviderOffer[] }>();
  const freshLive = (provider: ProviderId) => {
    const cached = liveCache.get(provider);
    return cached && Date.now() - cached.at < LIVE_PRICE_TTL_MS ? cached : undefined;
  };
  async function liveOffers(launch: LaunchCost): Promise<ProviderOffer[]> {
    const cached = freshLive(launch.provider);
    if (cached) return cached.offers;
    const offers = (async () => {
      const apiKey = await deps.credentials.findApiKey(launch.accountId, launch.provider);
      return deps.adapters[launch.provider].listOffers(apiKey ?? undefined);
    })();
    const entry: { at: number; offers: Promise<ProviderOffer[]>; resolved?: ProviderOffer[] } = { at: Date.now(), offers };
    liveCache.set(launch.provider, entry);
    offers.then((list) => (entry.resolved = list), () => liveCache.delete(launch.provider));
    return offers;
  }

  type Quote = { perGpuMicros: number; source: 'snapshot' | 'provider' };
  const fromLive = (live: ProviderOffer[], launch: LaunchCost): Quote | null => {
    const liveOffer = matchOffer(
      live
        .filter((o) => o.gpuType === launch.gpuType)
        .map((o) => ({ provider: o.provider, spot: o.spot, region: o.region, pricePerHourMicros: dollarsToMicros(o.pricePerHour) })),
      launch,
    );
    return liveOffer ? { perGpuMicros: liveOffer.pricePerHourMicros, source: 'provider' } : null;
  };

  /** The quote when it takes no I/O (the snapshot, or live offers fetched in the last minute); else undefined. */
  function quoteAtHand(launch: LaunchCost): Quote | null | undefined {
    const fromSnapshot = deps.pricing.latest?.byGpu.get(launch.gpuType)?.offers ?? [];
    const snapshotOffer = matchOffer(
      fromSnapshot.map((o) => ({ provider: o.provider, spot: o.spot, region: o.region, pricePerHourMicros: dollarsToMicros(o.price_per_hour) })),
      launch,
    );
    if (snapshotOffer) return { perGpuMicros: snapshotOffer.pricePerHourMicros, source: 'snapshot' };
    const resolved = freshLive(launch.provider)?.resolved;
    return resolved ? fromLive(resolved, launch) : undefined;
  }

  /** Price per GPU-hour in micros for this launch, and where it came from; null when nobody quotes one. */
  async function quote(launch: LaunchCost): Promise<Quote | null> {
    const atHand = quoteAtHand(launch);
    if (atHand !== undefined) return atHand;
    try {
      return fromLive(await liveOffers(launch), launch);
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

    quote,
    /**
     * Admits a launch under the spend rule (see `admitLaunch`) and writes its reservation, or throws: 402
     * `insufficient_balance` naming the numbers, 409 for a key first used with another body. A launch whose
     * instance exists with the same body (an Idempotency-Key replay) is never refused.
     */
    async admit(launch: LaunchCost & { intent: LaunchIntent }): Promise<AdmissionDecision> {
      // A quote at hand costs nothing; otherwise a replay skips it (no provider round trip). Either way
      // admitLaunch decides replays under the lock, so the row is read only when the quote would cost a call.
      let price = quoteAtHand(launch);
      if (price === undefined) {
        const replay = await deps.instances.findById(launch.instanceId);
        price = replay && replay.request_hash === launch.intent.requestHash && replay.status !== 'failed' ? null : await quote(launch);
      }
      const decision = await admitLaunch(deps.pool, {
        intent: launch.intent,
        quotePerHourMicros: price === null ? null : price.perGpuMicros * launch.gpuCount,
        windowMs: deps.windowMs,
        maxLive: deps.maxLive,
      });
      if (decision.outcome === 'conflict') throw new ConflictError(decision.message!);
      return refuseUnlessAdmitted(decision);
    },
    /**
     * The same decision as {@link admit}, writing nothing (a plan): throws what the launch would answer (402
     * naming the numbers), else returns the decision. Its id is never a real launch's, so it is never a replay.
     */
    async check(launch: LaunchCost & { intent: LaunchIntent }): Promise<AdmissionDecision> {
      const price = await quote(launch);
      const decision = await admitLaunch(deps.pool, {
        intent: launch.intent,
        quotePerHourMicros: price === null ? null : price.perGpuMicros * launch.gpuCount,
        windowMs: deps.windowMs,
        reserve: false,
        maxLive: deps.maxLive,
      });
      return refuseUnlessAdmitted(decision);
    },
    /** Gives back the reservation of a launch refused before its workflow could record why. */
    release: (instanceId: string, reason: string) => releaseReservation(deps.pool, instanceId, reason),
  };
}
export type BalanceGuard = ReturnType<typeof createBalanceGuard>;

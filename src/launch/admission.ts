/**
 * Spend admission, the one module launches, plans and scheduled runs call: the launch is quoted here and
 * decided by `admitLaunch` (balance − uncharged usage ≥ window × (every live instance + this one), the
 * account's live-instance limit, and the key's spend this period + the next hour of its live instances + this
 * one ≤ its cap), under the account's lock, before anything is created at the provider. The arithmetic is
 * `src/domain/admission.ts`, the statement `src/db/queries/admission.ts`.
 *
 * The launch is priced from the current pricing snapshot (the offer of that provider for that GPU, spot
 * or on-demand as asked, in the asked region when the offer has one; the cheapest such offer) × gpu_count.
 * When the snapshot has no such offer, the provider's live price list is asked with the account's key (and
 * kept for a minute). When no price can be found at all, the launch is refused (422 `price_unknown`): an
 * unpriced reservation would count $0 in the burn, so launches up to the live-instance limit would pass on
 * any positive balance or under any key cap.
 */
import { admitLaunch, releaseReservation, type AdmissionDecision, type LaunchIntent } from '../db/queries/admission';
import { admitStart } from '../db/queries/start-admission';
import type { InstanceQueries } from '../db/queries/instances';
import type { Pool } from '../db/pool';
import { DEFAULT_ADMISSION_WINDOW_MS } from '../domain/admission';
import { DEFAULT_LIMITS } from '../domain/limits';
import { dollarsToMicros } from '../domain/money';
import { ApiError } from '../errors';
import type { Logger } from '../logger';
import type { ProviderAdapter, ProviderId, ProviderOffer } from '../providers/types';
import type { PricingCache } from '../db/pricing-cache';
import type { ProviderCredentials } from '../providers/provider-credentials';
import { launchRefusalError, type LaunchRefusal } from './failures';

export { DEFAULT_ADMISSION_WINDOW_MS };

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
export function matchOffer(
  offers: readonly PricedOffer[],
  launch: Pick<LaunchCost, 'provider' | 'spot' | 'region'>,
): PricedOffer | null {
  const matching = offers.filter(
    (o) =>
      o.provider === launch.provider &&
      o.spot === launch.spot &&
      (!launch.region || !o.region || o.region === launch.region),
  );
  return matching.reduce<PricedOffer | null>(
    (best, o) => (best === null || o.pricePerHourMicros < best.pricePerHourMicros ? o : best),
    null,
  );
}

/** How long a live price list stands in for a missing snapshot offer. */
const LIVE_PRICE_TTL_MS = 60_000;

/**
 * Why admission refused, as a failure type: `limit_reached` at the live-instance limit (422),
 * `insufficient_balance` naming the numbers for the balance or the key's cap (402), `api_key_unusable` for a key
 * revoked or expired since the request was authenticated (401), `idempotency_conflict` for a key first used
 * with another body (409). Null when admitted (or a replay).
 */
export function admissionRefusal(decision: AdmissionDecision): LaunchRefusal | null {
  switch (decision.outcome) {
    case 'limited':
      return {
        type: 'limit_reached',
        message: decision.message,
        details: [{ limit: 'live_instances', max: decision.max }],
      };
    case 'refused':
      return { type: 'insufficient_balance', message: decision.message! };
    case 'key_refused':
      return { type: decision.keyCap ? 'insufficient_balance' : 'api_key_unusable', message: decision.message };
    case 'conflict':
      return { type: 'idempotency_conflict', message: decision.message! };
    default:
      return null;
  }
}

/** Throws what the launch answers for a refusal (see {@link admissionRefusal}); returns an admitted decision. */
function refuseUnlessAdmitted(decision: AdmissionDecision, provider: ProviderId): AdmissionDecision {
  const refusal = admissionRefusal(decision);
  if (refusal) throw launchRefusalError(refusal, provider);
  return decision;
}

/** 422 `price_unknown`: neither the pricing snapshot nor the provider's live list quotes the launch. */
export function priceUnknownError(launch: Pick<LaunchCost, 'provider' | 'gpuType' | 'spot' | 'region'>): ApiError {
  const what = `${launch.spot ? 'spot ' : ''}${launch.gpuType} on ${launch.provider}${
    launch.region ? ` in ${launch.region}` : ''
  }`;
  return new ApiError(
    422,
    'price_unknown',
    `No price is known for ${what}: neither the pricing snapshot nor ${launch.provider}'s live price list offers it, ` +
      `and a launch is never admitted without a price. Pick an offer from GET /v1/pricing (another region, ` +
      `or on-demand).`,
  );
}

/** What admission reads besides the launch: the lock's pool, the window and the live-instance limit. */
export interface AdmissionRules {
  pool: Pool;
  /** BALANCE_ADMISSION_WINDOW: how far ahead the balance must cover the whole fleet (1 h). */
  windowMs?: number;
  /**
   * LIMIT_LIVE_INSTANCES: admission refuses (422 limit_reached) at this many live instances. Default: DEFAULT_LIMITS.
   */
  maxLive?: number;
}

/**
 * A scheduled run's admission, by the same rule and lock as an API launch: the balance, and the cap of the key
 * that made the schedule (`intent.apiKeyId`). When admitted, the launch's row is written as its reservation
 * before the launch workflow starts. Returns the refusal, or null when admitted (or when the launch exists
 * already: a replayed step). Without `intent` (a run started before reservations existed) it decides only.
 */
export async function admitScheduledRun(
  rules: AdmissionRules,
  run: { accountId: string; pricePerHourMicros: number; intent?: LaunchIntent },
): Promise<LaunchRefusal | null> {
  const intent: LaunchIntent = run.intent ?? {
    id: `admission-check-${run.accountId}`,
    accountId: run.accountId,
    requestHash: 'admission-check',
    provider: 'runpod',
    providerName: '',
    name: '',
    gpuType: '',
    gpuCount: 1,
    spot: false,
    region: null,
    dockerImage: null,
    warnings: [],
  };
  const decision = await admitLaunch(rules.pool, {
    intent,
    quotePerHourMicros: run.pricePerHourMicros,
    windowMs: rules.windowMs ?? DEFAULT_ADMISSION_WINDOW_MS,
    reserve: run.intent !== undefined,
    maxLive: rules.maxLive ?? DEFAULT_LIMITS.live_instances,
  });
  return admissionRefusal(decision);
}

/** Quotes and admits the API's launches and plans (see the module's head): reserves, checks, releases. */
export function createLaunchAdmission(deps: {
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
    const entry: { at: number; offers: Promise<ProviderOffer[]>; resolved?: ProviderOffer[] } = {
      at: Date.now(),
      offers,
    };
    liveCache.set(launch.provider, entry);
    offers.then(
      (list) => (entry.resolved = list),
      () => liveCache.delete(launch.provider),
    );
    return offers;
  }

  type Quote = { perGpuMicros: number; source: 'snapshot' | 'provider' };
  const fromLive = (live: ProviderOffer[], launch: LaunchCost): Quote | null => {
    const liveOffer = matchOffer(
      live
        .filter((o) => o.gpuType === launch.gpuType)
        .map((o) => ({
          provider: o.provider,
          spot: o.spot,
          region: o.region,
          pricePerHourMicros: dollarsToMicros(o.pricePerHour),
        })),
      launch,
    );
    return liveOffer ? { perGpuMicros: liveOffer.pricePerHourMicros, source: 'provider' } : null;
  };

  /** The quote when it takes no I/O (the snapshot, or live offers fetched in the last minute); else undefined. */
  function quoteAtHand(launch: LaunchCost): Quote | null | undefined {
    const fromSnapshot = deps.pricing.latest?.byGpu.get(launch.gpuType)?.offers ?? [];
    const snapshotOffer = matchOffer(
      fromSnapshot.map((o) => ({
        provider: o.provider,
        spot: o.spot,
        region: o.region,
        pricePerHourMicros: dollarsToMicros(o.price_per_hour),
      })),
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
      deps.logger.warn('no live price for the balance check', {
        provider: launch.provider,
        gpu_type: launch.gpuType,
        err,
      });
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
      let replayExpected = false;
      if (price === undefined) {
        const replay = await deps.instances.findById(launch.instanceId);
        replayExpected = !!replay && replay.request_hash === launch.intent.requestHash && replay.status !== 'failed';
        price = replayExpected ? null : await quote(launch);
      }
      if (price === null && !replayExpected) throw priceUnknownError(launch);
      const decision = await admitLaunch(deps.pool, {
        intent: launch.intent,
        quotePerHourMicros: price === null ? null : price.perGpuMicros * launch.gpuCount,
        windowMs: deps.windowMs,
        maxLive: deps.maxLive,
      });
      // A replay expected without a quote that turned out not to be one (its row failed meanwhile) must not
      // keep an unpriced reservation.
      if (price === null && decision.outcome === 'admitted') {
        await releaseReservation(deps.pool, launch.intent.id, 'refused: no price is known for this launch');
        throw priceUnknownError(launch);
      }
      return refuseUnlessAdmitted(decision, launch.provider);
    },
    /**
     * The same decision as {@link admit}, writing nothing (a plan): throws what the launch would answer (402
     * naming the numbers), else returns the decision. Its id is never a real launch's, so it is never a replay.
     */
    async check(launch: LaunchCost & { intent: LaunchIntent }): Promise<AdmissionDecision> {
      const price = await quote(launch);
      if (price === null) throw priceUnknownError(launch);
      const decision = await admitLaunch(deps.pool, {
        intent: launch.intent,
        quotePerHourMicros: price === null ? null : price.perGpuMicros * launch.gpuCount,
        windowMs: deps.windowMs,
        reserve: false,
        maxLive: deps.maxLive,
      });
      return refuseUnlessAdmitted(decision, launch.provider);
    },
    /** Gives back the reservation of a launch refused before its workflow could record why. */
    release: (instanceId: string, reason: string) => releaseReservation(deps.pool, instanceId, reason),
    /**
     * Admits the start of a stopped instance by the launch's balance rule and live-instance limit (see
     * `admitStart`), or throws what the start answers: 402 `insufficient_balance` naming the numbers, 422 at the limit.
     */
    async admitStart(
      row: { id: string; account_id: string; provider: ProviderId },
      apiKeyId?: string | null,
    ): Promise<void> {
      const decision = await admitStart(deps.pool, {
        accountId: row.account_id,
        instanceId: row.id,
        apiKeyId,
        windowMs: deps.windowMs,
        maxLive: deps.maxLive,
      });
      if (decision.outcome === 'limited') {
        throw launchRefusalError(
          {
            type: 'limit_reached',
            message: decision.message,
            details: [{ limit: 'live_instances', max: decision.max }],
          },
          row.provider,
        );
      }
      if (decision.outcome === 'refused' || decision.outcome === 'key_refused')
        throw launchRefusalError({ type: 'insufficient_balance', message: decision.message }, row.provider);
    },
  };
}
export type LaunchAdmission = ReturnType<typeof createLaunchAdmission>;

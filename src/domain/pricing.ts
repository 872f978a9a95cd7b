/**
 * Pure pricing logic: assembling the public snapshot from offers, comparing, and history periods.
 * Prices are per GPU per hour in dollars at the edges, integer micro-dollars inside.
 */
import { allGpuSlugs, gpuBySlug } from '../providers/gpu-catalog';
import type { ProviderId, ProviderOffer } from '../providers/types';
import { dollarsToMicros, microsToDollars } from './money';

export const MAX_OFFER_AGE_MS = 60 * 60 * 1000;

export interface StoredOffer {
  provider: ProviderId;
  gpuType: string;
  spot: boolean;
  region: string | null;
  pricePerHourMicros: number;
  availability: number;
}

export interface SnapshotOffer {
  provider: ProviderId;
  price_per_hour: number;
  availability: number;
  spot: boolean;
  region?: string;
}

export interface PricingSnapshot {
  gpu_types: { gpu_type: string; display_name: string; offers: SnapshotOffer[] }[];
  last_updated: string;
}

export function toStoredOffer(offer: ProviderOffer): StoredOffer {
  return {
    provider: offer.provider,
    gpuType: offer.gpuType,
    spot: offer.spot,
    region: offer.region ?? null,
    pricePerHourMicros: dollarsToMicros(offer.pricePerHour),
    availability: Math.max(0, Math.floor(offer.availability)),
  };
}

/** Cheapest first; ties by provider then region so the order is stable between refreshes. */
function compareOffers(a: StoredOffer, b: StoredOffer): number {
  return (
    a.pricePerHourMicros - b.pricePerHourMicros ||
    a.provider.localeCompare(b.provider) ||
    Number(a.spot) - Number(b.spot) ||
    (a.region ?? '').localeCompare(b.region ?? '')
  );
}

/** One entry per known GPU that has at least one offer, in catalog order; offers sorted by price. */
export function buildSnapshot(offers: readonly StoredOffer[], lastUpdated: Date): PricingSnapshot {
  const bySlug = new Map<string, StoredOffer[]>();
  for (const o of offers) {
    if (!gpuBySlug(o.gpuType)) continue;
    bySlug.set(o.gpuType, [...(bySlug.get(o.gpuType) ?? []), o]);
  }
  const gpu_types = allGpuSlugs()
    .filter((slug) => bySlug.has(slug))
    .map((slug) => ({
      gpu_type: slug,
      display_name: gpuBySlug(slug)!.display_name,
      offers: bySlug
        .get(slug)!
        .sort(compareOffers)
        .map((o) => ({
          provider: o.provider,
          price_per_hour: microsToDollars(o.pricePerHourMicros),
          availability: o.availability,
          spot: o.spot,
          ...(o.region ? { region: o.region } : {}),
        })),
    }));
  return { gpu_types, last_updated: lastUpdated.toISOString() };
}

/** The lowest price per (gpu, provider, spot) — the history rows of one refresh. */
export function historyRows(
  offers: readonly StoredOffer[],
): { gpuType: string; provider: ProviderId; spot: boolean; minMicros: number }[] {
  const min = new Map<string, { gpuType: string; provider: ProviderId; spot: boolean; minMicros: number }>();
  for (const o of offers) {
    const key = `${o.gpuType}|${o.provider}|${o.spot}`;
    const current = min.get(key);
    if (!current || o.pricePerHourMicros < current.minMicros) {
      min.set(key, { gpuType: o.gpuType, provider: o.provider, spot: o.spot, minMicros: o.pricePerHourMicros });
    }
  }
  return [...min.values()];
}

/** The cheapest offer that can actually be rented now (availability > 0), or null. */
export function cheapestAvailable<T extends { price_per_hour: number; availability: number }>(
  offers: readonly T[],
): T | null {
  return offers.find((o) => o.availability > 0) ?? null;
}

export const HISTORY_PERIODS = {
  '24h': { ms: 24 * 3_600_000, bucket: null, resolution: 'every refresh' },
  '7d': { ms: 7 * 24 * 3_600_000, bucket: '1 hour', resolution: '1h' },
  '30d': { ms: 30 * 24 * 3_600_000, bucket: '6 hours', resolution: '6h' },
} as const;
export type HistoryPeriod = keyof typeof HISTORY_PERIODS;

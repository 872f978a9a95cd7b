/**
 * Cost recommendations: each running instance against the cheapest offer that can be rented now for the same
 * GPU. Prices are per GPU per hour in the snapshot; an instance's price is for the whole instance. Everything
 * is computed in integer micro-dollars and turned into dollars only in the returned report.
 */
import type { ProviderId } from '../providers/types';
import { microsToDollars, MICROS_PER_DOLLAR } from './money';
import type { PricingSnapshot } from './pricing';

export const HOURS_PER_MONTH = 730;
export const NO_ACTIVE_INSTANCES_MESSAGE = 'No active instances to evaluate.';

/** A running instance of the account, as the recommendations see it. */
export interface EvaluatedInstance {
  /** The id users address the instance by (the provider's instance id). */
  instanceId: string;
  provider: ProviderId;
  gpuType: string;
  gpuCount: number;
  /** The whole instance, per hour. */
  pricePerHourMicros: number;
}

export interface Recommendation {
  instance_id: string;
  provider: ProviderId;
  gpu_type: string;
  gpu_count: number;
  /** Per GPU per hour, like the offers. */
  current_price_per_hour: number;
  alternative: { provider: ProviderId; price_per_hour: number; spot: boolean; availability: number };
  estimated_monthly_savings: number;
}

export interface RecommendationReport {
  instances_evaluated: number;
  recommendations: Recommendation[];
  /** Per instance the best of its recommendations (an instance moves once), summed over instances. */
  estimated_monthly_savings: number;
  message?: string;
}

export interface RecommendationSummary {
  estimated_monthly_savings: number;
  recommendation_count: number;
}

/** Savings are shown in cents; a saving that does not reach one cent a month is not a recommendation. */
const MIN_SAVINGS_MICROS = MICROS_PER_DOLLAR / 200;

function centsFromMicros(micros: number): number {
  return Math.round(micros / (MICROS_PER_DOLLAR / 100)) / 100;
}

/** Dollars rounded to the micro, so a per-GPU share of an instance price prints like the offers do. */
function dollarsFromFractionalMicros(micros: number): number {
  return microsToDollars(Math.round(micros));
}

/**
 * Evaluates the instances against the snapshot. Spot and on-demand are separate candidates: per instance the
 * cheapest available on-demand offer and the cheapest available spot offer each become a recommendation when
 * they save money, so a user who will not accept preemption still sees the best on-demand move. Both are
 * listed; the report's total counts only the larger saving of each instance, since an instance moves once.
 * The instance's own offer never appears, because it saves nothing; a user already on the cheapest offer gets
 * no recommendation.
 */
export function recommendCheaperOffers(
  instances: readonly EvaluatedInstance[],
  snapshot: PricingSnapshot | null,
): RecommendationReport {
  if (instances.length === 0) {
    return {
      instances_evaluated: 0,
      recommendations: [],
      estimated_monthly_savings: 0,
      message: NO_ACTIVE_INSTANCES_MESSAGE,
    };
  }
  const offersByGpu = new Map((snapshot?.gpu_types ?? []).map((g) => [g.gpu_type, g.offers]));
  const recommendations: (Recommendation & { savingsMicros: number })[] = [];
  let totalMicros = 0;
  for (const instance of instances) {
    const available = (offersByGpu.get(instance.gpuType) ?? []).filter((o) => o.availability > 0);
    let bestMicros = 0;
    for (const spot of [false, true]) {
      const candidates = available.filter((o) => o.spot === spot);
      if (candidates.length === 0) continue;
      // Snapshot offers are dollars converted from micros, so this round trip is exact.
      const cheapest = candidates.reduce((a, b) => (b.price_per_hour < a.price_per_hour ? b : a));
      const offerMicros = Math.round(cheapest.price_per_hour * MICROS_PER_DOLLAR);
      // (current per GPU - offer) × gpu_count × 730, kept in integers:
      // current per GPU × count is the instance price.
      const savingsMicros = (instance.pricePerHourMicros - offerMicros * instance.gpuCount) * HOURS_PER_MONTH;
      if (savingsMicros < MIN_SAVINGS_MICROS) continue;
      bestMicros = Math.max(bestMicros, savingsMicros);
      recommendations.push({
        instance_id: instance.instanceId,
        provider: instance.provider,
        gpu_type: instance.gpuType,
        gpu_count: instance.gpuCount,
        current_price_per_hour: dollarsFromFractionalMicros(instance.pricePerHourMicros / instance.gpuCount),
        alternative: {
          provider: cheapest.provider,
          price_per_hour: cheapest.price_per_hour,
          spot: cheapest.spot,
          availability: cheapest.availability,
        },
        estimated_monthly_savings: centsFromMicros(savingsMicros),
        savingsMicros,
      });
    }
    totalMicros += bestMicros;
  }
  recommendations.sort(
    (a, b) =>
      b.savingsMicros - a.savingsMicros ||
      a.instance_id.localeCompare(b.instance_id) ||
      Number(a.alternative.spot) - Number(b.alternative.spot),
  );
  return {
    instances_evaluated: instances.length,
    recommendations: recommendations.map(({ savingsMicros: _, ...r }) => r),
    estimated_monthly_savings: centsFromMicros(totalMicros),
  };
}

export function summarizeRecommendations(report: RecommendationReport): RecommendationSummary {
  return {
    estimated_monthly_savings: report.estimated_monthly_savings,
    recommendation_count: report.recommendations.length,
  };
}

import { z } from 'zod';
import type { RecommendationInputQueries } from '../../db/queries/recommendation-inputs';
import {
  recommendCheaperOffers,
  summarizeRecommendations,
  type RecommendationReport,
} from '../../domain/recommendations';
import { ApiError } from '../../errors';
import { PROVIDERS } from '../../providers/types';
import type { PricingCache } from '../../db/pricing-cache';
import type { ApiRouter } from '../route';

const Recommendation = z.object({
  instance_id: z.string().describe("the provider's instance id"),
  provider: z.enum(PROVIDERS),
  gpu_type: z.string(),
  gpu_count: z.number().int(),
  current_price_per_hour: z.number().describe('dollars per GPU per hour'),
  alternative: z.object({
    provider: z.enum(PROVIDERS),
    price_per_hour: z.number().describe('dollars per GPU per hour'),
    spot: z.boolean(),
    availability: z.number().int(),
  }),
  estimated_monthly_savings: z.number().describe('dollars: price difference × gpu_count × 730 hours'),
});
const Report = z.object({
  instances_evaluated: z.number().int(),
  recommendations: z.array(Recommendation),
  estimated_monthly_savings: z.number().describe('dollars; the best recommendation of each instance, summed'),
  message: z.string().optional().describe('set when the account has no running instances'),
});
const Summary = z.object({ estimated_monthly_savings: z.number(), recommendation_count: z.number().int() });

const DESCRIPTION =
  'Each running instance against the cheapest available offer for its GPU, on-demand and spot as separate ' +
  'recommendations (an instance can have both); the total counts the larger saving of each instance once.';

export function registerRecommendationRoutes(
  api: ApiRouter,
  deps: { instances: RecommendationInputQueries; pricing: PricingCache },
): void {
  async function evaluate(accountId: string): Promise<RecommendationReport> {
    const rows = await deps.instances.listRunningInstances(accountId);
    const snapshot = deps.pricing.latest?.snapshot ?? null;
    // Without prices nothing can be compared; saying "no savings" would be wrong, so ask to retry.
    if (rows.length > 0 && !snapshot) {
      throw new ApiError(
        503,
        'provider_unavailable',
        'Prices have not been fetched yet; try again in a few seconds.',
        undefined,
        { 'Retry-After': '5' },
      );
    }
    return recommendCheaperOffers(
      rows.map((r) => ({
        instanceId: r.provider_instance_id,
        provider: r.provider,
        gpuType: r.gpu_type,
        gpuCount: r.gpu_count,
        pricePerHourMicros: r.price_per_hour_micros,
      })),
      snapshot,
    );
  }

  api.add({
    method: 'get',
    path: '/v1/recommendations',
    tag: 'Recommendations',
    summary: "Cheaper offers for the account's running instances",
    description: DESCRIPTION,
    auth: true,
    responses: { 200: { description: 'The evaluation', schema: Report } },
    errors: [503],
    handler: async ({ accountId }) => ({ body: await evaluate(accountId) }),
  });

  api.add({
    method: 'get',
    path: '/v1/recommendations/summary',
    tag: 'Recommendations',
    summary: 'Estimated monthly savings and the number of recommendations',
    auth: true,
    responses: { 200: { description: 'The summary', schema: Summary } },
    errors: [503],
    handler: async ({ accountId }) => ({ body: summarizeRecommendations(await evaluate(accountId)) }),
  });
}

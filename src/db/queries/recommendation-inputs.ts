import { z } from 'zod';
import { PROVIDERS } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';

const RunningInstanceRow = z.object({
  provider_instance_id: z.string(),
  provider: z.enum(PROVIDERS),
  gpu_type: z.string(),
  gpu_count: z.number(),
  price_per_hour_micros: z.number(),
});
export type RunningInstanceRow = z.infer<typeof RunningInstanceRow>;

/** Read-only view of the `instances` table for recommendations; owned by the launch workflow's code. */
export function createRecommendationInputQueries(pool: Pool) {
  return {
    /**
     * The account's running managed instances that can be evaluated: the provider has given them an id (the
     * id users address them by) and their price is known.
     */
    async listRunningInstances(accountId: string): Promise<readonly RunningInstanceRow[]> {
      return pool.any(sql.type(RunningInstanceRow)`
        SELECT provider_instance_id, provider, gpu_type, gpu_count, price_per_hour_micros FROM instances
        WHERE account_id = ${accountId} AND status = 'running'
          AND provider_instance_id IS NOT NULL AND price_per_hour_micros IS NOT NULL
        ORDER BY created_at, id`);
    },
  };
}
export type RecommendationInputQueries = ReturnType<typeof createRecommendationInputQueries>;

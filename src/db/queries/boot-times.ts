/** The service's own past boots (launch recorded → running), from which boot deadlines are learned. */
import { z } from 'zod';
import type { ProviderId } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';

export function createBootTimeQueries(pool: Pool) {
  return {
    /** Milliseconds from the launch's row to running, for the latest `limit` boots of this provider and GPU. */
    async recentBootsMs(provider: ProviderId, gpuType: string, limit = 200): Promise<number[]> {
      const rows = await pool.any(sql.type(z.object({ ms: z.coerce.number() }))`
        SELECT (extract(epoch FROM started_at - created_at) * 1000)::bigint AS ms FROM instances
        WHERE provider = ${provider} AND gpu_type = ${gpuType} AND started_at IS NOT NULL AND started_at >= created_at
        ORDER BY created_at DESC LIMIT ${limit}`);
      return rows.map((r) => r.ms);
    },
  };
}

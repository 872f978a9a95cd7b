/**
 * The shared store of the API processes' rate limits: per (key, fixed window) how many requests have been
 * granted to processes. A process reserves blocks (`rate_limit_reserve`, migration 012) and spends them in
 * memory: one statement per block, never one per request.
 */
import { z } from 'zod';
import type { Pool } from '../pool';
import { sql } from '../sql';

const Grant = z.object({ key: z.string(), granted: z.number(), total: z.number() });

export interface RateLimitStore {
  /**
   * Grants each ask up to `want` more requests in the window, never past `max`; `total` is the window's count after.
   */
  reserve(
    windowStart: number,
    asks: readonly { key: string; want: number; max: number }[],
  ): Promise<{ key: string; granted: number; total: number }[]>;
  /** Drops the windows that started before `before` (epoch ms). */
  forgetWindowsBefore(before: number): Promise<void>;
}

export function createRateLimitQueries(pool: Pool): RateLimitStore {
  return {
    async reserve(windowStart, asks) {
      const sorted = [...asks].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const rows = await pool.any(sql.type(Grant)`
        SELECT key, granted, total FROM rate_limit_reserve(
          ${sql.array(
            sorted.map((a) => a.key),
            'text',
          )}, ${windowStart},
          ${sql.array(
            sorted.map((a) => a.want),
            'int4',
          )}, ${sql.array(
            sorted.map((a) => a.max),
            'int4',
          )})`);
      return [...rows];
    },

    async forgetWindowsBefore(before) {
      await pool.query(sql.typeAlias('void')`DELETE FROM rate_limit_windows WHERE window_start < ${before}`);
    },
  };
}

/**
 * The fleet view: what each (account, provider) observer's last round listed, read by `GET /v1/compute`
 * instead of asking the providers on every request.
 */
import { z } from 'zod';
import type { ProviderId, ProviderInstance } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';

export const FleetViewRow = z.object({
  account_id: z.string(),
  provider: z.enum(['runpod', 'vastai', 'lambda']),
  /**
   * As the adapter normalized them (`ProviderInstance`), written by this module only: checked as an array, not
   * element by element (a list of 1,000 would cost more to check than to serve).
   */
  instances: z.custom<ProviderInstance[]>((v) => Array.isArray(v), 'an array of instances'),
  observed_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  viewed_until: z.string().nullable(),
});
export type FleetViewRow = z.infer<typeof FleetViewRow>;

const COLUMNS = sql.fragment`account_id, provider, instances, observed_at, failed_at, error_code, error_message,
  viewed_until`;

export function createFleetViewQueries(pool: Pool) {
  return {
    async listForAccount(accountId: string): Promise<readonly FleetViewRow[]> {
      return pool.any(sql.type(FleetViewRow)`SELECT ${COLUMNS} FROM fleet_views WHERE account_id = ${accountId}`);
    },

    /**
     * The views without their instances: when each provider was observed or failed, and the viewer lease. A
     * list reads this first and the instances only when they changed since its last answer.
     */
    async listMeta(accountId: string): Promise<readonly FleetViewRow[]> {
      return pool.any(sql.type(FleetViewRow)`
        SELECT account_id, provider, '[]'::jsonb AS instances, observed_at, failed_at, error_code, error_message,
          viewed_until
        FROM fleet_views WHERE account_id = ${accountId}`);
    },

    /** A good round replaces the view whole and clears the failure. */
    async recordRound(
      accountId: string,
      provider: ProviderId,
      instances: readonly ProviderInstance[],
      observedAt: Date,
    ): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        INSERT INTO fleet_views (account_id, provider, instances, observed_at)
        VALUES (${accountId}, ${provider}, ${sql.jsonb(instances as never)}, ${observedAt.toISOString()})
        ON CONFLICT (account_id, provider) DO UPDATE SET
          instances = excluded.instances, observed_at = excluded.observed_at,
          failed_at = NULL, error_code = NULL, error_message = NULL
        -- A slow round that answered before a newer one already written never overwrites it.
        WHERE fleet_views.observed_at IS NULL OR fleet_views.observed_at <= excluded.observed_at`);
    },

    /** A failed round keeps the last view (now stale) and says why. */
    async recordFailure(
      accountId: string,
      provider: ProviderId,
      failure: { code: string; message: string },
      at: Date,
    ): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        INSERT INTO fleet_views (account_id, provider, failed_at, error_code, error_message)
        VALUES (${accountId}, ${provider}, ${at.toISOString()}, ${failure.code}, ${failure.message})
        ON CONFLICT (account_id, provider) DO UPDATE SET
          failed_at = excluded.failed_at, error_code = excluded.error_code, error_message = excluded.error_message`);
    },

    /** Someone is looking until `until`: the observers keep their cadence for them. */
    async markViewed(accountId: string, providers: readonly ProviderId[], until: Date): Promise<void> {
      if (providers.length === 0) return;
      await pool.query(sql.typeAlias('void')`
        INSERT INTO fleet_views (account_id, provider, viewed_until)
        SELECT ${accountId}, p, ${until.toISOString()} FROM unnest(${sql.array(providers, 'text')}) AS p
        ON CONFLICT (account_id, provider) DO UPDATE SET viewed_until = greatest(fleet_views.viewed_until,
          excluded.viewed_until)`);
    },

    /** Whether someone listed the account's instances recently enough that its observer keeps going. */
    async isViewed(accountId: string, provider: ProviderId): Promise<boolean> {
      const row = await pool.maybeOne(sql.type(z.object({ viewed: z.boolean() }))`
        SELECT coalesce(viewed_until > now(), false) AS viewed FROM fleet_views WHERE account_id = ${accountId} AND
          provider = ${provider}`);
      return row?.viewed ?? false;
    },
  };
}
export type FleetViewQueries = ReturnType<typeof createFleetViewQueries>;

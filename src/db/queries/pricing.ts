import { z } from 'zod';
import {
  buildSnapshot,
  HISTORY_PERIODS,
  historyRows,
  MAX_OFFER_AGE_MS,
  type HistoryPeriod,
  type PricingSnapshot,
  type StoredOffer,
} from '../../domain/pricing';
import { type ProviderId, PROVIDERS } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';

export const PRICING_CHANNEL = 'pricing_snapshot';
const RETENTION_DAYS = 31;

export type ProviderOutcome = { ok: true; offers: StoredOffer[] } | { ok: false; error: string };

const OfferRow = z.object({
  provider: z.enum(PROVIDERS),
  gpu_type: z.string(),
  spot: z.boolean(),
  region: z.string().nullable(),
  price_per_hour_micros: z.number(),
  availability: z.number(),
});

const SnapshotRow = z.object({
  id: z.number(),
  body: z.custom<PricingSnapshot>((v) => typeof v === 'object' && v !== null),
});

export function createPricingQueries(pool: Pool) {
  return {
    /**
     * Records one refresh atomically: replaces the offers of every provider that answered, keeps the last
     * good offers of the ones that failed (used while under an hour old), stores the assembled snapshot and
     * the history rows, and notifies listeners. Returns the snapshot.
     */
    async recordRefresh(
      outcomes: Record<ProviderId, ProviderOutcome>,
      now: Date,
    ): Promise<{ snapshotId: number; snapshot: PricingSnapshot }> {
      return pool.transaction(async (tx) => {
        const summary = Object.fromEntries(
          Object.entries(outcomes).map(([p, o]) => [
            p,
            o.ok ? { ok: true, offers: o.offers.length } : { ok: false, error: o.error },
          ]),
        );
        const refreshId = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
          INSERT INTO pricing_refreshes (refreshed_at, outcome) VALUES (${now.toISOString()}, ${sql.jsonb(summary)})
            RETURNING id`);

        const fresh: StoredOffer[] = [];
        for (const [provider, outcome] of Object.entries(outcomes) as [ProviderId, ProviderOutcome][]) {
          if (!outcome.ok) continue;
          fresh.push(...outcome.offers);
          await tx.query(sql.typeAlias('void')`DELETE FROM pricing_offers WHERE provider = ${provider}`);
          if (outcome.offers.length === 0) continue;
          await tx.query(sql.typeAlias('void')`
            INSERT INTO pricing_offers (provider, gpu_type, spot, region, price_per_hour_micros, availability,
              refresh_id, fetched_at)
            SELECT *, ${refreshId}::bigint, ${now.toISOString()}::timestamptz FROM ${sql.unnest(
              outcome.offers.map((o) => [
                o.provider,
                o.gpuType,
                o.spot,
                o.region,
                o.pricePerHourMicros,
                o.availability,
              ]),
              ['text', 'text', 'bool', 'text', 'int8', 'int4'],
            )}`);
        }

        const current = await tx.any(sql.type(OfferRow)`
          SELECT provider, gpu_type, spot, region, price_per_hour_micros, availability FROM pricing_offers
          WHERE fetched_at > ${new Date(now.getTime() - MAX_OFFER_AGE_MS).toISOString()}`);
        const snapshot = buildSnapshot(
          current.map((r) => ({
            provider: r.provider,
            gpuType: r.gpu_type,
            spot: r.spot,
            region: r.region,
            pricePerHourMicros: r.price_per_hour_micros,
            availability: r.availability,
          })),
          now,
        );
        const snapshotId = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
          INSERT INTO pricing_snapshots (refresh_id, created_at, body) VALUES (${refreshId}, ${now.toISOString()},
            ${sql.jsonb(snapshot as never)})
          RETURNING id`);

        const rows = historyRows(fresh);
        if (rows.length > 0) {
          await tx.query(sql.typeAlias('void')`
            INSERT INTO pricing_history (refresh_id, recorded_at, gpu_type, provider, spot, min_price_per_hour_micros)
            SELECT ${refreshId}::bigint, ${now.toISOString()}::timestamptz, * FROM ${sql.unnest(
              rows.map((r) => [r.gpuType, r.provider, r.spot, r.minMicros]),
              ['text', 'text', 'bool', 'int8'],
            )}`);
        }
        // Bounded tables: only the newest snapshots matter, history is kept for the longest period.
        await tx.query(sql.typeAlias('void')`
          DELETE FROM pricing_snapshots WHERE id < ${snapshotId} - 20`);
        await tx.query(sql.typeAlias('void')`
          DELETE FROM pricing_refreshes WHERE refreshed_at < ${now.toISOString()}::timestamptz
            - make_interval(days => ${RETENTION_DAYS})
            AND id NOT IN (SELECT refresh_id FROM pricing_offers) AND id NOT IN (SELECT refresh_id
              FROM pricing_snapshots)`);
        await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${PRICING_CHANNEL}, ${String(snapshotId)})`);
        return { snapshotId, snapshot };
      });
    },

    async findLatestSnapshot(): Promise<{ id: number; body: PricingSnapshot } | null> {
      return pool.maybeOne(sql.type(SnapshotRow)`SELECT id, body FROM pricing_snapshots ORDER BY id DESC LIMIT 1`);
    },

    /**
     * Lowest price per provider over the period, per refresh or per bucket: of the on-demand offers, or with
     * `spot` of the spot offers (a provider that sells no spot has no rows of them, so no points).
     */
    async findHistory(
      gpuType: string,
      period: HistoryPeriod,
      now: Date,
      { spot = false }: { spot?: boolean } = {},
    ): Promise<{ timestamp: string; provider: string; min_price_per_hour_micros: number }[]> {
      const { ms, bucket } = HISTORY_PERIODS[period];
      const from = new Date(now.getTime() - ms).toISOString();
      const time = bucket
        ? sql.fragment`date_bin(${bucket}::interval, recorded_at, TIMESTAMPTZ '2000-01-01 00:00:00+00')`
        : sql.fragment`recorded_at`;
      const rows = await pool.any(sql.type(
        z.object({ timestamp: z.string(), provider: z.string(), min_price_per_hour_micros: z.number() }),
      )`
        SELECT ${time} AS timestamp, provider, min(min_price_per_hour_micros) AS min_price_per_hour_micros
        FROM pricing_history
        WHERE gpu_type = ${gpuType} AND spot = ${spot} AND recorded_at > ${from}
        GROUP BY 1, provider ORDER BY 1, provider`);
      return [...rows];
    },
  };
}
export type PricingQueries = ReturnType<typeof createPricingQueries>;

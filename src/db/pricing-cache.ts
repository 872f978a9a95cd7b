/**
 * The API's in-memory pricing: the latest snapshot, pre-serialized with its ETag, indexed by GPU. It is
 * reloaded when Postgres announces a new snapshot (LISTEN/NOTIFY), with a slow poll as a safety net for a
 * dropped listener connection. Requests never touch the database.
 */
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { PRICING_CHANNEL, type PricingQueries } from './queries/pricing';
import type { PricingSnapshot } from '../domain/pricing';
import type { Logger } from '../logger';

export interface CachedPricing {
  id: number;
  snapshot: PricingSnapshot;
  /** The exact response body of GET /v1/pricing. */
  body: Buffer;
  etag: string;
  byGpu: Map<string, PricingSnapshot['gpu_types'][number]>;
}

export class PricingCache {
  private current: CachedPricing | null = null;
  private listener: Client | undefined;
  private poll: NodeJS.Timeout | undefined;
  private loading: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly queries: PricingQueries,
    private readonly logger: Logger,
    private readonly options: { databaseUrl?: string; pollMs?: number } = {},
  ) {}

  get latest(): CachedPricing | null {
    return this.current;
  }

  async start(): Promise<void> {
    await this.reload();
    if (this.options.databaseUrl) await this.listen(this.options.databaseUrl);
    this.poll = setInterval(() => void this.reload(), this.options.pollMs ?? 30_000);
    this.poll.unref();
  }

  /**
   * Loads the newest snapshot if it is newer than the one in memory. Calls during a load share it, and make
   * it load once more when it finishes: the running query may have read before their snapshot committed.
   */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.again = false;
          try {
            const row = await this.queries.findLatestSnapshot();
            if (row && row.id !== this.current?.id) this.current = prepare(row.id, row.body);
          } catch (err) {
            this.logger.warn('pricing snapshot reload failed', { err });
          }
        } while (this.again && !this.stopped);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private async listen(databaseUrl: string): Promise<void> {
    const client = new Client({ connectionString: databaseUrl });
    client.on('notification', () => void this.reload());
    client.on('error', (err) => {
      this.logger.warn('pricing listener lost its connection; relying on polling until it reconnects', { err });
      this.listener = undefined;
      if (!this.stopped) setTimeout(() => void this.listen(databaseUrl).catch(() => undefined), 5_000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${PRICING_CHANNEL}`);
    this.listener = client;
    await this.reload(); // a snapshot may have landed between the first load and LISTEN
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    await this.listener?.end().catch(() => undefined);
  }
}

/** Postgres jsonb reorders object keys; put them back in the documented order before serializing. */
function inDocumentedOrder(s: PricingSnapshot): PricingSnapshot {
  return {
    gpu_types: s.gpu_types.map((g) => ({
      gpu_type: g.gpu_type,
      display_name: g.display_name,
      offers: g.offers.map((o) => ({
        provider: o.provider,
        price_per_hour: o.price_per_hour,
        availability: o.availability,
        spot: o.spot,
        ...(o.region ? { region: o.region } : {}),
      })),
    })),
    last_updated: s.last_updated,
  };
}

function prepare(id: number, stored: PricingSnapshot): CachedPricing {
  const snapshot = inDocumentedOrder(stored);
  const body = Buffer.from(JSON.stringify(snapshot));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { id, snapshot, body, etag, byGpu: new Map(snapshot.gpu_types.map((g) => [g.gpu_type, g])) };
}

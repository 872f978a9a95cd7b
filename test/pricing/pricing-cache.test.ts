/**
 * The API's pricing cache: a snapshot announced while a load is already reading must not be missed (the
 * running query may have read before it committed); calls during a load share it and load once more after.
 */
import type { PricingQueries } from '../../src/db/queries/pricing';
import { silentLogger } from '../../src/logger';
import { PricingCache } from '../../src/db/pricing-cache';

const snapshot = (price: number) => ({
  gpu_types: [
    {
      gpu_type: 'h100-80gb-sxm',
      display_name: 'H100 80GB SXM',
      offers: [{ provider: 'lambda', price_per_hour: price, availability: 1, spot: false }],
    },
  ],
  last_updated: new Date(0).toISOString(),
});

it('loads again when a reload is asked for while a load reads, so the newer snapshot is not missed', async () => {
  let stored = { id: 1, body: snapshot(2.49) };
  const reads: ((row: typeof stored) => void)[] = [];
  const queries = {
    findLatestSnapshot: () => {
      const seen = stored; // what the query sees is fixed when it starts
      return new Promise<typeof stored>((resolve) => reads.push(() => resolve(seen)));
    },
  } as unknown as PricingQueries;
  const cache = new PricingCache(queries, silentLogger);

  const first = cache.reload();
  expect(reads).toHaveLength(1);
  // A new snapshot commits and is announced while the first read is in flight.
  stored = { id: 2, body: snapshot(1.99) };
  const second = cache.reload();
  expect(reads).toHaveLength(1); // shared, not a second concurrent query
  reads[0]!(stored);
  await new Promise((r) => setImmediate(r));
  expect(reads).toHaveLength(2); // one more load, after the first
  reads[1]!(stored);
  await Promise.all([first, second]);
  expect(cache.latest?.id).toBe(2);
  expect(cache.latest?.snapshot.gpu_types[0]!.offers[0]!.price_per_hour).toBe(1.99);
});

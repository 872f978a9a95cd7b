/**
 * Recommendations on the real database: running instances are seeded into `instances`, prices are recorded
 * as a real refresh and loaded by the API's PricingCache, and the answers are read through the HTTP API.
 */
import { randomBytes } from 'node:crypto';
import { createPricingQueries } from '../../src/db/queries/pricing';
import { sql } from '../../src/db/sql';
import type { StoredOffer } from '../../src/domain/pricing';
import type { ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.deps.pricing.stop();
  await t.close();
});

type Auth = { Authorization: string };

const offer = (
  provider: ProviderId,
  gpuType: string,
  dollars: number,
  availability: number,
  spot = false,
): StoredOffer => ({
  provider,
  gpuType,
  spot,
  region: null,
  pricePerHourMicros: Math.round(dollars * 1_000_000),
  availability,
});

/** Prices per GPU per hour. The cheapest offer of several GPUs cannot be rented now (availability 0). */
const OFFERS: StoredOffer[] = [
  offer('runpod', 'h100-80gb-sxm', 2.99, 5),
  offer('vastai', 'h100-80gb-sxm', 2.1, 3),
  offer('vastai', 'h100-80gb-sxm', 1.5, 2, true),
  offer('lambda', 'h100-80gb-sxm', 1.9, 0),
  offer('runpod', 'h100-80gb-sxm', 1.2, 0, true),
  offer('runpod', 'a100-80gb-pcie', 1.19, 4),
  offer('lambda', 'a100-80gb-pcie', 1.29, 1),
  offer('vastai', 'a100-80gb-pcie', 1.39, 2),
  offer('vastai', 'rtx-4090', 0.34, 10),
  offer('runpod', 'rtx-4090', 0.69, 3),
  offer('vastai', 'rtx-4090', 0.276, 0, true),
  offer('runpod', 'l40s-48gb', 0.99, 2),
  offer('vastai', 'l40s-48gb', 0.79, 0),
];

interface SeededInstance {
  providerInstanceId: string | null;
  provider: ProviderId;
  gpuType: string;
  gpuCount: number;
  /** The whole instance, per hour. */
  priceMicros: number;
  status?: string;
}

const uid = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

async function seedInstance(accountId: string, i: SeededInstance): Promise<void> {
  await t.db.pool.query(sql.typeAlias('void')`
    INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
                           gpu_count, price_per_hour_micros)
    VALUES (${uid(`launch-${accountId}`)}, ${accountId}, 'seeded', ${i.provider}, ${i.providerInstanceId}, 'seeded',
            ${i.status ?? 'running'}, ${i.gpuType}, ${i.gpuCount}, ${i.priceMicros})`);
}

const full = (auth: Auth) => t.http.get('/v1/recommendations').set(auth);
const summary = (auth: Auth) => t.http.get('/v1/recommendations/summary').set(auth);

/** (current per GPU - offer) × gpu_count × 730, in dollars rounded to cents, computed independently in micros. */
const savings = (instancePriceMicros: number, offerDollars: number, gpuCount: number) =>
  Math.round(((instancePriceMicros - Math.round(offerDollars * 1e6) * gpuCount) * 730) / 10_000) / 100;

describe('before any prices are known', () => {
  it('answers the no-active-instances message for an account with nothing running', async () => {
    const { auth } = await t.newAccount();
    const res = await full(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      instances_evaluated: 0,
      recommendations: [],
      estimated_monthly_savings: 0,
      message: 'No active instances to evaluate.',
    });
  });

  it('answers 503 with Retry-After rather than "no savings" when instances are running', async () => {
    const { accountId, auth } = await t.newAccount();
    await seedInstance(accountId, {
      providerInstanceId: uid('pod'),
      provider: 'runpod',
      gpuType: 'h100-80gb-sxm',
      gpuCount: 1,
      priceMicros: 2_990_000,
    });
    for (const res of [await full(auth), await summary(auth)]) {
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('provider_unavailable');
      expect(res.headers['retry-after']).toBe('5');
    }
  });
});

describe('with a pricing snapshot', () => {
  beforeAll(async () => {
    const byProvider = (p: ProviderId) => ({ ok: true as const, offers: OFFERS.filter((o) => o.provider === p) });
    const { snapshotId } = await createPricingQueries(t.db.pool).recordRefresh(
      { runpod: byProvider('runpod'), vastai: byProvider('vastai'), lambda: byProvider('lambda') },
      new Date(),
    );
    await t.deps.pricing.start();
    expect(t.deps.pricing.latest?.id).toBe(snapshotId);
  });

  it('recommends the cheapest available on-demand and spot offers, each with diff × gpu_count × 730', async () => {
    const { accountId, auth } = await t.newAccount();
    const pod = uid('pod');
    await seedInstance(accountId, {
      providerInstanceId: pod,
      provider: 'runpod',
      gpuType: 'h100-80gb-sxm',
      gpuCount: 2,
      priceMicros: 5_980_000,
    });
    const res = await full(auth);
    expect(res.status).toBe(200);
    const base = {
      instance_id: pod,
      provider: 'runpod',
      gpu_type: 'h100-80gb-sxm',
      gpu_count: 2,
      current_price_per_hour: 2.99,
    };
    expect(res.body).toEqual({
      instances_evaluated: 1,
      recommendations: [
        {
          ...base,
          alternative: { provider: 'vastai', price_per_hour: 1.5, spot: true, availability: 2 },
          estimated_monthly_savings: 2175.4,
        },
        {
          ...base,
          alternative: { provider: 'vastai', price_per_hour: 2.1, spot: false, availability: 3 },
          estimated_monthly_savings: 1299.4,
        },
      ],
      // An instance moves once: the total counts its better alternative only.
      estimated_monthly_savings: 2175.4,
    });
    expect(
      res.body.recommendations.map((r: { estimated_monthly_savings: number }) => r.estimated_monthly_savings),
    ).toEqual([savings(5_980_000, 1.5, 2), savings(5_980_000, 2.1, 2)]);
    expect(res.body.message).toBeUndefined();
  });

  it('ignores offers that cannot be rented now (availability 0), even when they are the cheapest', async () => {
    const { accountId, auth } = await t.newAccount();
    // l40s: the only cheaper offer has no availability; rtx-4090: the only spot offer has none.
    await seedInstance(accountId, {
      providerInstanceId: uid('pod'),
      provider: 'runpod',
      gpuType: 'l40s-48gb',
      gpuCount: 1,
      priceMicros: 990_000,
    });
    const vast = uid('vast');
    await seedInstance(accountId, {
      providerInstanceId: vast,
      provider: 'vastai',
      gpuType: 'rtx-4090',
      gpuCount: 3,
      priceMicros: 1_500_000,
    });
    const res = await full(auth);
    expect(res.body.instances_evaluated).toBe(2);
    // The same provider's cheaper offer is a valid alternative; the unavailable $0.276 spot offer is not.
    expect(res.body.recommendations).toEqual([
      {
        instance_id: vast,
        provider: 'vastai',
        gpu_type: 'rtx-4090',
        gpu_count: 3,
        current_price_per_hour: 0.5,
        alternative: { provider: 'vastai', price_per_hour: 0.34, spot: false, availability: 10 },
        estimated_monthly_savings: savings(1_500_000, 0.34, 3),
      },
    ]);
    expect(res.body.estimated_monthly_savings).toBe(350.4);
  });

  it('makes no recommendation for an instance already on the cheapest available offer', async () => {
    const { accountId, auth } = await t.newAccount();
    await seedInstance(accountId, {
      providerInstanceId: uid('pod'),
      provider: 'runpod',
      gpuType: 'a100-80gb-pcie',
      gpuCount: 1,
      priceMicros: 1_190_000,
    });
    const res = await full(auth);
    expect(res.body).toEqual({ instances_evaluated: 1, recommendations: [], estimated_monthly_savings: 0 });
    expect((await summary(auth)).body).toEqual({ estimated_monthly_savings: 0, recommendation_count: 0 });
  });

  it('compares per GPU-hour when the instance price does not divide evenly, with exact savings', async () => {
    const { accountId, auth } = await t.newAccount();
    const id = uid('lambda');
    // $3.58/h for 3 GPUs = $1.193333 per GPU-hour; runpod's $1.19 saves $0.01/h for the instance.
    await seedInstance(accountId, {
      providerInstanceId: id,
      provider: 'lambda',
      gpuType: 'a100-80gb-pcie',
      gpuCount: 3,
      priceMicros: 3_580_000,
    });
    const res = await full(auth);
    expect(res.body.recommendations).toEqual([
      expect.objectContaining({
        instance_id: id,
        current_price_per_hour: 1.193333,
        alternative: { provider: 'runpod', price_per_hour: 1.19, spot: false, availability: 4 },
        estimated_monthly_savings: 7.3,
      }),
    ]);
  });

  it("evaluates only running instances with a provider id, and only the account's own", async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    for (const status of ['provisioning', 'stopped', 'terminated', 'failed']) {
      await seedInstance(a.accountId, {
        providerInstanceId: uid('pod'),
        provider: 'runpod',
        gpuType: 'h100-80gb-sxm',
        gpuCount: 1,
        priceMicros: 2_990_000,
        status,
      });
    }
    await seedInstance(a.accountId, {
      providerInstanceId: null,
      provider: 'runpod',
      gpuType: 'h100-80gb-sxm',
      gpuCount: 1,
      priceMicros: 2_990_000,
    });
    const res = await full(a.auth);
    expect(res.body).toEqual({
      instances_evaluated: 0,
      recommendations: [],
      estimated_monthly_savings: 0,
      message: 'No active instances to evaluate.',
    });

    const running = uid('pod');
    await seedInstance(a.accountId, {
      providerInstanceId: running,
      provider: 'runpod',
      gpuType: 'h100-80gb-sxm',
      gpuCount: 1,
      priceMicros: 2_990_000,
    });
    const after = await full(a.auth);
    expect(after.body.instances_evaluated).toBe(1);
    expect(new Set(after.body.recommendations.map((r: { instance_id: string }) => r.instance_id))).toEqual(
      new Set([running]),
    );
    // B sees none of A's instances.
    expect((await full(b.auth)).body.message).toBe('No active instances to evaluate.');
    expect((await summary(b.auth)).body).toEqual({ estimated_monthly_savings: 0, recommendation_count: 0 });
  });

  it('gives a summary that agrees with the full response', async () => {
    const { accountId, auth } = await t.newAccount();
    await seedInstance(accountId, {
      providerInstanceId: uid('pod'),
      provider: 'runpod',
      gpuType: 'h100-80gb-sxm',
      gpuCount: 2,
      priceMicros: 5_980_000,
    });
    await seedInstance(accountId, {
      providerInstanceId: uid('pod'),
      provider: 'runpod',
      gpuType: 'a100-80gb-pcie',
      gpuCount: 1,
      priceMicros: 1_190_000,
    });
    await seedInstance(accountId, {
      providerInstanceId: uid('vast'),
      provider: 'vastai',
      gpuType: 'rtx-4090',
      gpuCount: 3,
      priceMicros: 1_500_000,
    });
    const fullRes = await full(auth);
    const summaryRes = await summary(auth);
    expect(summaryRes.status).toBe(200);
    expect(fullRes.body.instances_evaluated).toBe(3);
    expect(fullRes.body.recommendations).toHaveLength(3);
    expect(fullRes.body.estimated_monthly_savings).toBe(2525.8); // 2175.40 (h100, spot) + 350.40 (4090)
    expect(summaryRes.body).toEqual({
      estimated_monthly_savings: fullRes.body.estimated_monthly_savings,
      recommendation_count: fullRes.body.recommendations.length,
    });
    // Largest saving first.
    const listed = fullRes.body.recommendations.map(
      (r: { estimated_monthly_savings: number }) => r.estimated_monthly_savings,
    );
    expect(listed).toEqual([...listed].sort((x, y) => y - x));
  });

  it('requires a service key', async () => {
    expect((await t.http.get('/v1/recommendations')).status).toBe(401);
    expect((await t.http.get('/v1/recommendations/summary')).status).toBe(401);
  });
});

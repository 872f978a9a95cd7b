/**
 * Pricing end to end: a Temporal Schedule starts the refresh workflow on the real dev server, activities
 * read the three provider simulators through the real adapters, the snapshot lands in Postgres, and the
 * API's in-memory cache picks it up through LISTEN/NOTIFY.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Client as PgClient } from 'pg';
import { createApp } from '../../src/http/app';
import { createPricingQueries } from '../../src/db/queries/pricing';
import { silentLogger } from '../../src/logger';
import { createProviderAdapters } from '../../src/providers';
import { PricingCache } from '../../src/db/pricing-cache';
import { ensurePricingSchedule } from '../../src/workflow-clients/service-schedules';
import { simulatorBaseUrls, startSimulators, type Simulators } from '../../simulators';
import type { PricingRefreshResult } from '../../workflows/contracts/maintenance';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { testActivityDeps, testAppDeps } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';

let db: TestDatabase;
let temporal: TemporalTestEnv;
let sims: Simulators;
let cache: PricingCache;
let http: ReturnType<typeof request>;
let taskQueue: string;
let scheduleId: string;

beforeAll(async () => {
  [db, temporal, sims] = await Promise.all([createTestDatabase(), createTemporalTestEnv(), startSimulators()]);
  const adapters = createProviderAdapters({
    ...simulatorBaseUrls(sims),
    timeoutMs: 2000,
    logger: silentLogger,
  });
  ({ taskQueue } = await temporal.startWorker(
    testActivityDeps(db.pool, {
      adapters,
      // Vast's offer search needs no key; RunPod's catalog and Lambda's instance types do.
      pricingKeys: { runpod: sims.runpod.createKey(), lambda: sims.lambda.createKey() },
    }),
  ));
  cache = new PricingCache(createPricingQueries(db.pool), silentLogger, { databaseUrl: db.url, pollMs: 60_000 });
  await cache.start();
  http = request(createApp(testAppDeps(db.pool, { pricing: cache })).callback());
  scheduleId = `pricing-refresh-test-${randomBytes(4).toString('hex')}`;
});

afterAll(async () => {
  await temporal.env.client.schedule
    .getHandle(scheduleId)
    .delete()
    .catch(() => undefined);
  await cache.stop();
  await temporal.close();
  await sims.close();
  await db.drop();
});

const runRefresh = () =>
  temporal.env.client.workflow.execute('pricingRefresh', {
    taskQueue,
    workflowId: `pricing-refresh-manual-${randomBytes(4).toString('hex')}`,
  }) as Promise<PricingRefreshResult>;

const providersIn = (body: { gpu_types: { offers: { provider: string }[] }[] }) =>
  new Set(body.gpu_types.flatMap((g) => g.offers.map((o) => o.provider)));

describe('before the first refresh', () => {
  it('answers 503 with Retry-After rather than an empty price list', async () => {
    const res = await http.get('/v1/pricing');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
  });
});

describe('the pricing-refresh schedule', () => {
  it('runs at start-up and the snapshot lists GPUs with offers from all three providers', async () => {
    await ensurePricingSchedule(temporal.env.client, { taskQueue, everyMs: 3_600_000, scheduleId, triggerNow: true });
    const cached = await eventually('the first snapshot in the API cache', () => cache.latest ?? undefined, 30_000);
    const res = await http.get('/v1/pricing');
    expect(res.status).toBe(200);
    expect(res.body.last_updated).toBe(cached.snapshot.last_updated);
    expect(providersIn(res.body)).toEqual(new Set(['runpod', 'vastai', 'lambda']));
    for (const gpu of res.body.gpu_types) {
      expect(gpu).toEqual({
        gpu_type: expect.any(String),
        display_name: expect.any(String),
        offers: expect.any(Array),
      });
      const prices = gpu.offers.map((o: { price_per_hour: number }) => o.price_per_hour);
      expect(prices).toEqual([...prices].sort((a, b) => a - b));
      for (const offer of gpu.offers) {
        expect(Object.keys(offer).slice(0, 4)).toEqual(['provider', 'price_per_hour', 'availability', 'spot']);
        expect(offer.price_per_hour).toBeGreaterThan(0);
        expect(Number.isInteger(offer.availability)).toBe(true);
      }
    }
    // The schedule is visible by its id, with the refresh workflow as its action.
    const described = await temporal.env.client.schedule.getHandle(scheduleId).describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'pricingRefresh' });
    expect(described.info.recentActions.length).toBeGreaterThanOrEqual(1);
  });

  it('serves ETag and Cache-Control, and 304 for a matching If-None-Match', async () => {
    const first = await http.get('/v1/pricing');
    expect(first.headers.etag).toMatch(/^".+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const again = await http.get('/v1/pricing').set('If-None-Match', String(first.headers.etag));
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const other = await http
      .get('/v1/pricing')
      .set('If-None-Match', '"something-else"')
      .set('X-Request-Id', 'pricing-probe-1');
    expect(other.status).toBe(200);
    // The prepared response carries each request's own id (its header list is shared between requests).
    expect(other.headers['x-request-id']).toBe('pricing-probe-1');
    expect(first.headers['x-request-id']).toMatch(/^req_/);
    expect(again.headers['x-request-id']).toMatch(/^req_/);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(JSON.parse(other.text)).toEqual(first.body);
  });
});

describe('refresh failures', () => {
  it('retries a transient provider failure within the same refresh', async () => {
    sims.vastai.control.serverErrors(1, { status: 503 });
    const result = await runRefresh();
    expect(result.failedProviders).toEqual([]);
  });

  it("keeps a failing provider's last good offers in the snapshot", async () => {
    const before = cache.latest!.id;
    sims.runpod.control.serverErrors(100, { status: 400 });
    try {
      const result = await runRefresh();
      expect(result.failedProviders).toEqual(['runpod']);
    } finally {
      sims.runpod.control.resetFaults();
    }
    await eventually('the new snapshot', () => (cache.latest!.id > before ? true : undefined));
    expect(providersIn((await http.get('/v1/pricing')).body)).toEqual(new Set(['runpod', 'vastai', 'lambda']));
  });

  it("drops a failing provider's offers once they are older than an hour", async () => {
    const pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    await pg.query(`UPDATE pricing_offers SET fetched_at = now() - interval '61 minutes' WHERE provider = 'lambda'`);
    await pg.end();
    const before = cache.latest!.id;
    sims.lambda.control.serverErrors(100, { status: 400 });
    try {
      expect((await runRefresh()).failedProviders).toEqual(['lambda']);
    } finally {
      sims.lambda.control.resetFaults();
    }
    await eventually('the new snapshot', () => (cache.latest!.id > before ? true : undefined));
    expect(providersIn((await http.get('/v1/pricing')).body)).toEqual(new Set(['runpod', 'vastai']));
    await runRefresh(); // lambda back for the tests below
  });
});

describe('compare', () => {
  it('answers the offers of one GPU with the cheapest available one', async () => {
    const snapshot = (await http.get('/v1/pricing')).body;
    const gpu = snapshot.gpu_types.find((g: { offers: unknown[] }) => g.offers.length >= 2);
    const res = await http.get(`/v1/pricing/compare?gpu=${gpu.gpu_type}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...gpu, cheapest: expect.any(Object), last_updated: snapshot.last_updated });
    const available = gpu.offers.filter((o: { availability: number }) => o.availability > 0);
    expect(res.body.cheapest).toEqual(available[0]);
    expect(Math.min(...available.map((o: { price_per_hour: number }) => o.price_per_hour))).toBe(
      res.body.cheapest.price_per_hour,
    );
  });

  it('answers 400 for an unknown GPU and without one', async () => {
    const unknown = await http.get('/v1/pricing/compare?gpu=tpu-v5');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('validation_error');
    const missing = await http.get('/v1/pricing/compare');
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ path: 'query.gpu', message: 'required' }]);
  });
});

describe('history', () => {
  it('has real points for each provider after several refreshes', async () => {
    const snapshot = (await http.get('/v1/pricing')).body;
    const gpu = snapshot.gpu_types.find(
      (g: { offers: { provider: string; spot: boolean }[] }) =>
        new Set(g.offers.filter((o) => !o.spot).map((o) => o.provider)).size === 3,
    );
    const res = await http.get(`/v1/pricing/history?gpu=${gpu.gpu_type}&period=24h`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      gpu_type: gpu.gpu_type,
      period: '24h',
      resolution: 'every refresh',
      offer_kind: 'on_demand',
    });
    const timestamps = new Set(res.body.data.map((p: { timestamp: string }) => p.timestamp));
    expect(timestamps.size).toBeGreaterThanOrEqual(2);
    expect(new Set(res.body.data.map((p: { provider: string }) => p.provider))).toEqual(
      new Set(['runpod', 'vastai', 'lambda']),
    );
    // The newest point of each provider is its cheapest current on-demand price.
    for (const provider of ['runpod', 'vastai', 'lambda']) {
      const points = res.body.data.filter((p: { provider: string }) => p.provider === provider);
      const cheapest = Math.min(
        ...gpu.offers
          .filter((o: { provider: string; spot: boolean }) => o.provider === provider && !o.spot)
          .map((o: { price_per_hour: number }) => o.price_per_hour),
      );
      expect(points[points.length - 1].min_price_per_hour).toBe(cheapest);
    }
    const week = await http.get(`/v1/pricing/history?gpu=${gpu.gpu_type}&period=7d`);
    expect(week.body.resolution).toBe('1h');
    expect(week.body.data.length).toBeGreaterThanOrEqual(3);
  });

  it("with spot=true serves the stored spot prices (Vast.ai's alone); on-demand stays the default", async () => {
    const snapshot = (await http.get('/v1/pricing')).body;
    type Offer = { provider: string; spot: boolean; price_per_hour: number };
    const gpu = snapshot.gpu_types.find((g: { offers: Offer[] }) =>
      [true, false].every((spot) => g.offers.some((o) => o.provider === 'vastai' && o.spot === spot)),
    );
    const res = await http.get(`/v1/pricing/history?gpu=${gpu.gpu_type}&period=24h&spot=true`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ gpu_type: gpu.gpu_type, period: '24h', offer_kind: 'spot' });
    // RunPod and Lambda sell no spot: no points of theirs, and no error.
    expect(new Set(res.body.data.map((p: { provider: string }) => p.provider))).toEqual(new Set(['vastai']));

    // Every point is a spot row the refreshes recorded, one per refresh.
    const pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    const stored = await pg
      .query<{ recorded_at: Date; micros: string }>(
        `SELECT recorded_at, min_price_per_hour_micros AS micros FROM pricing_history
         WHERE gpu_type = $1 AND provider = 'vastai' AND spot ORDER BY recorded_at`,
        [gpu.gpu_type],
      )
      .finally(() => pg.end());
    expect(stored.rows.length).toBeGreaterThanOrEqual(2);
    expect(res.body.data).toEqual(
      stored.rows.map((r) => ({
        timestamp: r.recorded_at.toISOString(),
        provider: 'vastai',
        min_price_per_hour: Number(r.micros) / 1_000_000,
      })),
    );
    const cheapest = (spot: boolean) =>
      Math.min(
        ...gpu.offers
          .filter((o: Offer) => o.provider === 'vastai' && o.spot === spot)
          .map((o: Offer) => o.price_per_hour),
      );
    expect(res.body.data.at(-1).min_price_per_hour).toBe(cheapest(true));

    // Without the parameter (or with spot=false) the answer is the on-demand one, whose Vast.ai line differs.
    const byDefault = await http.get(`/v1/pricing/history?gpu=${gpu.gpu_type}&period=24h`);
    const onDemand = await http.get(`/v1/pricing/history?gpu=${gpu.gpu_type}&period=24h&spot=false`);
    expect(byDefault.body.offer_kind).toBe('on_demand');
    expect(onDemand.body.data).toEqual(byDefault.body.data);
    const vastOnDemand = byDefault.body.data.filter((p: { provider: string }) => p.provider === 'vastai');
    expect(vastOnDemand.at(-1).min_price_per_hour).toBe(cheapest(false));
    expect(cheapest(false)).not.toBe(cheapest(true));
  });

  it('validates gpu, period and spot', async () => {
    expect((await http.get('/v1/pricing/history?gpu=rtx-4090&period=1y')).status).toBe(400);
    expect((await http.get('/v1/pricing/history?gpu=rtx-4090')).status).toBe(400);
    expect((await http.get('/v1/pricing/history?gpu=nope&period=24h')).status).toBe(400);
    const badSpot = await http.get('/v1/pricing/history?gpu=rtx-4090&period=24h&spot=yes');
    expect(badSpot.status).toBe(400);
    expect(badSpot.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ path: 'query.spot', message: expect.any(String) }],
    });
  });
});

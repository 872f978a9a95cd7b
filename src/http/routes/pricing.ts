import type { Context } from 'koa';
import { z } from 'zod';
import type { PricingQueries } from '../../db/queries/pricing';
import { microsToDollars } from '../../domain/money';
import { cheapestAvailable, HISTORY_PERIODS, type HistoryPeriod } from '../../domain/pricing';
import { ApiError } from '../../errors';
import { allGpuSlugs, gpuAliases, gpuBySlug, gpuFamilies } from '../../providers/gpu-catalog';
import { gpuTypeField } from '../launch-schemas';
import { PROVIDERS } from '../../providers/types';
import type { PricingCache } from '../../db/pricing-cache';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';

const CACHE_CONTROL = 'public, max-age=60';

const Offer = z.object({
  provider: z.enum(PROVIDERS),
  price_per_hour: z.number().describe('dollars per GPU per hour'),
  availability: z.number().int().describe('units available now'),
  spot: z.boolean(),
  region: z.string().optional(),
});
const GpuPricing = z.object({ gpu_type: z.string(), display_name: z.string(), offers: z.array(Offer) });
const Snapshot = z.object({ gpu_types: z.array(GpuPricing), last_updated: isoTimestamp });
const Compare = GpuPricing.extend({ cheapest: Offer.nullable(), last_updated: isoTimestamp });
const History = z.object({
  gpu_type: z.string(),
  display_name: z.string(),
  period: z.enum(['24h', '7d', '30d']),
  from: isoTimestamp,
  to: isoTimestamp,
  resolution: z.string(),
  offer_kind: z.enum(['on_demand', 'spot']).describe('`spot` when asked with spot=true, else `on_demand`'),
  data: z.array(z.object({ timestamp: isoTimestamp, provider: z.enum(PROVIDERS), min_price_per_hour: z.number() })),
});

/** How the routes that take a GPU type answer a name of none or of several (as launch, plan, alerts, schedules). */
const UNKNOWN_GPU_ANSWER =
  '`gpu` takes a slug or an alias naming one GPU type (GET /v1/gpus); a name of several GPU types (`h100`) or of ' +
  'none is 400 `validation_error`, with the slugs it could mean or a pointer to GET /v1/gpus in `details`.';

const gpuQuery = z.string({ required_error: 'required' }).pipe(gpuTypeField);

const GpuType = z.object({
  gpu_type: z.string().describe('the slug every route takes'),
  display_name: z.string(),
  vram_gb: z.number(),
  aliases: z
    .array(z.string())
    .describe('other names that mean this GPU type alone (compared without case, spaces, dashes)'),
});
const GpuTypes = z.object({
  data: z.array(GpuType),
  families: z
    .record(z.array(z.string()))
    .describe('names of several GPU types (refused with the list): the slugs each means'),
});

class PricesNotReadyError extends ApiError {
  constructor() {
    super(503, 'provider_unavailable', 'Prices have not been fetched yet; try again in a few seconds.', undefined, {
      'Retry-After': '5',
    });
  }
}

/** The catalog entry of a slug the query resolved (`gpuTypeField` lets through only slugs of the catalog). */
function knownGpu(slug: string) {
  const gpu = gpuBySlug(slug);
  if (!gpu) throw new Error(`GPU slug ${slug} is not in the catalog`);
  return gpu;
}

export function registerPricingRoutes(api: ApiRouter, deps: { cache: PricingCache; queries: PricingQueries }): void {
  const gpuTypes = {
    data: allGpuSlugs().map((slug) => {
      const gpu = knownGpu(slug);
      return { gpu_type: slug, display_name: gpu.display_name, vram_gb: gpu.vram_gb, aliases: gpuAliases(slug) };
    }),
    families: gpuFamilies(),
  };
  api.add({
    method: 'get',
    path: '/v1/gpus',
    tag: 'Pricing',
    summary: 'The GPU types: slugs, names, memory and the aliases each answers to (public)',
    description:
      'Every route that takes a GPU type takes its slug or an alias naming it alone (`4090` is `rtx-4090`); ' +
      'a family name of several (`h100`) is answered 400 `validation_error` with the slugs it could mean; ' +
      'a name of none is answered 400 `validation_error` on every route, in one wording that points here.',
    auth: false,
    responses: { 200: { description: 'The GPU types', schema: GpuTypes } },
    handler: () => ({ headers: { 'Cache-Control': CACHE_CONTROL }, body: gpuTypes }),
  });

  api.add({
    method: 'get',
    path: '/v1/pricing',
    tag: 'Pricing',
    summary: 'Latest prices of every GPU type across the providers (public)',
    description: 'Served from memory with an ETag; send If-None-Match to get 304 when nothing changed.',
    auth: false,
    responses: {
      200: { description: 'The snapshot', schema: Snapshot },
      304: { description: 'Unchanged since your ETag' },
    },
    errors: [404, 503],
    handler: ({ ctx }) => {
      const cached = deps.cache.latest;
      if (!cached) throw new PricesNotReadyError();
      return conditional(ctx, cached.etag, cached.body);
    },
  });

  api.add({
    method: 'get',
    path: '/v1/pricing/compare',
    tag: 'Pricing',
    summary: 'Prices of one GPU type across the providers, with the cheapest available offer (public)',
    description: UNKNOWN_GPU_ANSWER,
    auth: false,
    query: z.object({ gpu: gpuQuery }).strict(),
    responses: { 200: { description: 'Offers for the GPU type', schema: Compare } },
    errors: [503],
    handler: ({ query }) => {
      const gpu = knownGpu(query.gpu);
      const cached = deps.cache.latest;
      if (!cached) throw new PricesNotReadyError();
      const offers = cached.byGpu.get(gpu.slug)?.offers ?? [];
      return {
        headers: { 'Cache-Control': CACHE_CONTROL },
        body: {
          gpu_type: gpu.slug,
          display_name: gpu.display_name,
          offers,
          cheapest: cheapestAvailable(offers),
          last_updated: cached.snapshot.last_updated,
        },
      };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/pricing/history',
    tag: 'Pricing',
    summary: 'Lowest on-demand (or spot) price per provider over a period (public)',
    description:
      'Every refresh is persisted. `24h` returns one point per refresh; `7d` the lowest price per hour; ' +
      '`30d` per 6 hours. On-demand prices unless `spot=true`, which answers the spot series instead: only ' +
      'Vast.ai sells spot (interruptible), so RunPod and Lambda have no points in it. ' +
      UNKNOWN_GPU_ANSWER,
    auth: false,
    query: z
      .object({
        gpu: gpuQuery,
        period: z.enum(['24h', '7d', '30d'], { required_error: 'required' }),
        spot: z
          .enum(['true', 'false'])
          .optional()
          .describe('true: the spot prices; false or absent: the on-demand prices'),
      })
      .strict(),
    responses: { 200: { description: 'History points', schema: History } },
    handler: async ({ query }) => {
      const gpu = knownGpu(query.gpu);
      const period = query.period as HistoryPeriod;
      const now = new Date();
      const spot = query.spot === 'true';
      const rows = await deps.queries.findHistory(gpu.slug, period, now, { spot });
      return {
        headers: { 'Cache-Control': CACHE_CONTROL },
        body: {
          gpu_type: gpu.slug,
          display_name: gpu.display_name,
          period,
          from: new Date(now.getTime() - HISTORY_PERIODS[period].ms).toISOString(),
          to: now.toISOString(),
          resolution: HISTORY_PERIODS[period].resolution,
          offer_kind: spot ? 'spot' : 'on_demand',
          data: rows.map((r) => ({
            timestamp: r.timestamp,
            provider: r.provider,
            min_price_per_hour: microsToDollars(r.min_price_per_hour_micros),
          })),
        },
      };
    },
  });
}

/**
 * The response headers of one snapshot, built once per snapshot (the cache hands out the same body Buffer
 * until the next refresh lands) as the flat array `writeHead` takes. The last value is the request id: it is
 * written into the array right before the synchronous `writeHead` call that copies it, so no request
 * allocates its own header list.
 */
const preparedHeaders = new WeakMap<Buffer, string[]>();
function headersFor(etag: string, body: Buffer, requestId: string): string[] {
  let headers = preparedHeaders.get(body);
  if (!headers) {
    headers = [
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(body.length),
      'ETag',
      etag,
      'Cache-Control',
      CACHE_CONTROL,
      'X-Request-Id',
      '',
    ];
    preparedHeaders.set(body, headers);
  }
  headers[headers.length - 1] = requestId;
  return headers;
}

function conditional(ctx: Context, etag: string, body: Buffer) {
  const ifNoneMatch = ctx.req.headers['if-none-match'];
  if (
    ifNoneMatch &&
    ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')
  ) {
    return { status: 304, headers: { ETag: etag, 'Cache-Control': CACHE_CONTROL }, body: undefined };
  }
  // The hottest public path: the bytes and headers are ready, so write them in one call instead of going
  // through Koa's generic response handling, which sets each header on its own.
  ctx.respond = false;
  ctx.res.writeHead(200, headersFor(etag, body, ctx.state.requestId as string));
  ctx.res.end(ctx.method === 'HEAD' ? undefined : body);
  return { status: 200, body: undefined };
}

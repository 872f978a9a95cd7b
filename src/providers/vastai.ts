/**
 * Vast.ai adapter (`https://console.vast.ai`, spec `vastai.yaml`).
 *
 * - Offers: `POST /api/v0/bundles/` with the raw query object as the body. `dph_total` is the on-demand price of
 *   the whole offer and `min_bid` its interruptible floor; both are divided by `num_gpus`.
 * - Launch: search offers for the GPU, then `PUT /api/v0/asks/{offer}/` (a `price` makes it an interruptible
 *   bid), then attach the SSH key with `POST /api/v0/instances/{id}/ssh/`. The instance `label` carries the
 *   launch name so a retried launch finds it with `GET /api/v1/instances/?select_filters={"label":…}`.
 * - Errors are `{success:false,error,msg}`; an offer that is gone answers 404/410 `no_such_ask`.
 * - Vast instances cannot be stopped through this service (no stop capability), and 429s carry no Retry-After.
 */
import { ProviderRequestError, type ProviderFailureKind } from '../errors';
import type { Logger } from '../logger';
import { slugFromVast, vastGpuNames, vastGpuRamRangeMb } from './gpu-catalog';
import { DEFAULT_LOG_TIMING, vastLogs, type LogTiming } from './logs';
import { createProviderHttp, roundDollars, str } from './http';
import type { LaunchSpec, ProviderAdapter, ProviderOffer } from './types';
import { normalizeVastInstance, vastMessage, type VastInstance, type VastOffer } from './vastai-answers';

export const VASTAI_DEFAULT_BASE_URL = 'https://console.vast.ai';
export const VASTAI_DEFAULT_IMAGE = 'vastai/base-image:@vastai-automatic-tag';
const DEFAULT_DISK_GB = 20;
const OFFER_SEARCH_LIMIT = 1000;
const LAUNCH_CANDIDATES = 3;
const MAX_LIST_PAGES = 200;

export interface VastaiAdapterOptions {
  baseUrl?: string;
  timeoutMs: number;
  logger: Logger;
  /** Log reads' waits (tests compress them); default {@link DEFAULT_LOG_TIMING}. */
  logTiming?: Partial<LogTiming>;
}

/** The base filters the Vast CLI applies to every search. */
const BASE_QUERY = {
  verified: { eq: true },
  external: { eq: false },
  rentable: { eq: true },
  rented: { eq: false },
};

/** A key compares by its type and base64 body; comments differ between copies of the same key. */
function keyBody(publicKey: string): string {
  return publicKey.trim().split(/\s+/).slice(0, 2).join(' ');
}

export function createVastaiAdapter(options: VastaiAdapterOptions): ProviderAdapter {
  const logger = options.logger.child({ provider: 'vastai' });
  const http = createProviderHttp({
    provider: 'vastai',
    providerName: 'Vast.ai',
    baseUrl: options.baseUrl ?? VASTAI_DEFAULT_BASE_URL,
    timeoutMs: options.timeoutMs,
    logger,
    authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
    errorMessage: vastMessage,
    classify: (status, message, body): ProviderFailureKind | undefined => {
      if ((status === 404 || status === 410) && /no_such_ask/.test(message)) return 'no_capacity';
      // The offer search documents a bad key as 404 "Invalid user key".
      if (str(body, 'error') === 'auth_error' || /invalid user key/i.test(message)) return 'invalid_key';
      return undefined;
    },
  });

  async function searchOffers(apiKey: string | undefined, query: Record<string, unknown>): Promise<VastOffer[]> {
    const res = await http.request<{ offers?: VastOffer[] }>({
      method: 'POST',
      path: '/api/v0/bundles/',
      apiKey,
      body: { ...BASE_QUERY, ...query },
    });
    const offers = res.body?.offers;
    return Array.isArray(offers) ? offers : [];
  }

  async function getRaw(apiKey: string, id: string): Promise<VastInstance | null> {
    if (!/^\d+$/.test(id)) return null;
    const res = await http.request<{ instances?: VastInstance | null }>({
      method: 'GET',
      path: `/api/v0/instances/${id}/`,
      apiKey,
      query: { owner: 'me' },
      accept: [404],
    });
    if (res.status === 404) return null;
    const inst = res.body?.instances;
    return inst && typeof inst === 'object' && !Array.isArray(inst) ? inst : null;
  }

  async function listRaw(apiKey: string, filters: Record<string, unknown>): Promise<VastInstance[]> {
    const out: VastInstance[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await http.request<{ instances?: VastInstance[]; next_token?: string | null }>({
        method: 'GET',
        path: '/api/v1/instances/',
        apiKey,
        query: {
          select_filters: JSON.stringify(filters),
          order_by: JSON.stringify([{ col: 'id', dir: 'asc' }]),
          limit: 25,
          after_token: after,
        },
      });
      out.push(...(Array.isArray(res.body?.instances) ? res.body.instances : []));
      after = res.body?.next_token ?? undefined;
      if (!after) break;
    }
    return out;
  }

  function gpuFilter(spec: LaunchSpec): Record<string, unknown> {
    const names = vastGpuNames(spec.gpuType);
    const filter: Record<string, unknown> = { gpu_name: { in: names }, num_gpus: { eq: spec.gpuCount } };
    const ram = vastGpuRamRangeMb(spec.gpuType);
    if (ram) {
      const r: Record<string, number> = {};
      if (ram.min > 1) r.gte = ram.min;
      if (Number.isFinite(ram.max)) r.lte = ram.max;
      filter.gpu_ram = r;
    }
    if (spec.region && /^[A-Za-z]{2}$/.test(spec.region)) filter.geolocation = { in: [spec.region.toUpperCase()] };
    return filter;
  }

  async function attachKey(apiKey: string, id: number, publicKey: string): Promise<void> {
    try {
      await http.request({
        method: 'POST',
        path: `/api/v0/instances/${id}/ssh/`,
        apiKey,
        body: { ssh_key: publicKey },
      });
    } catch (err) {
      // The instance exists and the caller will find it by name; a missing key is recoverable, a lost
      // instance is not, so this never fails the launch.
      logger.warn('attaching the SSH key to a new Vast instance failed', {
        instance: id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  return {
    provider: 'vastai',

    async listOffers(apiKey) {
      const raw = await searchOffers(apiKey, {
        type: 'ondemand',
        order: [
          ['dph_total', 'asc'],
          ['score', 'desc'],
        ],
        limit: OFFER_SEARCH_LIMIT,
      });
      const best = new Map<string, ProviderOffer>();
      const add = (slug: string, spot: boolean, price: number, units: number) => {
        const k = `${slug}|${spot}`;
        const cur = best.get(k);
        if (!cur) best.set(k, { provider: 'vastai', gpuType: slug, pricePerHour: price, availability: units, spot });
        else {
          cur.pricePerHour = Math.min(cur.pricePerHour, price);
          cur.availability += units;
        }
      };
      for (const o of raw) {
        const slug = slugFromVast(o.gpu_name, o.gpu_ram);
        if (!slug) {
          logger.debug('dropping unmapped Vast GPU', { gpu: o.gpu_name, gpu_ram: o.gpu_ram });
          continue;
        }
        const gpus = o.num_gpus ?? 0;
        if (gpus < 1 || o.rented === true || o.rentable === false) continue;
        if (typeof o.dph_total === 'number' && o.dph_total > 0)
          add(slug, false, roundDollars(o.dph_total / gpus), gpus);
        if (typeof o.min_bid === 'number' && o.min_bid > 0) add(slug, true, roundDollars(o.min_bid / gpus), gpus);
      }
      return [...best.values()];
    },

    async verifyKey(apiKey) {
      try {
        const res = await http.request({ method: 'GET', path: '/api/v0/users/current/', apiKey });
        const email = str(res.body, 'email');
        return {
          valid: true,
          message: email ? `The Vast.ai API key belongs to ${email}.` : 'The Vast.ai API key was accepted.',
        };
      } catch (err) {
        if (err instanceof ProviderRequestError && err.kind === 'invalid_key') {
          return { valid: false, message: `Vast.ai rejected the API key: ${err.message}` };
        }
        throw err;
      }
    },

    async launch(apiKey, spec) {
      if (vastGpuNames(spec.gpuType).length === 0) {
        throw http.errorFor('provider_error', `Vast.ai does not list the GPU type ${spec.gpuType}.`, apiKey);
      }
      const offers = (
        await searchOffers(apiKey, {
          ...gpuFilter(spec),
          type: spec.spot ? 'bid' : 'ondemand',
          order: [
            [spec.spot ? 'min_bid' : 'dph_total', 'asc'],
            ['score', 'desc'],
          ],
          limit: 10,
          allocated_storage: spec.diskGb ?? DEFAULT_DISK_GB,
        })
      ).filter((o) => slugFromVast(o.gpu_name, o.gpu_ram) === spec.gpuType && o.num_gpus === spec.gpuCount);
      if (offers.length === 0) {
        throw http.errorFor('no_capacity', `no offers found for ${spec.gpuCount}x ${spec.gpuType}`, apiKey);
      }

      let lastCapacityError: ProviderRequestError | undefined;
      for (const offer of offers.slice(0, LAUNCH_CANDIDATES)) {
        const body: Record<string, unknown> = {
          client_id: 'me',
          image: spec.dockerImage ?? VASTAI_DEFAULT_IMAGE,
          label: spec.name,
          disk: spec.diskGb ?? DEFAULT_DISK_GB,
          runtype: 'ssh',
        };
        if (spec.onstartCmd) body.onstart = spec.onstartCmd;
        if (spec.spot) {
          if (typeof offer.min_bid !== 'number' || offer.min_bid <= 0) continue;
          body.price = Math.max(0.001, Math.ceil(offer.min_bid * 10_000) / 10_000);
        }
        let created: { new_contract?: number };
        try {
          const res = await http.request<{ new_contract?: number }>({
            method: 'PUT',
            path: `/api/v0/asks/${offer.id}/`,
            apiKey,
            body,
          });
          created = res.body ?? {};
        } catch (err) {
          // The offer went away between search and create; nothing was created, so the next one is safe.
          if (err instanceof ProviderRequestError && err.kind === 'no_capacity') {
            lastCapacityError = err;
            continue;
          }
          throw err;
        }
        const id = created.new_contract;
        if (typeof id !== 'number') {
          throw http.errorFor('provider_error', 'Vast.ai accepted the create without returning an instance id', apiKey);
        }
        if (spec.sshPublicKey) await attachKey(apiKey, id, spec.sshPublicKey);
        const inst = await getRaw(apiKey, String(id)).catch(() => null);
        return normalizeVastInstance(
          inst ?? {
            id,
            label: spec.name,
            actual_status: null,
            gpu_name: offer.gpu_name,
            gpu_ram: offer.gpu_ram,
            num_gpus: offer.num_gpus,
            dph_total: spec.spot ? (body.price as number) : offer.dph_total,
            is_bid: spec.spot,
            geolocation: offer.geolocation,
            image_uuid: body.image as string,
          },
        );
      }
      throw (
        lastCapacityError ??
        http.errorFor('no_capacity', `no offers found for ${spec.gpuCount}x ${spec.gpuType}`, apiKey)
      );
    },

    async findInstanceByName(apiKey, name) {
      const found = (await listRaw(apiKey, { label: { eq: name } })).filter((i) => i.label === name);
      const latest = found.sort((a, b) => b.id - a.id)[0];
      return latest ? normalizeVastInstance(latest) : null;
    },

    async getInstance(apiKey, id) {
      const inst = await getRaw(apiKey, id);
      return inst ? normalizeVastInstance(inst) : null;
    },

    async listInstances(apiKey) {
      return (await listRaw(apiKey, {})).map(normalizeVastInstance);
    },

    async stop(apiKey) {
      throw http.errorFor(
        'provider_error',
        'Stopping instances is not supported on Vast.ai; terminate instead.',
        apiKey,
      );
    },

    async start(apiKey, id) {
      if (!/^\d+$/.test(id)) throw http.errorFor('not_found', `Vast.ai has no instance ${id}.`, apiKey, 404);
      const res = await http.request({
        method: 'PUT',
        path: `/api/v0/instances/${id}/`,
        apiKey,
        body: { state: 'running' },
        accept: [404],
      });
      const inst = res.status === 404 ? null : await getRaw(apiKey, id);
      if (!inst) throw http.errorFor('not_found', `Vast.ai has no instance ${id}.`, apiKey, 404);
      return normalizeVastInstance(inst);
    },

    async terminate(apiKey, id) {
      if (!/^\d+$/.test(id)) return;
      await http.request({ method: 'DELETE', path: `/api/v0/instances/${id}/`, apiKey, body: {}, accept: [404] });
    },

    logs: (apiKey, id, read) => vastLogs(http, apiKey, id, read, { ...DEFAULT_LOG_TIMING, ...options.logTiming }),

    async ensureSshKey(apiKey, key) {
      const res = await http.request<unknown>({ method: 'GET', path: '/api/v0/ssh/', apiKey, accept: [404] });
      const list: unknown[] = Array.isArray(res.body)
        ? res.body
        : res.body && typeof res.body === 'object' && Array.isArray((res.body as { ssh_keys?: unknown }).ssh_keys)
          ? (res.body as { ssh_keys: unknown[] }).ssh_keys
          : [];
      const wanted = keyBody(key.publicKey);
      const present = list.some((k) => {
        const text = str(k, 'key') ?? str(k, 'public_key');
        return text !== undefined && keyBody(text) === wanted && !str(k, 'deleted_at');
      });
      if (!present) {
        await http.request({ method: 'POST', path: '/api/v0/ssh/', apiKey, body: { ssh_key: key.publicKey } });
      }
      return { name: key.name };
    },
  };
}

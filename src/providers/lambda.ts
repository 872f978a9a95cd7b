/**
 * Lambda Cloud adapter (`https://cloud.lambda.ai/api/v1`, spec `lambda-cloud-v1.5.3.yaml`).
 *
 * - Every success is wrapped in `{"data": …}`; errors are `{"error":{code,message,suggestion?}}`.
 * - Offers: `GET /instance-types`; `price_cents_per_hour` covers the whole instance, so it is divided by the GPU
 *   count. Lambda has no spot tier.
 * - Launch: `POST /instance-operations/launch` with exactly one SSH key name and a region; no capacity is HTTP 400
 *   `instance-operations/launch/insufficient-capacity`. Terminate: `POST /instance-operations/terminate`.
 * - A start command (a job's wrapper) goes as `user_data`, a `#!/bin/sh` script cloud-init runs once at first
 *   boot. The field is from Lambda's newer launch API (not in v1.5.3): it is sent only when there is a command,
 *   so a plain launch's body is exactly v1.5.3's. A launch without a region (a job's attempt) takes the cheapest
 *   instance type with capacity and its first region that has it.
 * - Status `unhealthy` is reported as `failed`: the instance failed Lambda's health checks and is not usable
 *   until someone acts on it (restart or terminate), which is what `failed` tells the user.
 * - No stop: Lambda instances can only be terminated.
 */
import { ProviderRequestError, type ProviderFailureKind } from '../errors';
import type { Logger } from '../logger';
import { slugFromLambda } from './gpu-catalog';
import { createProviderHttp, num, roundDollars, str } from './http';
import type { InstanceStatus, ProviderAdapter, ProviderInstance, ProviderOffer } from './types';

export const LAMBDA_DEFAULT_BASE_URL = 'https://cloud.lambda.ai/api/v1';
const MAX_NAME_LENGTH = 64;
/** Lambda's limit on `user_data` (cloud-init user data), in bytes. */
export const LAMBDA_USER_DATA_MAX_BYTES = 1024 * 1024;

/** The cloud-init user data that runs `command` with `sh` at first boot: a text starting with `#!`. */
export const lambdaUserData = (command: string): string => `#!/bin/sh\n${command}\n`;

export interface LambdaAdapterOptions {
  baseUrl?: string;
  timeoutMs: number;
  logger: Logger;
}

interface LambdaInstanceType {
  name: string;
  description?: string;
  gpu_description?: string;
  price_cents_per_hour: number;
  specs?: { gpus?: number };
}

interface LambdaInstance {
  id: string;
  name?: string | null;
  ip?: string | null;
  status: string;
  ssh_key_names?: string[];
  region?: { name: string; description?: string };
  instance_type?: LambdaInstanceType;
}

interface LambdaTypeEntry {
  instance_type: LambdaInstanceType;
  regions_with_capacity_available: { name: string; description?: string }[];
}

export function lambdaStatus(status: string | undefined): InstanceStatus {
  switch (status) {
    case 'booting':
      return 'provisioning';
    case 'active':
      return 'running';
    case 'unhealthy':
      return 'failed';
    case 'terminating':
      return 'terminating';
    case 'terminated':
      return 'terminated';
    default:
      return 'unknown';
  }
}

/** GPUs in an instance type: `specs.gpus` when Lambda reports it, otherwise the count in the type name. */
function gpuCountOf(type: LambdaInstanceType | undefined): number | null {
  if (!type) return null;
  const fromSpecs = type.specs?.gpus;
  if (typeof fromSpecs === 'number' && fromSpecs > 0) return fromSpecs;
  return slugFromLambda(type.name)?.gpuCount ?? null;
}

export function normalizeLambdaInstance(inst: LambdaInstance): ProviderInstance {
  const parsed = slugFromLambda(inst.instance_type?.name);
  const cents = num(inst.instance_type, 'price_cents_per_hour');
  return {
    id: inst.id,
    provider: 'lambda',
    name: inst.name ?? null,
    status: lambdaStatus(inst.status),
    providerStatus: inst.status ?? null,
    gpuType: parsed?.slug ?? null,
    gpuCount: gpuCountOf(inst.instance_type) ?? parsed?.gpuCount ?? 1,
    pricePerHour: cents === undefined ? null : roundDollars(cents / 100),
    spot: false,
    region: inst.region?.name ?? null,
    dockerImage: null,
    publicIp: inst.ip ?? null,
    ssh: inst.ip ? { host: inst.ip, port: 22, user: 'ubuntu' } : null,
    createdAt: null,
    startedAt: null,
  };
}

function lambdaMessage(body: unknown, text: string): string | undefined {
  const err = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  const message = str(err, 'message');
  const code = str(err, 'code');
  // Field errors say which parameter Lambda refused (e.g. an ssh_key_names entry it does not know).
  const fields = body && typeof body === 'object' ? (body as { field_errors?: unknown }).field_errors : undefined;
  const fieldText =
    fields && typeof fields === 'object'
      ? Object.entries(fields as Record<string, unknown>)
          .map(([k, v]) => `${k}: ${str(v, 'message') ?? 'invalid'}`)
          .join('; ')
      : '';
  if (message && code) return `${message} (${code})${fieldText ? ` ${fieldText}` : ''}`;
  return message ?? code ?? (typeof err === 'string' ? err : undefined) ?? (text || undefined);
}

function keyBody(publicKey: string): string {
  return publicKey.trim().split(/\s+/).slice(0, 2).join(' ');
}

export function createLambdaAdapter(options: LambdaAdapterOptions): ProviderAdapter {
  const logger = options.logger.child({ provider: 'lambda' });
  const http = createProviderHttp({
    provider: 'lambda',
    providerName: 'Lambda',
    baseUrl: options.baseUrl ?? LAMBDA_DEFAULT_BASE_URL,
    timeoutMs: options.timeoutMs,
    logger,
    authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
    errorMessage: lambdaMessage,
    classify: (status, message, body): ProviderFailureKind | undefined => {
      const code = str((body as { error?: unknown } | null)?.error, 'code');
      if (code === 'instance-operations/launch/insufficient-capacity' || /not enough capacity/i.test(message)) {
        return 'no_capacity';
      }
      if (code === 'global/invalid-api-key') return 'invalid_key';
      if (code === 'global/object-does-not-exist') return 'not_found';
      if (status === 400 && code === 'global/invalid-parameters') return 'invalid_request';
      return undefined;
    },
  });

  async function instanceTypes(apiKey: string | undefined): Promise<LambdaTypeEntry[]> {
    const res = await http.request<{ data?: Record<string, LambdaTypeEntry> }>({
      method: 'GET',
      path: '/instance-types',
      apiKey,
    });
    return Object.values(res.body?.data ?? {}).filter(
      (e) => e && e.instance_type && typeof e.instance_type.name === 'string',
    );
  }

  async function listRaw(apiKey: string): Promise<LambdaInstance[]> {
    const res = await http.request<{ data?: LambdaInstance[] }>({ method: 'GET', path: '/instances', apiKey });
    return Array.isArray(res.body?.data) ? res.body.data : [];
  }

  async function getRaw(apiKey: string, id: string): Promise<LambdaInstance | null> {
    const res = await http.request<{ data?: LambdaInstance }>({
      method: 'GET',
      path: `/instances/${encodeURIComponent(id)}`,
      apiKey,
      accept: [404],
    });
    return res.status === 404 ? null : (res.body?.data ?? null);
  }

  return {
    provider: 'lambda',

    async listOffers(apiKey) {
      // One offer per (GPU, region with capacity): the cheapest per-GPU price among the instance types there;
      // availability is the most GPUs one launch can get in that region. GPUs without capacity anywhere still
      // get one offer (no region, availability 0) so their price stays visible.
      const offers = new Map<string, ProviderOffer>();
      for (const entry of await instanceTypes(apiKey)) {
        const type = entry.instance_type;
        const parsed = slugFromLambda(type.name);
        if (!parsed) {
          logger.debug('dropping unmapped Lambda instance type', { instanceType: type.name });
          continue;
        }
        const gpus = gpuCountOf(type) ?? parsed.gpuCount;
        const cents = num(type, 'price_cents_per_hour');
        if (cents === undefined || cents <= 0) continue;
        const price = roundDollars(cents / 100 / gpus);
        const regions = entry.regions_with_capacity_available ?? [];
        const targets: (string | undefined)[] = regions.length > 0 ? regions.map((r) => r.name) : [undefined];
        for (const region of targets) {
          const units = region === undefined ? 0 : gpus;
          const k = `${parsed.slug}|${region ?? ''}`;
          const cur = offers.get(k);
          if (!cur) {
            const offer: ProviderOffer = {
              provider: 'lambda',
              gpuType: parsed.slug,
              pricePerHour: price,
              availability: units,
              spot: false,
            };
            if (region !== undefined) offer.region = region;
            offers.set(k, offer);
          } else {
            cur.pricePerHour = Math.min(cur.pricePerHour, price);
            cur.availability = Math.max(cur.availability, units);
          }
        }
      }
      // A GPU that has capacity somewhere does not also need the capacity-less placeholder.
      for (const [k, o] of offers) {
        if (
          o.region === undefined &&
          [...offers.values()].some((x) => x.gpuType === o.gpuType && x.region !== undefined)
        ) {
          offers.delete(k);
        }
      }
      return [...offers.values()];
    },

    async verifyKey(apiKey) {
      try {
        await http.request({ method: 'GET', path: '/ssh-keys', apiKey });
        return { valid: true, message: 'The Lambda API key was accepted.' };
      } catch (err) {
        if (err instanceof ProviderRequestError && err.kind === 'invalid_key') {
          return { valid: false, message: `Lambda rejected the API key: ${err.message}` };
        }
        throw err;
      }
    },

    async launch(apiKey, spec) {
      if (spec.spot)
        throw http.errorFor('provider_error', 'Lambda has no spot instances; launch on-demand instead.', apiKey);
      if (!spec.sshKeyName) {
        throw http.errorFor('provider_error', 'Lambda launches need exactly one registered SSH key name.', apiKey);
      }
      const candidates = (await instanceTypes(apiKey)).filter((e) => {
        const parsed = slugFromLambda(e.instance_type.name);
        return parsed?.slug === spec.gpuType && (gpuCountOf(e.instance_type) ?? parsed.gpuCount) === spec.gpuCount;
      });
      const userData = spec.onstartCmd ? lambdaUserData(spec.onstartCmd) : undefined;
      if (userData !== undefined && Buffer.byteLength(userData) > LAMBDA_USER_DATA_MAX_BYTES) {
        throw http.errorFor(
          'invalid_request',
          `The start command is ${Buffer.byteLength(userData)} bytes as user_data; Lambda takes at most ` +
            `${LAMBDA_USER_DATA_MAX_BYTES} bytes (1 MB).`,
          apiKey,
        );
      }
      if (candidates.length === 0) {
        // Lambda's list of instance types is its whole offer: not there means it cannot be had (a 422 the caller
        // can act on, as with any other capacity answer), not a provider failure.
        throw http.errorFor(
          'no_capacity',
          `Lambda offers no instance type with ${spec.gpuCount}x ${spec.gpuType}.`,
          apiKey,
        );
      }
      // Without a region: the first region where a type has capacity (none anywhere: no capacity).
      const region =
        spec.region ??
        [...candidates]
          .sort((a, b) => a.instance_type.price_cents_per_hour - b.instance_type.price_cents_per_hour)
          .find((e) => e.regions_with_capacity_available.length > 0)?.regions_with_capacity_available[0]?.name;
      if (!region) {
        throw http.errorFor('no_capacity', `Lambda has no capacity for ${spec.gpuCount}x ${spec.gpuType}.`, apiKey);
      }
      // Prefer a type that lists capacity in the region, then the cheapest; Lambda has the final word on capacity.
      candidates.sort((a, b) => {
        const ca = a.regions_with_capacity_available.some((r) => r.name === region) ? 0 : 1;
        const cb = b.regions_with_capacity_available.some((r) => r.name === region) ? 0 : 1;
        return ca - cb || a.instance_type.price_cents_per_hour - b.instance_type.price_cents_per_hour;
      });
      const chosen = candidates[0]!.instance_type;
      const res = await http.request<{ data?: { instance_ids?: string[] } }>({
        method: 'POST',
        path: '/instance-operations/launch',
        apiKey,
        body: {
          region_name: region,
          instance_type_name: chosen.name,
          ssh_key_names: [spec.sshKeyName],
          quantity: 1,
          name: spec.name.slice(0, MAX_NAME_LENGTH),
          ...(userData === undefined ? {} : { user_data: userData }),
        },
      });
      const id = res.body?.data?.instance_ids?.[0];
      if (!id) throw http.errorFor('no_capacity', 'Lambda launched no instance for the request.', apiKey);
      const inst = await getRaw(apiKey, id).catch(() => null);
      return normalizeLambdaInstance(
        inst ?? {
          id,
          name: spec.name.slice(0, MAX_NAME_LENGTH),
          status: 'booting',
          region: { name: region },
          instance_type: chosen,
          ssh_key_names: [spec.sshKeyName],
        },
      );
    },

    async findInstanceByName(apiKey, name) {
      const wanted = name.slice(0, MAX_NAME_LENGTH);
      const hit = (await listRaw(apiKey)).find((i) => i.name === wanted && i.status !== 'terminated');
      return hit ? normalizeLambdaInstance(hit) : null;
    },

    async getInstance(apiKey, id) {
      const inst = await getRaw(apiKey, id);
      return inst ? normalizeLambdaInstance(inst) : null;
    },

    async listInstances(apiKey) {
      return (await listRaw(apiKey)).map(normalizeLambdaInstance);
    },

    async stop(apiKey) {
      throw http.errorFor(
        'provider_error',
        'Stopping instances is not supported on Lambda; terminate instead.',
        apiKey,
      );
    },

    async start(apiKey) {
      throw http.errorFor('provider_error', 'Lambda cannot start a stopped instance; launch a new one.', apiKey);
    },

    async terminate(apiKey, id) {
      await http.request({
        method: 'POST',
        path: '/instance-operations/terminate',
        apiKey,
        body: { instance_ids: [id] },
        accept: [404],
      });
    },

    async ensureSshKey(apiKey, key) {
      const listKeys = async () => {
        const res = await http.request<{ data?: { id: string; name: string; public_key: string }[] }>({
          method: 'GET',
          path: '/ssh-keys',
          apiKey,
        });
        return Array.isArray(res.body?.data) ? res.body.data : [];
      };
      const wanted = keyBody(key.publicKey);
      const registeredName = (keys: { name: string; public_key: string }[]) =>
        keys.find((k) => typeof k.public_key === 'string' && keyBody(k.public_key) === wanted)?.name;
      const keys = await listKeys();
      const already = registeredName(keys);
      if (already) return { name: already };
      // The name is taken by a different key: register this one under a name derived from it.
      let name = key.name.slice(0, MAX_NAME_LENGTH);
      if (keys.some((k) => k.name === name)) {
        const suffix = `-${Buffer.from(wanted).toString('base64url').slice(-8)}`;
        name = name.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
      }
      try {
        const created = await http.request<{ data?: { name?: string } }>({
          method: 'POST',
          path: '/ssh-keys',
          apiKey,
          body: { name, public_key: key.publicKey },
        });
        return { name: created.body?.data?.name ?? name };
      } catch (err) {
        // Concurrent launches on one account race to register the same key; Lambda refuses the second
        // ("An SSH key named … already exists"). The key being there now is all this step needs.
        const raced = registeredName(await listKeys().catch(() => []));
        if (raced) return { name: raced };
        throw err;
      }
    },
  };
}

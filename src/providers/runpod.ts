/**
 * RunPod adapter over REST v2 (`https://api.runpod.io/v2`, spec `runpod-rest-v2.json`).
 *
 * - Pods: `POST /pods` (nested body), `GET /pods`, `GET /pods/{id}`, `POST /pods/{id}/action {action}`.
 * - Prices: `GET /catalog/gpus?include=AVAILABILITY&product=POD`, USD per GPU-hour, secure cloud (the cloud
 *   launches use).
 * - Errors are RFC 9457 `{title,status,detail}`. Capacity has no code of its own: a 400 (or, as observed on the
 *   older API, a 500) whose `detail` says no instances are available.
 * - The v2 create body has no spot field (`unevaluatedProperties: false`), so spot launches are refused here.
 */
import { ProviderRequestError, type ProviderFailureKind } from '../errors';
import type { Logger } from '../logger';
import { runpodGpuId, slugFromRunpod } from './gpu-catalog';
import { DEFAULT_LOG_TIMING, runpodLogs, type LogTiming } from './logs';
import { createProviderHttp, num, roundDollars, str } from './http';
import type { InstanceStatus, LaunchSpec, ProviderAdapter, ProviderInstance, ProviderOffer } from './types';

export const RUNPOD_DEFAULT_BASE_URL = 'https://api.runpod.io/v2';
export const RUNPOD_DEFAULT_IMAGE = 'runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404';

export interface RunpodAdapterOptions {
  baseUrl?: string;
  timeoutMs: number;
  logger: Logger;
  /** Log reads' waits (tests compress them); default {@link DEFAULT_LOG_TIMING}. */
  logTiming?: Partial<LogTiming>;
}

/** Wordings RunPod uses when a create cannot be placed (v2 `detail`, v1 `error`, GraphQL `message`). */
const CAPACITY = [
  /no (longer any )?instances (are )?(currently )?available/i,
  /does not have the resources to deploy/i,
  /could not be placed/i,
  /insufficient capacity/i,
  /no (gpu )?capacity/i,
];

export function isRunpodCapacityMessage(message: string): boolean {
  return CAPACITY.some((re) => re.test(message));
}

/** Units behind a catalog availability level: `maxCount` stands for HIGH; the level is all RunPod tells. */
function availabilityUnits(level: string | undefined, maxCount: number): number {
  switch (level) {
    case 'HIGH':
      return Math.max(1, maxCount);
    case 'MEDIUM':
      return Math.max(1, Math.ceil(maxCount / 2));
    case 'LOW':
      return 1;
    default:
      return 0;
  }
}

interface RunpodPod {
  id: string;
  name?: string;
  status?: string;
  image?: string;
  cost?: number;
  gpu?: { id?: string; count?: number } | null;
  dataCenterId?: string | null;
  interruptible?: boolean;
  runtime?: {
    uptime?: number;
    gpus?: { id?: string; gpuUtilPercent?: number; util?: number }[] | null;
    ports?: { private?: number; public?: number | null; type?: string; ip?: string | null }[];
  } | null;
  ssh?: {
    proxy?: { host: string; port: number; username: string } | null;
    direct?: { host: string; port: number; username: string } | null;
  } | null;
  createdAt?: string;
  startedAt?: string | null;
}

function runtimeReady(pod: RunpodPod): boolean {
  const rt = pod.runtime;
  if (!rt) return false;
  return (Array.isArray(rt.ports) && rt.ports.length > 0) || typeof rt.uptime === 'number';
}

/**
 * v2 statuses: PROVISIONING/STARTING are provisioning; RUNNING counts as running only once the pod reports a
 * runtime (a RUNNING pod without one has no ports or IP yet, as observed on v1); EXITED is stopped.
 */
export function runpodStatus(pod: RunpodPod): InstanceStatus {
  switch (pod.status) {
    case 'PROVISIONING':
    case 'STARTING':
      return 'provisioning';
    case 'RUNNING':
      return runtimeReady(pod) ? 'running' : 'provisioning';
    case 'EXITED':
      return 'stopped';
    case 'TERMINATED':
      return 'terminated';
    case 'ERROR':
      return 'failed';
    default:
      return 'unknown';
  }
}

/** `runtime.gpus[].gpuUtilPercent` (GraphQL's name; `util` accepted too), one per GPU; null when not reported. */
function runpodUtilization(pod: RunpodPod): number[] | null {
  const gpus = pod.runtime?.gpus;
  if (!gpus?.length) return null;
  const util = gpus.map((g) => g.gpuUtilPercent ?? g.util);
  return util.every((u): u is number => typeof u === 'number') ? util : null;
}

export function normalizeRunpodPod(pod: RunpodPod): ProviderInstance {
  const direct = pod.ssh?.direct ?? null;
  const proxy = pod.ssh?.proxy ?? null;
  const sshPort = pod.runtime?.ports?.find((p) => p.private === 22 && p.ip);
  const ssh = direct ?? proxy;
  return {
    id: pod.id,
    provider: 'runpod',
    name: pod.name ?? null,
    status: runpodStatus(pod),
    providerStatus: pod.status ?? null,
    gpuType: slugFromRunpod(pod.gpu?.id),
    gpuCount: pod.gpu?.count ?? 1,
    pricePerHour: typeof pod.cost === 'number' ? roundDollars(pod.cost) : null,
    spot: pod.interruptible === true,
    region: pod.dataCenterId ?? null,
    dockerImage: pod.image ?? null,
    publicIp: direct?.host ?? sshPort?.ip ?? null,
    ssh: ssh ? { host: ssh.host, port: ssh.port, user: ssh.username } : null,
    createdAt: pod.createdAt ?? null,
    startedAt: runpodStatus(pod) === 'running' && pod.startedAt ? pod.startedAt : null,
    gpuUtilization: runpodUtilization(pod),
  };
}

export function createRunpodAdapter(options: RunpodAdapterOptions): ProviderAdapter {
  const logger = options.logger.child({ provider: 'runpod' });
  const http = createProviderHttp({
    provider: 'runpod',
    providerName: 'RunPod',
    baseUrl: options.baseUrl ?? RUNPOD_DEFAULT_BASE_URL,
    timeoutMs: options.timeoutMs,
    logger,
    authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
    errorMessage: (body, text) =>
      str(body, 'detail') ?? str(body, 'error') ?? str(body, 'message') ?? str(body, 'title') ?? (text || undefined),
    classify: (status, message): ProviderFailureKind | undefined => {
      if ((status === 400 || status >= 500) && isRunpodCapacityMessage(message)) return 'no_capacity';
      // A refused spot create is a final answer, not an outage.
      if (status >= 500 && /spot pods are no longer offered/i.test(message)) return 'provider_error';
      if (status === 402) return 'provider_error';
      return undefined;
    },
  });

  async function listPods(apiKey: string): Promise<RunpodPod[]> {
    const res = await http.request<{ pods?: RunpodPod[] }>({ method: 'GET', path: '/pods', apiKey });
    return Array.isArray(res.body?.pods) ? res.body.pods : [];
  }

  async function getPod(apiKey: string, id: string): Promise<RunpodPod | null> {
    const res = await http.request<RunpodPod>({
      method: 'GET',
      path: `/pods/${encodeURIComponent(id)}`,
      apiKey,
      accept: [404],
    });
    return res.status === 404 ? null : res.body;
  }

  return {
    provider: 'runpod',

    async listOffers(apiKey) {
      const res = await http.request<{ gpus?: unknown[] }>({
        method: 'GET',
        path: '/catalog/gpus',
        apiKey,
        query: { include: 'AVAILABILITY', product: 'POD', cloud: 'SECURE' },
      });
      const offers: ProviderOffer[] = [];
      for (const gpu of res.body?.gpus ?? []) {
        const id = str(gpu, 'id');
        const slug = slugFromRunpod(id);
        if (!slug) {
          logger.debug('dropping unmapped RunPod GPU', { gpu: id });
          continue;
        }
        const g = gpu as { secure?: boolean; price?: unknown; maxCount?: unknown; availability?: string };
        const price = num(g.price, 'secure');
        if (g.secure === false || price === undefined || price <= 0) continue;
        offers.push({
          provider: 'runpod',
          gpuType: slug,
          pricePerHour: roundDollars(price),
          availability: availabilityUnits(g.availability, num(g.maxCount, 'secure') ?? 1),
          spot: false,
        });
      }
      return offers;
    },

    async verifyKey(apiKey) {
      try {
        await http.request({ method: 'GET', path: '/pods', apiKey });
        return { valid: true, message: 'The RunPod API key was accepted.' };
      } catch (err) {
        if (err instanceof ProviderRequestError && err.kind === 'invalid_key') {
          return { valid: false, message: `RunPod rejected the API key: ${err.message}` };
        }
        throw err;
      }
    },

    async launch(apiKey, spec: LaunchSpec) {
      if (spec.spot) {
        throw http.errorFor(
          'provider_error',
          'RunPod no longer offers spot (interruptible) pods; launch on-demand instead.',
          apiKey,
        );
      }
      const gpuId = runpodGpuId(spec.gpuType);
      if (!gpuId) throw http.errorFor('provider_error', `RunPod does not offer the GPU type ${spec.gpuType}.`, apiKey);
      // Bounds of CreatePodRequest: refusing here keeps every body the adapter sends valid for the document.
      if (
        spec.volumeGb !== undefined &&
        spec.volumeGb > 0 &&
        (!Number.isInteger(spec.volumeGb) || spec.volumeGb < 10)
      ) {
        throw http.errorFor('provider_error', 'RunPod persistent volumes are whole gigabytes, at least 10 GB.', apiKey);
      }
      if (spec.diskGb !== undefined && (!Number.isInteger(spec.diskGb) || spec.diskGb < 1)) {
        throw http.errorFor('provider_error', 'RunPod container disks are whole gigabytes, at least 1 GB.', apiKey);
      }
      const env: Record<string, string> = {};
      if (spec.sshPublicKey) env.PUBLIC_KEY = spec.sshPublicKey;
      const body: Record<string, unknown> = {
        name: spec.name,
        image: spec.dockerImage ?? RUNPOD_DEFAULT_IMAGE,
        gpu: { id: gpuId, count: spec.gpuCount },
        cloud: 'SECURE',
        ports: ['22/tcp', '8888/http'],
        env,
      };
      if (spec.onstartCmd) {
        // RunPod has no start-up hook: the command becomes the container's args, a shell reading it from env
        // (so no quoting of the script is needed).
        env.GPUO_STARTUP_SCRIPT = spec.onstartCmd;
        body.args = 'bash -c \'eval "$GPUO_STARTUP_SCRIPT"\'';
      }
      if (spec.diskGb !== undefined) body.disk = spec.diskGb;
      if (spec.volumeGb !== undefined && spec.volumeGb > 0) {
        body.mounts = { persistent: { size: spec.volumeGb, path: '/workspace' } };
      }
      if (spec.region) body.dataCenterIds = [spec.region];
      const res = await http.request<RunpodPod>({ method: 'POST', path: '/pods', apiKey, body });
      return normalizeRunpodPod(res.body);
    },

    async findInstanceByName(apiKey, name) {
      const pods = (await listPods(apiKey)).filter((p) => p.name === name && p.status !== 'TERMINATED');
      pods.sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
      return pods[0] ? normalizeRunpodPod(pods[0]) : null;
    },

    async getInstance(apiKey, id) {
      const pod = await getPod(apiKey, id);
      return pod ? normalizeRunpodPod(pod) : null;
    },

    async listInstances(apiKey) {
      return (await listPods(apiKey)).map(normalizeRunpodPod);
    },

    async stop(apiKey, id) {
      const res = await http.request<RunpodPod>({
        method: 'POST',
        path: `/pods/${encodeURIComponent(id)}/action`,
        apiKey,
        body: { action: 'stop' },
        accept: [404, 409],
      });
      if (res.status === 404) throw http.errorFor('not_found', `RunPod has no pod ${id}.`, apiKey, 404);
      if (res.status === 409) {
        // Not valid in the current status: an already stopped pod is what the caller wanted.
        const pod = await getPod(apiKey, id);
        if (pod && pod.status === 'EXITED') return normalizeRunpodPod(pod);
        const detail = str(res.body, 'detail') ?? 'the pod cannot be stopped in its current status';
        throw http.errorFor('provider_error', detail, apiKey, 409);
      }
      return normalizeRunpodPod(res.body);
    },

    async start(apiKey, id) {
      const res = await http.request<RunpodPod>({
        method: 'POST',
        path: `/pods/${encodeURIComponent(id)}/action`,
        apiKey,
        body: { action: 'start' },
        accept: [404, 409],
      });
      if (res.status === 404) throw http.errorFor('not_found', `RunPod has no pod ${id}.`, apiKey, 404);
      if (res.status === 409) {
        // Not valid in the current status: a pod already starting or running is what the caller wanted.
        const pod = await getPod(apiKey, id);
        if (pod && pod.status !== 'EXITED' && pod.status !== 'ERROR' && pod.status !== 'TERMINATED')
          return normalizeRunpodPod(pod);
        const detail = str(res.body, 'detail') ?? 'the pod cannot be started in its current status';
        throw http.errorFor('provider_error', detail, apiKey, 409);
      }
      return normalizeRunpodPod(res.body);
    },

    async terminate(apiKey, id) {
      await http.request({
        method: 'POST',
        path: `/pods/${encodeURIComponent(id)}/action`,
        apiKey,
        body: { action: 'terminate' },
        accept: [404],
      });
    },

    logs: (apiKey, id, read) => runpodLogs(http, apiKey, id, read, { ...DEFAULT_LOG_TIMING, ...options.logTiming }),

    async ensureSshKey(_apiKey, key) {
      // RunPod needs nothing registered: launches carry the public key in the PUBLIC_KEY env variable.
      return { name: key.name };
    },
  };
}

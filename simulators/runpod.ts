/**
 * RunPod REST v2 simulator (`openapi/runpod-rest-v2.json`): pods, pod actions, the GPU catalog and account SSH
 * keys under `/v2`, RFC 9457 problem bodies, state per API key.
 *
 * Status progression from create (or start): PROVISIONING for the first half of the boot delay, STARTING for the
 * second half, then RUNNING with a runtime (ports) and a direct SSH endpoint. `stop` → EXITED; `terminate` (or
 * DELETE) removes the pod. Spot: the v2 create body has no spot field; a body carrying the legacy
 * `interruptible` flag is refused with the observed 500 "Spot pods are no longer offered" unless the spot mode is
 * switched to `accept`.
 */
import { slugFromRunpod } from '../src/providers/gpu-catalog';
import {
  bearerKey,
  now,
  randomChars,
  type SimInstanceView,
  type SimRequest,
  type SimResponse,
  type SimulatorOptions,
} from './kit';
import {
  type Account,
  type CatalogGpu,
  CREATE_FIELDS,
  DATA_CENTERS,
  p,
  type PodState,
  RUNPOD_SIM_GPUS,
  type RunpodControl,
  type RunpodSpotMode,
} from './runpod-model';
import { podJson, podStatus, podView } from './runpod-pods';
import { type OwnControl, ProviderSimulator } from './provider-simulator';
import { SimContainers } from './containers';
import { runpodLogStream } from './sim-logs';

export { RUNPOD_SIM_GPUS, type RunpodSpotMode, type RunpodControl } from './runpod-model';

export class RunpodSimulator extends ProviderSimulator<Account, RunpodControl> {
  protected readonly basePath = '/v2';
  private spotMode: RunpodSpotMode = 'refuse';
  private readonly noCapacity = new Map<string, 400 | 500>();
  /** Secure-cloud prices set through `control.setPrice`, by slug. */
  private readonly securePrices = new Map<string, number>();
  private ipCounter = 0;

  constructor(opts: SimulatorOptions = {}) {
    super(opts, {
      rateLimited: (retryAfter) => {
        const r = p(429, 'rate limit exceeded for the minute window');
        if (retryAfter !== null) r.headers = { 'retry-after': String(retryAfter) };
        return r;
      },
      serverError: (status) => p(status, 'upstream service error'),
      notFound: (path) => p(404, `no route for ${path}`),
      badJson: () => p(400, 'request body is not valid JSON'),
    });
    for (const k of opts.keys ?? []) this.addKey(k);
    this.routes();
  }

  protected newAccount(): Account {
    return { pods: new Map(), sshKeys: [] };
  }

  /** Job containers (./containers): the container's args run the start command kept in env. */
  private readonly containers = new SimContainers();

  protected override onClose(): void {
    this.containers.stopAll();
  }

  protected newKey(): string {
    return `rpa_${randomChars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 40)}`;
  }

  protected instanceViews(key: string): SimInstanceView[] {
    return [...(this.accounts.get(key)?.pods.values() ?? [])].map((pod) => podView(pod));
  }

  protected resetModes(): void {
    this.noCapacity.clear();
    this.securePrices.clear();
    this.spotMode = 'refuse';
  }

  protected ownControl(): OwnControl<RunpodControl> {
    return {
      setNoCapacity: (gpu, on = true, opts = {}) => {
        if (on) this.noCapacity.set(gpu, opts.status ?? 400);
        else this.noCapacity.delete(gpu);
      },
      setSpotMode: (mode) => {
        this.spotMode = mode;
      },
      preempt: (key, podId) => {
        const pod = this.accounts.get(key)?.pods.get(podId);
        if (!pod) throw new Error(`no pod ${podId} for that key`);
        this.containers.stop(pod.id);
        pod.phase = 'exited';
      },
      setUtilization: (key, podId, percent) =>
        void Object.assign(this.accounts.get(key)?.pods.get(podId) ?? {}, { gpuUtil: percent }),
      accountSshKeys: (key) => [...(this.accounts.get(key)?.sshKeys ?? [])],
      setPrice: (gpu, perGpuHour) => {
        if (perGpuHour === null) this.securePrices.delete(gpu);
        else this.securePrices.set(gpu, perGpuHour);
      },
    };
  }

  private securePrice(gpu: CatalogGpu): number {
    const slug = slugFromRunpod(gpu.id);
    return (slug ? this.securePrices.get(slug) : undefined) ?? gpu.secure;
  }

  private account(req: SimRequest): { acct: Account } | { error: SimResponse } {
    const key = bearerKey(req.headers);
    if (!key) return { error: p(401, 'missing bearer token') };
    const acct = this.accounts.get(key);
    return acct ? { acct } : { error: p(401, 'invalid or expired API key') };
  }

  private authed(handler: (acct: Account, req: SimRequest) => SimResponse): (req: SimRequest) => SimResponse {
    return (req) => {
      const a = this.account(req);
      return 'error' in a ? a.error : handler(a.acct, req);
    };
  }

  private routes(): void {
    const r = this.server;
    r.route(
      'GET',
      '/v2/catalog/gpus',
      this.authed((_a, req) => this.listGpus(req)),
    );
    r.route(
      'GET',
      '/v2/catalog/gpus/:id',
      this.authed((_a, req) => this.getGpu(req)),
    );
    r.route(
      'GET',
      '/v2/pods',
      this.authed((a) => ({ status: 200, body: { pods: [...a.pods.values()].map((x) => podJson(x)) } })),
    );
    r.route(
      'POST',
      '/v2/pods',
      this.authed((a, req) => this.createPod(a, req)),
    );
    r.route(
      'GET',
      '/v2/pods/:id',
      this.authed((a, req) => {
        const pod = a.pods.get(req.params.id!);
        return pod ? { status: 200, body: podJson(pod) } : p(404, 'pod not found');
      }),
    );
    r.route(
      'DELETE',
      '/v2/pods/:id',
      this.authed((a, req) => {
        if (!a.pods.delete(req.params.id!)) return p(404, 'pod not found');
        this.containers.remove(req.params.id!);
        return { status: 204 };
      }),
    );
    r.route(
      'GET',
      '/v2/pods/:id/logs',
      this.authed((a, req) =>
        a.pods.has(req.params.id!) ? runpodLogStream(this.containers, req.params.id!, req, p) : p(404, 'pod not found'),
      ),
    );
    r.route(
      'POST',
      '/v2/pods/:id/action',
      this.authed((a, req) => this.podAction(a, req)),
    );
    r.route(
      'GET',
      '/v2/account/ssh-keys',
      this.authed((a) => ({ status: 200, body: { keys: a.sshKeys } })),
    );
    r.route(
      'PUT',
      '/v2/account/ssh-keys',
      this.authed((a, req) => {
        const keys = (req.body as { keys?: unknown } | undefined)?.keys;
        if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string' && /^(ssh|ecdsa|sk)-\S+ \S+/.test(k))) {
          return p(422, 'Request validation failed.', ['$.keys: must be an array of authorized_keys lines']);
        }
        a.sshKeys = [...keys];
        return { status: 200, body: { keys: a.sshKeys } };
      }),
    );
  }

  private gpuJson(gpu: CatalogGpu, withAvailability: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: gpu.id,
      name: gpu.name,
      pool: gpu.pool,
      manufacturer: gpu.manufacturer,
      memory: gpu.memory,
      secure: true,
      community: true,
      price: { secure: this.securePrice(gpu), community: gpu.community },
      maxCount: { secure: gpu.maxSecure, community: gpu.maxCommunity },
    };
    if (withAvailability) {
      const slug = slugFromRunpod(gpu.id);
      const blocked = (slug && this.noCapacity.has(slug)) || this.noCapacity.has(gpu.id);
      out.availability = blocked ? 'NONE' : gpu.availability;
      if (!blocked) {
        out.dataCenters = gpu.dataCenters.map((id) => ({
          id,
          name: DATA_CENTERS[id] ?? id,
          availability: gpu.availability,
        }));
      }
    }
    return out;
  }

  private catalogQuery(req: SimRequest): { withAvailability: boolean } | SimResponse {
    const include = (req.query.get('include') ?? '').split(',').filter(Boolean);
    const product = (req.query.get('product') ?? '').split(',').filter(Boolean);
    if (include.some((i) => i !== 'AVAILABILITY')) return p(400, `unsupported include value: ${include.join(',')}`);
    const withAvailability = include.includes('AVAILABILITY');
    if (withAvailability && product.length === 0) return p(400, 'product is required with include=AVAILABILITY');
    if (!withAvailability && product.length > 0) return p(400, 'product is only valid with include=AVAILABILITY');
    if (product.some((x) => !['POD', 'CLUSTER', 'SERVERLESS'].includes(x))) return p(400, 'unsupported product value');
    return { withAvailability };
  }

  private listGpus(req: SimRequest): SimResponse {
    const q = this.catalogQuery(req);
    if ('status' in q) return q;
    return { status: 200, body: { gpus: RUNPOD_SIM_GPUS.map((x) => this.gpuJson(x, q.withAvailability)) } };
  }

  private getGpu(req: SimRequest): SimResponse {
    const q = this.catalogQuery(req);
    if ('status' in q) return q;
    const gpu = RUNPOD_SIM_GPUS.find((x) => x.id === req.params.id);
    return gpu ? { status: 200, body: this.gpuJson(gpu, q.withAvailability) } : p(404, 'gpu type not found');
  }

  private createPod(acct: Account, req: SimRequest): SimResponse {
    const body = req.body;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return p(422, 'Request validation failed.', ['$: must be an object']);
    const b = body as Record<string, unknown>;
    let interruptible = false;
    if ('interruptible' in b) {
      if (this.spotMode === 'refuse' && b.interruptible === true)
        return p(500, 'create pod: Spot pods are no longer offered');
      interruptible = b.interruptible === true;
    }
    const extra = Object.keys(b).filter((k) => !CREATE_FIELDS.has(k) && k !== 'interruptible');
    if (extra.length > 0) {
      return p(
        422,
        'Request validation failed.',
        extra.map((k) => `$: additional properties '${k}' not allowed`),
      );
    }
    const errors: string[] = [];
    if (typeof b.name !== 'string' || b.name.length === 0) errors.push('$.name: is required');
    if (b.templateId === undefined && typeof b.image !== 'string')
      errors.push('$.image: is required unless templateId is set');
    if (
      b.env !== undefined &&
      (typeof b.env !== 'object' || b.env === null || Object.values(b.env).some((v) => typeof v !== 'string'))
    ) {
      errors.push('$.env: must be an object of strings');
    }
    if (b.ports !== undefined && (!Array.isArray(b.ports) || b.ports.some((x) => typeof x !== 'string')))
      errors.push('$.ports: must be an array of strings');
    if (b.disk !== undefined && (!Number.isInteger(b.disk) || (b.disk as number) < 1))
      errors.push('$.disk: must be an integer >= 1');
    if (b.cloud !== undefined && b.cloud !== 'SECURE' && b.cloud !== 'COMMUNITY')
      errors.push('$.cloud: must be SECURE or COMMUNITY');
    const mounts = b.mounts as { persistent?: { size?: unknown; path?: unknown } } | undefined;
    if (
      mounts?.persistent &&
      (!Number.isInteger(mounts.persistent.size) ||
        (mounts.persistent.size as number) < 10 ||
        typeof mounts.persistent.path !== 'string')
    ) {
      errors.push('$.mounts.persistent: size must be an integer >= 10 and path a string');
    }
    const gpuReq = b.gpu as { id?: unknown; count?: unknown } | undefined;
    if (gpuReq !== undefined && (typeof gpuReq !== 'object' || typeof gpuReq.id !== 'string'))
      errors.push('$.gpu.id: is required');
    if (gpuReq?.count !== undefined && (!Number.isInteger(gpuReq.count) || (gpuReq.count as number) < 1))
      errors.push('$.gpu.count: must be an integer >= 1');
    if (errors.length > 0) return p(422, 'Request validation failed.', errors);
    if ((gpuReq === undefined) === (b.cpu === undefined)) return p(400, 'exactly one of gpu or cpu must be set');
    if (b.cpu !== undefined) return p(400, 'CPU pods cannot be placed in this data center set');

    const gpu = RUNPOD_SIM_GPUS.find((x) => x.id === gpuReq!.id);
    if (!gpu) return p(400, `unknown GPU type: ${String(gpuReq!.id)}`);
    const cloud = (b.cloud as 'SECURE' | 'COMMUNITY' | undefined) ?? 'SECURE';
    const count = (gpuReq!.count as number | undefined) ?? 1;
    const max = cloud === 'SECURE' ? gpu.maxSecure : gpu.maxCommunity;
    if (count > max)
      return p(400, `gpu.count ${count} exceeds the largest ${gpu.name} machine (${max}) in ${cloud} cloud`);
    const wanted = Array.isArray(b.dataCenterIds) ? (b.dataCenterIds as string[]) : [];
    const unknownDc = wanted.find((d) => !(d in DATA_CENTERS));
    if (unknownDc) return p(400, `unknown data center: ${unknownDc}`);
    const slug = slugFromRunpod(gpu.id);
    const capacity = (slug ? this.noCapacity.get(slug) : undefined) ?? this.noCapacity.get(gpu.id);
    const placeable = wanted.length === 0 ? gpu.dataCenters : wanted.filter((d) => gpu.dataCenters.includes(d));
    if (capacity !== undefined || placeable.length === 0) {
      const status = capacity ?? 400;
      return p(
        status,
        status === 500
          ? 'create pod: There are no instances currently available'
          : `There are no instances currently available with ${count}x ${gpu.id} in ${cloud} cloud; the request ` +
              `could not be placed.`,
      );
    }

    const t = now();
    const pod: PodState = {
      id: randomChars('abcdefghijklmnopqrstuvwxyz0123456789', 14),
      name: b.name as string,
      image: (b.image as string | undefined) ?? 'runpod/base:0.6.2',
      args: typeof b.args === 'string' ? b.args : '',
      disk: (b.disk as number | undefined) ?? 50,
      ports: (b.ports as string[] | undefined) ?? [],
      env: { ...((b.env as Record<string, string> | undefined) ?? {}) },
      mounts: (b.mounts as Record<string, unknown> | undefined) ?? {},
      gpu,
      securePrice: this.securePrice(gpu),
      gpuCount: count,
      cloud,
      dataCenterId: placeable[0]!,
      interruptible,
      createdAt: t,
      bootStart: t,
      bootDelay: this.bootDelay,
      phase: 'booting',
      sshPort: 30000 + (this.ipCounter % 20000),
      ipIndex: this.ipCounter++,
    };
    if (b.startSsh === true && pod.env.PUBLIC_KEY === undefined && acct.sshKeys.length > 0) {
      pod.env.PUBLIC_KEY = acct.sshKeys.join('\n');
    }
    acct.pods.set(pod.id, pod);
    // A job's container runs once booted; when its entrypoint ends the pod shows EXITED.
    this.containers.start(pod.id, pod.env.GPUO_STARTUP_SCRIPT, pod.bootDelay, () => (pod.phase = 'exited'));
    return { status: 201, body: podJson(pod) };
  }

  private podAction(acct: Account, req: SimRequest): SimResponse {
    const pod = acct.pods.get(req.params.id!);
    if (!pod) return p(404, 'pod not found');
    const action = (req.body as { action?: unknown } | undefined)?.action;
    const extra = req.body && typeof req.body === 'object' ? Object.keys(req.body).filter((k) => k !== 'action') : [];
    if (typeof action !== 'string' || !['start', 'stop', 'restart', 'terminate'].includes(action) || extra.length > 0) {
      return p(422, 'Request validation failed.', ['$.action: must be one of start, stop, restart, terminate']);
    }
    const status = podStatus(pod);
    const conflict = () => p(409, `action '${action}' is not valid for a pod in status ${status}`);
    switch (action) {
      case 'terminate':
        acct.pods.delete(pod.id);
        this.containers.remove(pod.id);
        return { status: 204 };
      case 'stop':
        if (status === 'EXITED' || status === 'ERROR') return conflict();
        this.containers.stop(pod.id);
        pod.phase = 'exited';
        break;
      case 'start':
        if (status !== 'EXITED' && status !== 'ERROR') return conflict();
        pod.phase = 'booting';
        pod.bootStart = now();
        pod.bootDelay = this.bootDelay;
        break;
      case 'restart':
        if (status !== 'RUNNING') return conflict();
        pod.bootDelay = this.bootDelay;
        pod.bootStart = now() - pod.bootDelay / 2;
        break;
    }
    return { status: 200, body: podJson(pod) };
  }
}

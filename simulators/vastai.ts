/**
 * Vast.ai simulator (`openapi/vastai.yaml`): offer search, create on an ask, instance list (v1, paged) and show
 * (v0), manage/destroy, account and instance SSH keys, the current user. Errors are `{success:false,error,msg}`,
 * 429s carry no Retry-After, state is per API key.
 *
 * `actual_status` goes null → loading → running over the boot delay (null for the first third). `state:"stopped"`
 * stops at once. Offers are a fixed, deterministic marketplace; renting does not use them up. A preempted
 * interruptible instance goes to `stopped` (or `exited`) while its intended status stays `running`, or vanishes.
 */
import { slugFromVast } from '../src/providers/gpu-catalog';
import {
  bearerKey,
  DEFAULT_BOOT_DELAY_MS,
  now,
  randomChars,
  SimServer,
  testIp,
  type CommonControl,
  type SimHandle,
  type SimInstanceView,
  type SimRequest,
  type SimResponse,
  type SimulatorOptions,
} from './kit';

interface OfferSeed {
  gpu: string;
  ramMb: number;
  perGpu: number;
  counts: number[];
  dlperf: number;
  cudaMax: number;
}

/** Per-GPU on-demand prices inside provider-apis.md §5; three names map to no slug. */
const SEEDS: readonly OfferSeed[] = [
  { gpu: 'H100 SXM', ramMb: 81559, perGpu: 1.85, counts: [1, 2, 8], dlperf: 110, cudaMax: 12.8 },
  { gpu: 'H100 PCIE', ramMb: 81559, perGpu: 1.6, counts: [1, 2], dlperf: 90, cudaMax: 12.8 },
  { gpu: 'H100 NVL', ramMb: 95830, perGpu: 2.27, counts: [1, 2], dlperf: 95, cudaMax: 12.8 },
  { gpu: 'H200', ramMb: 143771, perGpu: 2.55, counts: [1, 8], dlperf: 130, cudaMax: 12.8 },
  { gpu: 'A100 SXM4', ramMb: 81920, perGpu: 1.1, counts: [1, 2, 8], dlperf: 60, cudaMax: 12.4 },
  { gpu: 'A100 SXM4', ramMb: 40960, perGpu: 0.8, counts: [1, 4], dlperf: 50, cudaMax: 12.2 },
  { gpu: 'A100 PCIE', ramMb: 81920, perGpu: 1.05, counts: [1, 2], dlperf: 55, cudaMax: 12.4 },
  { gpu: 'L40S', ramMb: 46068, perGpu: 0.7, counts: [1, 2, 4], dlperf: 55, cudaMax: 12.8 },
  { gpu: 'L40', ramMb: 46068, perGpu: 0.65, counts: [1, 4], dlperf: 50, cudaMax: 12.4 },
  { gpu: 'RTX 4090', ramMb: 24564, perGpu: 0.4, counts: [1, 2, 4], dlperf: 40, cudaMax: 12.8 },
  { gpu: 'RTX 5090', ramMb: 32607, perGpu: 0.55, counts: [1, 2], dlperf: 52, cudaMax: 12.8 },
  { gpu: 'RTX 3090', ramMb: 24576, perGpu: 0.22, counts: [1, 2, 4], dlperf: 22, cudaMax: 12.4 },
  { gpu: 'RTX A6000', ramMb: 49140, perGpu: 0.48, counts: [1, 2], dlperf: 30, cudaMax: 12.4 },
  { gpu: 'RTX 6000Ada', ramMb: 49140, perGpu: 0.75, counts: [1, 2], dlperf: 48, cudaMax: 12.8 },
  { gpu: 'A40', ramMb: 46068, perGpu: 0.4, counts: [1, 2], dlperf: 28, cudaMax: 12.2 },
  { gpu: 'A10', ramMb: 23028, perGpu: 0.26, counts: [1], dlperf: 18, cudaMax: 12.2 },
  { gpu: 'L4', ramMb: 23034, perGpu: 0.3, counts: [1, 2], dlperf: 15, cudaMax: 12.4 },
  { gpu: 'B200', ramMb: 183359, perGpu: 3.8, counts: [1, 8], dlperf: 200, cudaMax: 12.8 },
  { gpu: 'GH200 SXM', ramMb: 97871, perGpu: 1.4, counts: [1], dlperf: 100, cudaMax: 12.8 },
  { gpu: 'RTX A5000', ramMb: 24564, perGpu: 0.2, counts: [1, 2], dlperf: 20, cudaMax: 12.2 },
  { gpu: 'Tesla V100', ramMb: 16384, perGpu: 0.25, counts: [1, 4], dlperf: 15, cudaMax: 12.0 },
  { gpu: 'Q RTX 8000', ramMb: 49152, perGpu: 0.3, counts: [1], dlperf: 18, cudaMax: 12.0 },
];

const PLACES = ['Texas, US', 'Quebec, CA', 'Oslo, NO', 'California, US', 'Bavaria, DE'];

interface Offer {
  id: number;
  seed: OfferSeed;
  numGpus: number;
  dphBase: number;
  dphTotal: number;
  minBid: number;
  storageCost: number;
  geolocation: string;
  machineId: number;
  hostId: number;
  cpuCores: number;
  cpuRamMb: number;
  diskSpace: number;
  reliability: number;
}

function round(n: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function buildOffers(): Offer[] {
  const offers: Offer[] = [];
  let i = 0;
  for (const seed of SEEDS) {
    for (const n of seed.counts) {
      // Two hosts per configuration, the second a little dearer.
      for (const markup of [1, 1.12]) {
        const base = round(seed.perGpu * n * markup * (1 + (i % 3) * 0.01), 4);
        const storageCost = 0.15;
        offers.push({
          id: 21_000_000 + i * 37,
          seed,
          numGpus: n,
          dphBase: base,
          dphTotal: round(base + 0.0021 * n, 6),
          minBid: round(base * 0.45, 4),
          storageCost,
          geolocation: PLACES[i % PLACES.length]!,
          machineId: 40_000 + i,
          hostId: 9_000 + (i % 40),
          cpuCores: 16 * n,
          cpuRamMb: 64_000 * n,
          diskSpace: 500 + 100 * n,
          reliability: round(0.995 - (i % 5) * 0.001, 4),
        });
        i++;
      }
    }
  }
  return offers;
}

export const VAST_SIM_OFFERS: readonly Offer[] = buildOffers();

function offerJson(o: Offer): Record<string, unknown> {
  return {
    id: o.id,
    ask_contract_id: o.id,
    bundle_id: o.id + 1,
    bundled_results: null,
    bw_nvlink: o.numGpus > 1 ? 400 : 0,
    compute_cap: 890,
    cpu_arch: 'amd64',
    cpu_cores: o.cpuCores,
    cpu_cores_effective: o.cpuCores / 2,
    cpu_ghz: 3.1,
    cpu_name: 'AMD EPYC 7543 32-Core Processor',
    cpu_ram: o.cpuRamMb,
    credit_discount_max: 0.4,
    cuda_max_good: o.seed.cudaMax,
    direct_port_count: 100,
    disk_bw: 2500,
    disk_name: 'Samsung SSD 990',
    disk_space: o.diskSpace,
    dlperf: o.seed.dlperf * o.numGpus,
    dlperf_per_dphtotal: round((o.seed.dlperf * o.numGpus) / o.dphTotal, 2),
    dph_base: o.dphBase,
    dph_total: o.dphTotal,
    driver_version: '550.127.05',
    duration: 2_592_000,
    end_date: 1_900_000_000,
    external: false,
    flops_per_dphtotal: round((o.seed.dlperf * 1.3 * o.numGpus) / o.dphTotal, 2),
    geolocation: o.geolocation,
    gpu_arch: 'nvidia',
    gpu_display_active: false,
    gpu_frac: 1,
    gpu_ids: Array.from({ length: o.numGpus }, (_, k) => o.machineId * 10 + k),
    gpu_lanes: 16,
    gpu_mem_bw: 1500,
    gpu_name: o.seed.gpu,
    gpu_ram: o.seed.ramMb,
    gpu_total_ram: o.seed.ramMb * o.numGpus,
    gpu_max_power: 450,
    gpu_max_temp: 83,
    has_avx: 1,
    host_id: o.hostId,
    hosting_type: 1,
    inet_down: 2000,
    inet_down_cost: 0.002,
    inet_up: 1800,
    inet_up_cost: 0.002,
    is_bid: false,
    machine_id: o.machineId,
    min_bid: o.minBid,
    num_gpus: o.numGpus,
    os_version: '22.04',
    pci_gen: 4,
    pcie_bw: 25,
    public_ipaddr: testIp(o.machineId),
    reliability: o.reliability,
    reliability2: o.reliability,
    rentable: true,
    rented: false,
    score: round(o.seed.dlperf * o.numGpus * o.reliability, 2),
    start_date: 1_700_000_000,
    static_ip: true,
    storage_cost: o.storageCost,
    verification: 'verified',
    vms_enabled: false,
    search: { gpuCostPerHour: o.dphBase, diskHour: round(o.dphTotal - o.dphBase), totalHour: o.dphTotal },
  };
}

export interface VastControl extends CommonControl {
  /**
   * `hidden` (default): the GPU's offers leave the search and creates on them answer 404 `no_such_ask`.
   * `unavailable`: offers are still listed but creates fail (an offer taken between search and create).
   */
  setNoCapacity(gpu: string, on?: boolean, opts?: { mode?: 'hidden' | 'unavailable' }): void;
  /** Takes an instance away without a request: to `stopped` (default) or `exited`, or removes it. */
  preempt(key: string, id: string | number, how?: 'stopped' | 'exited' | 'remove'): void;
  /** What the instance reports as `gpu_util` (percent) while running; 0 by default. */
  setUtilization(key: string, id: string | number, percent: number): void;
  /** Public keys registered on the account (`/api/v0/ssh/`). */
  sshKeys(key: string): string[];
}

interface VastInst {
  id: number;
  /** `gpu_util` while running (percent). */
  gpuUtil?: number;
  label: string | null;
  offer: Offer;
  image: string;
  disk: number;
  onstart: string | null;
  env: [string, string][];
  isBid: boolean;
  price: number;
  runtype: string;
  createdAt: number;
  bootStart: number;
  bootDelay: number;
  phase: 'booting' | 'stopped' | 'exited';
  intended: 'running' | 'stopped';
  sshKeys: string[];
  sshPort: number;
  jupyterToken: string;
}

interface Account {
  userId: number;
  email: string;
  instances: Map<number, VastInst>;
  sshKeys: { id: number; key: string; createdAt: string }[];
}

const err = (status: number, error: string, msg: string, extra: Record<string, unknown> = {}): SimResponse => ({
  status,
  body: { success: false, error, msg, ...extra },
});

const FILTERABLE = new Set(['actual_status', 'gpu_name', 'verification', 'id', 'label', 'intended_status', 'cur_state', 'next_state', 'image_uuid', 'machine_id', 'is_bid', 'template_id', 'template_hash_id']);

type Filter = Record<string, unknown>;

function matchOp(value: unknown, op: string, target: unknown): boolean {
  switch (op) {
    case 'eq':
      return value === target;
    case 'neq':
      return value !== target;
    case 'gt':
      return typeof value === 'number' && typeof target === 'number' && value > target;
    case 'gte':
      return typeof value === 'number' && typeof target === 'number' && value >= target;
    case 'lt':
      return typeof value === 'number' && typeof target === 'number' && value < target;
    case 'lte':
      return typeof value === 'number' && typeof target === 'number' && value <= target;
    case 'in':
      return Array.isArray(target) && target.includes(value);
    case 'notin':
      return Array.isArray(target) && !target.includes(value);
    default:
      return true;
  }
}

function parseEnv(env: unknown): [string, string][] {
  if (typeof env === 'string') {
    const out: [string, string][] = [];
    const re = /-e\s+([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(env))) out.push([m[1]!, m[2]!]);
    return out;
  }
  if (env && typeof env === 'object') {
    return Object.entries(env as Record<string, unknown>)
      .filter(([k]) => !k.startsWith('-'))
      .map(([k, v]) => [k, String(v)]);
  }
  return [];
}

export class VastSimulator {
  private readonly accounts = new Map<string, Account>();
  private bootDelay: number;
  private readonly noCapacity = new Map<string, 'hidden' | 'unavailable'>();
  /**
   * Ids continue from the clock, in milliseconds since 2025: a restarted simulator never hands out an id an
   * earlier run did (that would take more than one create per millisecond, sustained), so rows recorded
   * against an earlier run never collide with new instances.
   */
  private nextInstanceId = Date.now() - Date.UTC(2025, 0, 1);
  private nextSshKeyId = Math.floor((Date.now() - Date.UTC(2025, 0, 1)) / 1000);
  private nextUserId = 310_000;
  readonly server: SimServer;

  constructor(opts: SimulatorOptions = {}) {
    this.bootDelay = opts.bootDelayMs ?? DEFAULT_BOOT_DELAY_MS;
    for (const k of opts.keys ?? []) this.addKey(k);
    this.server = new SimServer(
      {
        rateLimited: () => ({ status: 429, body: { detail: 'API requests too frequent endpoint threshold=4.5' } }),
        serverError: (status) => err(status, 'server_error', 'Internal server error, please try again later'),
        notFound: (path) => err(404, 'not_found', `No endpoint ${path}`),
        badJson: () => err(400, 'invalid_request', 'Invalid json body'),
      },
      opts.recordLimit,
    );
    this.routes();
  }

  addKey(key: string): void {
    if (this.accounts.has(key)) return;
    const userId = this.nextUserId++;
    this.accounts.set(key, { userId, email: `user${userId}@example.com`, instances: new Map(), sshKeys: [] });
  }

  createKey(): string {
    const key = randomChars('0123456789abcdef', 64);
    this.addKey(key);
    return key;
  }

  async start(host: string, port: number): Promise<SimHandle<VastControl>> {
    const origin = await this.server.listen(host, port);
    return { baseUrl: origin, createKey: () => this.createKey(), control: this.control(), close: () => this.server.close() };
  }

  private control(): VastControl {
    const s = this.server;
    return {
      ...s.faultControl(),
      setBootDelay: (ms) => {
        this.bootDelay = ms;
      },
      setNoCapacity: (gpu, on = true, opts = {}) => {
        if (on) this.noCapacity.set(gpu, opts.mode ?? 'hidden');
        else this.noCapacity.delete(gpu);
      },
      preempt: (key, id, how = 'stopped') => {
        const acct = this.accounts.get(key);
        const inst = acct?.instances.get(Number(id));
        if (!acct || !inst) throw new Error(`no instance ${id} for that key`);
        if (how === 'remove') acct.instances.delete(inst.id);
        else inst.phase = how;
      },
      setUtilization: (key, id, percent) => {
        const inst = this.accounts.get(key)?.instances.get(Number(id));
        if (!inst) throw new Error(`no instance ${id} for that key`);
        inst.gpuUtil = percent;
      },
      sshKeys: (key) => (this.accounts.get(key)?.sshKeys ?? []).map((k) => k.key),
      instances: (key) => [...(this.accounts.get(key)?.instances.values() ?? [])].map((i) => this.view(i)),
      addKey: (key) => this.addKey(key),
      reset: () => {
        s.resetFaults();
        this.noCapacity.clear();
      },
    };
  }

  private view(i: VastInst): SimInstanceView {
    return {
      id: String(i.id),
      name: i.label,
      status: this.actualStatus(i),
      gpu: i.offer.seed.gpu,
      gpuCount: i.offer.numGpus,
      spot: i.isBid,
      region: i.offer.geolocation,
      image: i.image,
      env: Object.fromEntries(i.env),
      sshKeys: [...i.sshKeys],
      createdAt: new Date(i.createdAt).toISOString(),
    };
  }

  private actualStatus(i: VastInst): string | null {
    if (i.phase !== 'booting') return i.phase;
    const elapsed = now() - i.bootStart;
    if (elapsed >= i.bootDelay) return 'running';
    return elapsed < i.bootDelay / 3 ? null : 'loading';
  }

  private capacityMode(o: Offer): 'hidden' | 'unavailable' | undefined {
    const slug = slugFromVast(o.seed.gpu, o.seed.ramMb);
    return (slug ? this.noCapacity.get(slug) : undefined) ?? this.noCapacity.get(o.seed.gpu);
  }

  /** Fields shared by both instance shapes (v0 show, v1 list). */
  private instanceBase(i: VastInst): Record<string, unknown> {
    const o = i.offer;
    const status = this.actualStatus(i);
    const running = status === 'running';
    const since = i.bootStart + i.bootDelay;
    return {
      id: i.id,
      actual_status: status,
      intended_status: i.intended,
      cur_state: i.phase === 'booting' ? 'running' : 'stopped',
      next_state: i.intended,
      label: i.label,
      template_id: null,
      template_hash_id: null,
      template_name: null,
      image_uuid: i.image,
      image_args: [],
      image_runtype: i.runtype,
      jupyter_token: i.jupyterToken,
      status_msg: running ? 'success, running' : status === null ? null : `${status}`,
      public_ipaddr: testIp(o.machineId),
      local_ipaddrs: `10.0.${o.machineId % 250}.${(i.id % 250) + 2} 172.17.0.1 `,
      ssh_host: `ssh${(i.id % 9) + 1}.vast.ai`,
      ssh_idx: String((i.id % 9) + 1),
      ssh_port: i.sshPort,
      machine_dir_ssh_port: i.sshPort + 1,
      machine_id: o.machineId,
      start_date: i.createdAt / 1000,
      end_date: i.createdAt / 1000 + 2_592_000,
      uptime_mins: running ? Math.floor((now() - since) / 60_000) : null,
      duration: 2_592_000,
      cpu_arch: 'amd64',
      cpu_cores: o.cpuCores,
      cpu_cores_effective: o.cpuCores / 2,
      cpu_name: 'AMD EPYC 7543 32-Core Processor',
      cpu_ram: o.cpuRamMb,
      cpu_util: 0,
      mem_limit: null,
      mem_usage: null,
      vmem_usage: null,
      gpu_name: o.seed.gpu,
      gpu_arch: 'nvidia',
      gpu_totalram: o.seed.ramMb,
      gpu_ram: o.seed.ramMb,
      gpu_util: running ? (i.gpuUtil ?? 0) : null,
      gpu_temp: running ? 34 : null,
      gpu_frac: 1,
      gpu_lanes: 16,
      gpu_mem_bw: 1500,
      bw_nvlink: o.numGpus > 1 ? 400 : 0,
      disk_name: 'Samsung SSD 990',
      disk_space: i.disk,
      disk_bw: 2500,
      disk_util: 0,
      disk_usage: 0,
      direct_port_count: 100,
      direct_port_start: 40000,
      direct_port_end: 40099,
      static_ip: true,
      geolocation: o.geolocation,
      verification: 'verified',
      rentable: true,
      host_id: o.hostId,
      min_bid: o.minBid,
      is_bid: i.isBid,
      dph_base: o.dphBase,
      dph_total: i.price,
      dlperf: o.seed.dlperf * o.numGpus,
      dlperf_per_dphtotal: round((o.seed.dlperf * o.numGpus) / i.price, 2),
      flops_per_dphtotal: round((o.seed.dlperf * 1.3 * o.numGpus) / i.price, 2),
      total_flops: o.seed.dlperf * 1.3 * o.numGpus,
      score: round(o.seed.dlperf * o.numGpus * o.reliability, 2),
      reliability2: o.reliability,
      os_version: '22.04',
      mobo_name: 'H12SSL-i',
      pci_gen: 4,
      pcie_bw: 25,
      num_gpus: o.numGpus,
      webpage: null,
      search: { gpuCostPerHour: o.dphBase, diskHour: round(o.dphTotal - o.dphBase), totalHour: o.dphTotal },
      instance: { gpuCostPerHour: i.isBid ? i.price : o.dphBase, diskHour: round(o.dphTotal - o.dphBase), totalHour: i.price },
      storage_cost: o.storageCost,
      storage_total_cost: round(o.storageCost * i.disk / 720),
      vram_costperhour: round(i.price / (o.seed.ramMb * o.numGpus)),
      credit_balance: null,
      credit_discount: null,
      credit_discount_max: 0.4,
      client_run_time: 0,
      host_run_time: 2_592_000,
      external: false,
      time_remaining: '',
      time_remaining_isbid: '',
    };
  }

  /** `GET /api/v0/instances/{id}/` shape: ports as a list of numbers, env as `K=V` strings. */
  private instanceV0(i: VastInst): Record<string, unknown> {
    const running = this.actualStatus(i) === 'running';
    return {
      ...this.instanceBase(i),
      bundle_id: i.offer.id + 1,
      hosting_type: 1,
      logo: '/static/logos/vastai_small2.png',
      extra_env: i.env.map(([k, v]) => `${k}=${v}`),
      onstart: i.onstart,
      ports: running ? [22] : [],
    };
  }

  /** `GET /api/v1/instances/` shape: ports as the Docker mapping (null until running), env as pairs. */
  private instanceV1(i: VastInst): Record<string, unknown> {
    const running = this.actualStatus(i) === 'running';
    const country = i.offer.geolocation.split(',').pop()?.trim() ?? null;
    return {
      ...this.instanceBase(i),
      extra_env: i.env.map(([k, v]) => [k, v]),
      onstart: i.onstart ?? '',
      ports: running ? { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: String(i.sshPort) }] } : null,
      country_code: country,
      volume_info: [],
    };
  }

  private key(req: SimRequest): string | null {
    return bearerKey(req.headers) ?? req.query.get('api_key');
  }

  private authed(handler: (acct: Account, req: SimRequest) => SimResponse): (req: SimRequest) => SimResponse {
    return (req) => {
      const key = this.key(req);
      const acct = key ? this.accounts.get(key) : undefined;
      return acct ? handler(acct, req) : err(401, 'auth_error', 'Invalid user key');
    };
  }

  private routes(): void {
    const r = this.server;
    r.route('POST', '/api/v0/bundles', (req) => {
      // Offer search works without a key (as gpuhunt uses it); a key that is sent must be valid.
      const key = this.key(req);
      if (key && !this.accounts.has(key)) return err(401, 'auth_error', 'Invalid user key');
      return this.search(req.body);
    });
    r.route('PUT', '/api/v0/asks/:id', this.authed((a, req) => this.create(a, req)));
    r.route('GET', '/api/v1/instances', this.authed((a, req) => this.listV1(a, req)));
    r.route('GET', '/api/v0/instances', this.authed((a) => {
      const list = [...a.instances.values()].map((i) => this.instanceV0(i));
      return { status: 200, body: { instances_found: list.length, instances: list } };
    }));
    r.route('GET', '/api/v0/instances/:id', this.authed((a, req) => {
      if (!/^\d+$/.test(req.params.id!)) return err(400, 'invalid_args', 'invalid instance_id');
      const inst = a.instances.get(Number(req.params.id));
      return { status: 200, body: { instances: inst ? this.instanceV0(inst) : null } };
    }));
    r.route('PUT', '/api/v0/instances/:id', this.authed((a, req) => this.manage(a, req)));
    r.route('DELETE', '/api/v0/instances/:id', this.authed((a, req) => {
      if (!/^\d+$/.test(req.params.id!)) return err(400, 'invalid_args', 'invalid instance_id');
      if (!a.instances.delete(Number(req.params.id))) return err(404, 'not_found', 'Instance not found');
      return { status: 200, body: { success: true, msg: 'Instance destroyed successfully' } };
    }));
    r.route('POST', '/api/v0/instances/:id/ssh', this.authed((a, req) => {
      const inst = /^\d+$/.test(req.params.id!) ? a.instances.get(Number(req.params.id)) : undefined;
      if (!inst) return err(404, 'not_found', 'Instance not found');
      const key = (req.body as { ssh_key?: unknown } | undefined)?.ssh_key;
      if (typeof key !== 'string' || key.trim() === '') return err(400, 'no_ssh_key', 'No ssh key provided');
      if (!inst.sshKeys.includes(key.trim())) inst.sshKeys.push(key.trim());
      return { status: 200, body: { success: true, msg: 'SSH key attached successfully' } };
    }));
    r.route('GET', '/api/v0/instances/:id/ssh', this.authed((a, req) => {
      const inst = /^\d+$/.test(req.params.id!) ? a.instances.get(Number(req.params.id)) : undefined;
      if (!inst) return err(404, 'not_found', 'Instance not found');
      return { status: 200, body: { success: true, ssh_keys: inst.sshKeys.map((k, n) => ({ id: n + 1, public_key: k })) } };
    }));
    r.route('POST', '/api/v0/ssh', this.authed((a, req) => {
      const key = (req.body as { ssh_key?: unknown } | undefined)?.ssh_key;
      if (typeof key !== 'string' || key.trim() === '') return err(400, 'no_ssh_key', 'No ssh key provided');
      const entry = { id: this.nextSshKeyId++, key: key.trim(), createdAt: new Date(now()).toISOString() };
      a.sshKeys.push(entry);
      // Vast pushes account keys to the account's current instances.
      for (const inst of a.instances.values()) if (!inst.sshKeys.includes(entry.key)) inst.sshKeys.push(entry.key);
      return {
        status: 200,
        body: { success: true, key: { id: entry.id, user_id: a.userId, public_key: entry.key, created_at: entry.createdAt, deleted_at: null } },
      };
    }));
    r.route('GET', '/api/v0/ssh', this.authed((a) => ({
      status: 200,
      body: a.sshKeys.map((k) => ({ id: k.id, user_id: a.userId, key: k.key, created_at: k.createdAt, deleted_at: null })),
    })));
    r.route('DELETE', '/api/v0/ssh/:id', this.authed((a, req) => {
      const n = a.sshKeys.findIndex((k) => String(k.id) === req.params.id);
      if (n < 0) return err(400, 'invalid_args', 'ssh key not found');
      a.sshKeys.splice(n, 1);
      return { status: 200, body: { success: true } };
    }));
    r.route('GET', '/api/v0/users/current', this.authed((a) => ({
      status: 200,
      body: {
        id: a.userId,
        key_id: a.userId * 10 + 1,
        email: a.email,
        balance: 25.0,
        ssh_key: a.sshKeys.map((k) => k.key).join('\n'),
        sid: `sim${a.userId}`,
      },
    })));
  }

  private search(body: unknown): SimResponse {
    if (body === undefined) body = {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) return err(400, 'invalid_request', 'Invalid json body');
    const q = body as Record<string, unknown>;
    const type = q.type ?? 'on-demand';
    if (typeof type !== 'string' || !['on-demand', 'ondemand', 'bid', 'interruptible', 'reserved'].includes(type)) {
      return err(400, 'invalid_request', `invalid type ${String(type)}`);
    }
    const bid = type === 'bid' || type === 'interruptible';
    const reserved = new Set(['type', 'order', 'limit', 'allocated_storage', 'disable_bundling', 'show_incompatible']);
    let offers = VAST_SIM_OFFERS.filter((o) => this.capacityMode(o) !== 'hidden').map((o) => ({ o, json: offerJson(o) }));
    for (const [field, cond] of Object.entries(q)) {
      if (reserved.has(field) || !cond || typeof cond !== 'object' || Array.isArray(cond)) continue;
      offers = offers.filter(({ json }) =>
        Object.entries(cond as Filter).every(([op, target]) => {
          let value: unknown = json[field];
          let t = target;
          if (field === 'verified') value = json.verification === 'verified';
          if (field === 'gpu_name') {
            const norm = (x: unknown) => (typeof x === 'string' ? x.replace(/_/g, ' ') : x);
            t = Array.isArray(target) ? target.map(norm) : norm(target);
          }
          if (field === 'geolocation' && typeof value === 'string') value = value.split(',').pop()!.trim();
          if (!(field in json) && field !== 'verified') return true;
          return matchOp(value, op, t);
        }),
      );
    }
    const order = Array.isArray(q.order) ? (q.order as unknown[][]) : [['score', 'desc']];
    offers.sort((a, b) => {
      for (const entry of order) {
        const [col, dir] = entry as [string, string?];
        const av = a.json[col];
        const bv = b.json[col];
        if (typeof av === 'number' && typeof bv === 'number' && av !== bv) return dir === 'desc' ? bv - av : av - bv;
      }
      return a.o.id - b.o.id;
    });
    const limit = typeof q.limit === 'number' && q.limit > 0 ? Math.floor(q.limit) : 64;
    const out = offers.slice(0, limit).map(({ json }) => (bid ? { ...json, is_bid: true } : json));
    return { status: 200, body: { offers: out } };
  }

  private create(acct: Account, req: SimRequest): SimResponse {
    const askId = Number(req.params.id);
    const offer = Number.isInteger(askId) ? VAST_SIM_OFFERS.find((o) => o.id === askId) : undefined;
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (!offer) {
      return err(404, 'invalid_args', `error 404/3603: no_such_ask Instance type by id ${req.params.id} is not available.`, { ask_id: askId });
    }
    if (this.capacityMode(offer)) {
      return b.cancel_unavail === true
        ? err(410, 'no_such_ask', `error 410/3907: no_such_ask Instance type ${askId} is no longer available.`, { ask_id: askId })
        : err(404, 'invalid_args', `error 404/3603: no_such_ask Instance type by id ${askId} is not available.`, { ask_id: askId });
    }
    if (typeof b.image !== 'string' && typeof b.template_hash_id !== 'string') {
      return err(400, 'invalid_args', "error 400/3467: Invalid args: 'image' is required", { ask_id: askId });
    }
    let price = offer.dphTotal;
    let isBid = false;
    if (b.price !== undefined && b.price !== null) {
      if (typeof b.price !== 'number' || b.price < 0.001 || b.price > 128) {
        return err(400, 'invalid_price', 'error 400/3211: price must be a number between 0.001 and 128', { ask_id: askId });
      }
      if (b.price < offer.minBid) {
        return err(400, 'invalid_price', `error 400/3212: Your bid price of ${b.price} is below the minimum bid price of ${offer.minBid}`, {
          ask_id: askId,
        });
      }
      price = b.price;
      isBid = true;
    }
    if (b.disk !== undefined && (typeof b.disk !== 'number' || b.disk <= 0)) {
      return err(400, 'invalid_args', 'error 400/3467: Invalid args: disk must be a positive number', { ask_id: askId });
    }
    const t = now();
    const id = this.nextInstanceId++;
    const inst: VastInst = {
      id,
      label: typeof b.label === 'string' ? b.label : null,
      offer,
      image: (b.image as string | undefined) ?? 'vastai/base-image:@vastai-automatic-tag',
      disk: (b.disk as number | undefined) ?? 10,
      onstart: typeof b.onstart === 'string' ? b.onstart : null,
      env: parseEnv(b.env),
      isBid,
      price,
      runtype: typeof b.runtype === 'string' ? b.runtype : 'ssh',
      createdAt: t,
      bootStart: t,
      bootDelay: this.bootDelay,
      phase: b.target_state === 'stopped' ? 'stopped' : 'booting',
      intended: b.target_state === 'stopped' ? 'stopped' : 'running',
      sshKeys: acct.sshKeys.map((k) => k.key),
      sshPort: 10_000 + (id % 50_000),
      jupyterToken: randomChars('0123456789abcdef', 64),
    };
    acct.instances.set(id, inst);
    return { status: 200, body: { success: true, new_contract: id } };
  }

  private manage(acct: Account, req: SimRequest): SimResponse {
    if (!/^\d+$/.test(req.params.id!)) return err(400, 'invalid_args', 'invalid instance_id');
    const inst = acct.instances.get(Number(req.params.id));
    if (!inst) return err(404, 'not_found', 'Instance not found');
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (b.state === undefined && b.label === undefined) return err(400, 'invalid_args', 'one of state or label is required');
    if (b.state !== undefined && b.state !== 'running' && b.state !== 'stopped') return err(400, 'invalid_args', `invalid state ${String(b.state)}`);
    if (b.label !== undefined) {
      if (typeof b.label !== 'string' || b.label.length > 1024) return err(400, 'invalid_args', 'invalid label');
      inst.label = b.label;
    }
    if (b.state === 'stopped') {
      inst.phase = 'stopped';
      inst.intended = 'stopped';
    } else if (b.state === 'running' && inst.phase !== 'booting') {
      inst.phase = 'booting';
      inst.intended = 'running';
      inst.bootStart = now();
      inst.bootDelay = this.bootDelay;
    }
    return { status: 200, body: { success: true } };
  }

  private listV1(acct: Account, req: SimRequest): SimResponse {
    let filters: Filter;
    let orderBy: { col: string; dir?: string }[];
    try {
      filters = JSON.parse(req.query.get('select_filters') ?? '{}') as Filter;
      orderBy = JSON.parse(req.query.get('order_by') ?? '[]') as { col: string; dir?: string }[];
    } catch {
      return err(400, 'invalid_request', 'Error in query parameters: invalid JSON');
    }
    if (!filters || typeof filters !== 'object' || Array.isArray(filters)) return err(400, 'invalid_request', 'Error in query parameters: select_filters must be an object');
    for (const col of Object.keys(filters)) {
      if (!FILTERABLE.has(col)) return { status: 400, body: { error: 'invalid_request', msg: `Error in query parameters: ${col} is not a valid search key` } };
    }
    const desc = orderBy[0]?.col === 'id' && orderBy[0]?.dir === 'desc';
    let rawLimit = Number(req.query.get('limit') ?? 25);
    if (!Number.isFinite(rawLimit) || rawLimit <= 0) rawLimit = 5;
    const limit = Math.min(25, Math.floor(rawLimit));
    let after: number | null = null;
    const token = req.query.get('after_token');
    if (token) {
      try {
        const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { values?: { id?: unknown } };
        if (typeof parsed.values?.id !== 'number') throw new Error('bad token');
        after = parsed.values.id;
      } catch {
        return { status: 400, body: { error: 'invalid_token', msg: 'Invalid after_token' } };
      }
    }
    const all = [...acct.instances.values()]
      .map((i) => ({ i, json: this.instanceV1(i) }))
      .filter(({ json }) =>
        Object.entries(filters).every(([col, cond]) =>
          cond && typeof cond === 'object' && !Array.isArray(cond)
            ? Object.entries(cond as Filter).every(([op, target]) => matchOp(json[col], op, target))
            : json[col] === cond,
        ),
      )
      .sort((a, b) => (desc ? b.i.id - a.i.id : a.i.id - b.i.id));
    const labelCounts: Record<string, number> = {};
    for (const { i } of all) labelCounts[i.label ?? ''] = (labelCounts[i.label ?? ''] ?? 0) + 1;
    const rest = after === null ? all : all.filter(({ i }) => (desc ? i.id < after! : i.id > after!));
    const page = rest.slice(0, limit);
    const last = page[page.length - 1];
    const nextToken =
      rest.length > limit && last ? Buffer.from(JSON.stringify({ values: { id: last.i.id } })).toString('base64') : null;
    return {
      status: 200,
      body: {
        success: true,
        instances_found: page.length,
        total_instances: all.length,
        label_counts: labelCounts,
        next_token: nextToken,
        instances: page.map(({ json }) => json),
      },
    };
  }
}

/**
 * The Vast.ai simulator's offer catalog and its JSON, its control surface, per-key state, search filters and error
 * shape.
 */
import { testIp, type CommonControl, type SimResponse } from './kit';

export interface OfferSeed {
  gpu: string;
  ramMb: number;
  perGpu: number;
  counts: number[];
  dlperf: number;
  cudaMax: number;
}

/** Per-GPU on-demand prices inside provider-apis.md §5; three names map to no slug. */
export const SEEDS: readonly OfferSeed[] = [
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

export const PLACES = ['Texas, US', 'Quebec, CA', 'Oslo, NO', 'California, US', 'Bavaria, DE'];

export interface Offer {
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

export function round(n: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function buildOffers(): Offer[] {
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

export function offerJson(o: Offer): Record<string, unknown> {
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
  /** How long after `request_logs` its `result_url` has the text (default 1 s), for requests from now on. */
  setLogDelay(ms: number): void;
}

export interface VastInst {
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

export interface Account {
  userId: number;
  email: string;
  instances: Map<number, VastInst>;
  sshKeys: { id: number; key: string; createdAt: string }[];
}

export const err = (status: number, error: string, msg: string, extra: Record<string, unknown> = {}): SimResponse => ({
  status,
  body: { success: false, error, msg, ...extra },
});

export const FILTERABLE = new Set([
  'actual_status',
  'gpu_name',
  'verification',
  'id',
  'label',
  'intended_status',
  'cur_state',
  'next_state',
  'image_uuid',
  'machine_id',
  'is_bid',
  'template_id',
  'template_hash_id',
]);

export type Filter = Record<string, unknown>;

export function matchOp(value: unknown, op: string, target: unknown): boolean {
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

export function parseEnv(env: unknown): [string, string][] {
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

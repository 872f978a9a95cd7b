/**
 * The RunPod simulator's catalog (GPU types and data centers), its control surface, per-key state and error shape.
 */
import { type CommonControl, type SimResponse } from './kit';

export interface CatalogGpu {
  id: string;
  name: string;
  pool: string | null;
  manufacturer: 'NVIDIA' | 'AMD';
  memory: number;
  secure: number;
  community: number;
  maxSecure: number;
  maxCommunity: number;
  availability: 'LOW' | 'MEDIUM' | 'HIGH';
  dataCenters: string[];
}

/** Deterministic catalog; prices (USD per GPU-hour) sit inside provider-apis.md §5. Two ids map to no slug. */
export const RUNPOD_SIM_GPUS: readonly CatalogGpu[] = [
  g('NVIDIA H100 80GB HBM3', 'H100 SXM', 'HOPPER_80', 80, 2.99, 2.39, 8, 8, 'HIGH', ['US-KS-2', 'EU-RO-1']),
  g('NVIDIA H100 PCIe', 'H100 PCIe', 'HOPPER_80', 80, 2.39, 1.99, 8, 4, 'MEDIUM', ['US-TX-3']),
  g('NVIDIA H100 NVL', 'H100 NVL', 'HOPPER_94', 94, 2.79, 2.59, 8, 2, 'LOW', ['EU-RO-1']),
  g('NVIDIA H200', 'H200 SXM', 'HOPPER_141', 141, 3.99, 3.59, 8, 8, 'MEDIUM', ['US-KS-2']),
  g('NVIDIA A100-SXM4-80GB', 'A100 SXM', 'AMPERE_80', 80, 1.89, 1.39, 8, 8, 'HIGH', ['US-KS-2', 'CA-MTL-1']),
  g('NVIDIA A100 80GB PCIe', 'A100 PCIe', 'AMPERE_80', 80, 1.64, 1.19, 8, 4, 'HIGH', ['US-TX-3', 'CA-MTL-1']),
  g('NVIDIA L40S', 'L40S', 'ADA_48_PRO', 48, 0.86, 0.79, 8, 4, 'HIGH', ['US-TX-3', 'EU-RO-1']),
  g('NVIDIA L40', 'L40', 'ADA_48_PRO', 48, 0.99, 0.69, 8, 4, 'MEDIUM', ['EU-RO-1']),
  g('NVIDIA GeForce RTX 4090', 'RTX 4090', 'ADA_24', 24, 0.69, 0.34, 8, 4, 'HIGH', ['US-KS-2', 'EU-RO-1', 'CA-MTL-1']),
  g('NVIDIA GeForce RTX 5090', 'RTX 5090', 'BLACKWELL_32', 32, 0.89, 0.69, 8, 4, 'MEDIUM', ['EU-RO-1']),
  g('NVIDIA GeForce RTX 3090', 'RTX 3090', 'AMPERE_24', 24, 0.43, 0.22, 8, 4, 'HIGH', ['CA-MTL-1']),
  g('NVIDIA RTX A6000', 'RTX A6000', 'AMPERE_48', 48, 0.49, 0.33, 8, 4, 'HIGH', ['US-KS-2', 'CA-MTL-1']),
  g('NVIDIA RTX 6000 Ada Generation', 'RTX 6000 Ada', 'ADA_48_PRO', 48, 0.77, 0.74, 8, 4, 'MEDIUM', ['US-TX-3']),
  g('NVIDIA A40', 'A40', 'AMPERE_48', 48, 0.49, 0.4, 8, 4, 'LOW', ['EU-RO-1']),
  g('NVIDIA L4', 'L4', 'ADA_24', 24, 0.44, 0.43, 8, 4, 'HIGH', ['US-TX-3']),
  g('NVIDIA B200', 'B200', 'BLACKWELL_180', 180, 5.98, 5.49, 8, 8, 'LOW', ['US-KS-2']),
  g('NVIDIA RTX A5000', 'RTX A5000', 'AMPERE_24', 24, 0.27, 0.16, 8, 4, 'HIGH', ['CA-MTL-1']),
  {
    ...g('AMD Instinct MI300X OAM', 'MI300X', null, 192, 2.49, 2.19, 8, 8, 'LOW', ['EU-RO-1']),
    manufacturer: 'AMD',
  },
];

export function g(
  id: string,
  name: string,
  pool: string | null,
  memory: number,
  secure: number,
  community: number,
  maxSecure: number,
  maxCommunity: number,
  availability: CatalogGpu['availability'],
  dataCenters: string[],
): CatalogGpu {
  return {
    id,
    name,
    pool,
    manufacturer: 'NVIDIA',
    memory,
    secure,
    community,
    maxSecure,
    maxCommunity,
    availability,
    dataCenters,
  };
}

export const DATA_CENTERS: Record<string, string> = {
  'US-KS-2': 'US Kansas 2',
  'US-TX-3': 'US Texas 3',
  'EU-RO-1': 'EU Romania 1',
  'CA-MTL-1': 'CA Montreal 1',
  'CA-MTL-2': 'CA Montreal 2',
  'CA-MTL-3': 'CA Montreal 3',
  'US-GA-1': 'US Georgia 1',
  'US-GA-2': 'US Georgia 2',
  'US-IL-1': 'US Illinois 1',
  'US-KS-3': 'US Kansas 3',
  'US-TX-1': 'US Texas 1',
  'US-TX-4': 'US Texas 4',
  'US-CA-2': 'US California 2',
  'US-DE-1': 'US Delaware 1',
  'US-NC-1': 'US North Carolina 1',
  'US-WA-1': 'US Washington 1',
  'EU-CZ-1': 'EU Czechia 1',
  'EU-FR-1': 'EU France 1',
  'EU-NL-1': 'EU Netherlands 1',
  'EU-SE-1': 'EU Sweden 1',
  'EUR-IS-1': 'EU Iceland 1',
  'EUR-IS-2': 'EU Iceland 2',
  'EUR-IS-3': 'EU Iceland 3',
  'EUR-NO-1': 'EU Norway 1',
  'AP-JP-1': 'AP Japan 1',
  'OC-AU-1': 'OC Australia 1',
};

export const CREATE_FIELDS = new Set([
  'name',
  'image',
  'args',
  'disk',
  'env',
  'ports',
  'registry',
  'cloud',
  'cpu',
  'dataCenterIds',
  'globalNetworking',
  'gpu',
  'mounts',
  'startJupyter',
  'startSsh',
  'templateId',
]);

export type RunpodSpotMode = 'refuse' | 'accept';

export interface RunpodControl extends CommonControl {
  /** Capacity errors come as v2 400s by default; `status: 500` gives the older 500 wording. */
  setNoCapacity(gpu: string, on?: boolean, opts?: { status?: 400 | 500 }): void;
  /** `refuse` (default): a create with `interruptible` gets 500 "Spot pods are no longer offered". */
  setSpotMode(mode: RunpodSpotMode): void;
  /** The provider takes a pod away (as it did with interruptible pods): it moves to EXITED. */
  preempt(key: string, podId: string): void;
  /** What the pod's GPUs report as utilization (`runtime.gpus[].gpuUtilPercent`, every GPU alike); 0 by default. */
  setUtilization(key: string, podId: string, percent: number): void;
  /** The account's registered SSH keys (`/v2/account/ssh-keys`). */
  accountSshKeys(key: string): string[];
  /**
   * RunPod changes a GPU's (normalized slug) secure-cloud price, USD per GPU-hour: the catalog lists it and pods
   * created afterwards cost it (`null` restores the catalog price). Running pods keep the price they were created at.
   */
  setPrice(gpu: string, perGpuHour: number | null): void;
}

export interface PodState {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  ports: string[];
  env: Record<string, string>;
  mounts: Record<string, unknown>;
  gpu: CatalogGpu;
  /** The secure-cloud price per GPU-hour when the pod was created (it keeps it for its life). */
  securePrice: number;
  gpuCount: number;
  cloud: 'SECURE' | 'COMMUNITY';
  dataCenterId: string;
  interruptible: boolean;
  createdAt: number;
  bootStart: number;
  bootDelay: number;
  phase: 'booting' | 'exited' | 'error';
  /** GPU utilization in percent, reported while running. */
  gpuUtil?: number;
  sshPort: number;
  ipIndex: number;
}

export interface Account {
  pods: Map<string, PodState>;
  sshKeys: string[];
}

export function problem(status: number, title: string, detail: string, errors?: string[]): SimResponse {
  const body: Record<string, unknown> = { title, status, detail };
  if (errors) body.errors = errors;
  return { status, body, contentType: 'application/problem+json' };
}

export const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const p = (status: number, detail: string, errors?: string[]) =>
  problem(status, TITLES[status] ?? 'Error', detail, errors);

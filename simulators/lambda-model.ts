/**
 * The Lambda simulator's catalog (instance types and regions), its control surface, per-key state and error shape.
 */
import { randomChars, type CommonControl, type SimResponse } from './kit';

export interface TypeSeed {
  name: string;
  description: string;
  gpu_description: string;
  price_cents_per_hour: number;
  specs: { vcpus: number; memory_gib: number; storage_gib: number; gpus: number };
  regions: string[];
}

export const REGIONS: Record<string, string> = {
  'us-east-1': 'Virginia, USA',
  'us-west-1': 'California, USA',
  'us-west-3': 'Utah, USA',
  'us-south-1': 'Texas, USA',
  'us-midwest-1': 'Illinois, USA',
  'europe-central-1': 'Germany',
  'asia-northeast-1': 'Tokyo, Japan',
};

export function t(name: string, gpuDescription: string, cents: number, gpus: number, regions: string[]): TypeSeed {
  return {
    name,
    description: `${gpus}x ${gpuDescription}`,
    gpu_description: gpuDescription,
    price_cents_per_hour: cents,
    specs: { vcpus: 26 * gpus, memory_gib: 225 * gpus, storage_gib: 512 * gpus, gpus },
    regions,
  };
}

/** Whole-instance prices in cents inside provider-apis.md §5; two types map to no slug. */
export const LAMBDA_SIM_TYPES: readonly TypeSeed[] = [
  t('gpu_1x_h100_sxm5', 'H100 (80 GB SXM5)', 329, 1, ['us-east-1', 'us-west-3']),
  t('gpu_2x_h100_sxm5', 'H100 (80 GB SXM5)', 638, 2, ['us-west-3']),
  t('gpu_4x_h100_sxm5', 'H100 (80 GB SXM5)', 1236, 4, []),
  t('gpu_8x_h100_sxm5', 'H100 (80 GB SXM5)', 2392, 8, ['us-south-1', 'us-east-1']),
  t('gpu_1x_h100_pcie', 'H100 (80 GB PCIe)', 249, 1, ['us-west-1', 'us-east-1']),
  t('gpu_1x_a100', 'A100 (40 GB PCIe)', 129, 1, ['us-west-1']),
  t('gpu_1x_a100_sxm4', 'A100 (40 GB SXM4)', 129, 1, ['us-east-1', 'europe-central-1']),
  t('gpu_2x_a100', 'A100 (40 GB SXM4)', 258, 2, []),
  t('gpu_8x_a100', 'A100 (40 GB SXM4)', 1032, 8, ['us-midwest-1']),
  t('gpu_8x_a100_80gb_sxm4', 'A100 (80 GB SXM4)', 1432, 8, ['us-east-1']),
  t('gpu_1x_a6000', 'RTX A6000 (48 GB)', 80, 1, ['us-west-1', 'asia-northeast-1']),
  t('gpu_2x_a6000', 'RTX A6000 (48 GB)', 160, 2, ['us-west-1']),
  t('gpu_4x_a6000', 'RTX A6000 (48 GB)', 320, 4, []),
  t('gpu_1x_a10', 'A10 (24 GB PCIe)', 75, 1, ['us-east-1', 'us-west-1', 'asia-northeast-1']),
  t('gpu_1x_gh200', 'GH200 (96 GB)', 149, 1, ['us-east-1']),
  t('gpu_1x_b200_sxm6', 'B200 (180 GB SXM6)', 599, 1, ['us-south-1']),
  t('gpu_8x_b200_sxm6', 'B200 (180 GB SXM6)', 3992, 8, ['us-south-1']),
  t('gpu_1x_rtx6000', 'RTX 6000 (24 GB)', 50, 1, ['us-west-1']),
  t('gpu_8x_v100', 'Tesla V100 (16 GB)', 440, 8, ['us-east-1']),
];

export interface LambdaControl extends CommonControl {
  /** No capacity for a GPU (slug) everywhere, or only in `region`. */
  setNoCapacity(gpu: string, on?: boolean, opts?: { region?: string }): void;
  /** How long `terminating` lasts (and how long `terminated` stays listed after it). */
  setTerminateDelay(ms: number): void;
  /** Lambda ends the instance without a request (it sells no spot): `terminated` at once, then gone. */
  preempt(key: string, id: string): void;
  /** Lambda marks the instance `unhealthy`. */
  markUnhealthy(key: string, id: string): void;
  /** The account's SSH keys. */
  sshKeys(key: string): { id: string; name: string; public_key: string }[];
}

export interface LambdaInst {
  id: string;
  name: string | null;
  type: TypeSeed;
  region: string;
  sshKeyNames: string[];
  createdAt: number;
  bootStart: number;
  bootDelay: number;
  terminatedAt: number | null;
  terminateDelay: number;
  unhealthy: boolean;
  ipIndex: number;
  jupyterToken: string;
}

export interface Account {
  instances: Map<string, LambdaInst>;
  sshKeys: { id: string; name: string; public_key: string }[];
}

export type Code =
  | 'global/unknown'
  | 'global/invalid-api-key'
  | 'global/invalid-parameters'
  | 'global/object-does-not-exist'
  | 'instance-operations/launch/insufficient-capacity';

export function fail(
  status: number,
  code: Code,
  message: string,
  suggestion?: string,
  fieldErrors?: Record<string, string>,
): SimResponse {
  const error: Record<string, unknown> = { code, message };
  if (suggestion) error.suggestion = suggestion;
  const body: Record<string, unknown> = { error };
  if (fieldErrors) {
    body.field_errors = Object.fromEntries(
      Object.entries(fieldErrors).map(([k, m]) => [k, { code: 'global/invalid-parameters', message: m }]),
    );
  }
  return { status, body };
}

export const hex = (n: number) => randomChars('0123456789abcdef', n);
export const SSH_KEY_LINE = /^(ssh|ecdsa|sk)-\S+ \S+/;

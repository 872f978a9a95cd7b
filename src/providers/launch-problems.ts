/**
 * What the providers' catalogs tell us about a launch before any provider is called: the regions Lambda and
 * RunPod name, and the GPU types, counts and regions each provider does not sell.
 */
import { PROVIDER_NAMES, type ProviderId } from '../domain/providers';
import { gpuBySlug, gpuCatalogEntries, type GpuCatalogEntry, type GpuSlug } from './gpu-catalog';

/** Lambda's region codes (its `PublicRegionCode` enum, provider-apis.md §Lambda). */
export const LAMBDA_REGIONS: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-east-3',
  'us-midwest-1',
  'us-midwest-2',
  'us-south-1',
  'us-south-2',
  'us-south-3',
  'us-west-1',
  'us-west-2',
  'us-west-3',
  'asia-northeast-1',
  'asia-northeast-2',
  'asia-south-1',
  'australia-east-1',
  'europe-central-1',
  'me-west-1',
];

/**
 * RunPod's Secure Cloud data center ids (its `dataCenters` query; ids look like `US-KS-2`). A launch's
 * `region` on runpod is one of these; RunPod answers 400 "unknown data center" otherwise.
 */
export const RUNPOD_DATA_CENTERS: readonly string[] = [
  'AP-JP-1',
  'CA-MTL-1',
  'CA-MTL-2',
  'CA-MTL-3',
  'EU-CZ-1',
  'EU-FR-1',
  'EU-NL-1',
  'EU-RO-1',
  'EU-SE-1',
  'EUR-IS-1',
  'EUR-IS-2',
  'EUR-IS-3',
  'EUR-NO-1',
  'OC-AU-1',
  'US-CA-2',
  'US-DE-1',
  'US-GA-1',
  'US-GA-2',
  'US-IL-1',
  'US-KS-2',
  'US-KS-3',
  'US-NC-1',
  'US-TX-1',
  'US-TX-3',
  'US-TX-4',
  'US-WA-1',
];

/** One reason a provider cannot serve a launch, tied to the request field it is about. */
export interface LaunchProblem {
  path: 'gpu_type' | 'gpu_count' | 'region';
  message: string;
}

/**
 * What the providers' catalogs already tell us about a launch, checked before any provider is called: a GPU
 * type the provider does not sell, a GPU count it does not sell that GPU in (Lambda sells fixed instance
 * types), a region that does not exist (Lambda lists its regions, RunPod its data centers; Vast.ai takes a
 * two-letter country code and ignores anything else). Empty when nothing is known to be wrong;
 * capacity is still the provider's answer.
 */
export function launchProblems(
  provider: ProviderId,
  spec: { gpuType: GpuSlug; gpuCount: number; region?: string },
): LaunchProblem[] {
  const sells = (e: GpuCatalogEntry) =>
    provider === 'runpod'
      ? e.runpod.length > 0 && !e.runpodLegacy
      : (provider === 'vastai' ? e.vast : e.lambda).length > 0;
  const name = PROVIDER_NAMES[provider];
  const entry = gpuBySlug(spec.gpuType);
  if (!entry || !sells(entry)) {
    const offered = gpuCatalogEntries()
      .filter(sells)
      .map((e) => e.slug);
    return [{ path: 'gpu_type', message: `${name} does not offer ${spec.gpuType}; it offers ${offered.join(', ')}` }];
  }
  const problems: LaunchProblem[] = [];
  if (provider === 'runpod' && spec.region !== undefined && !RUNPOD_DATA_CENTERS.includes(spec.region)) {
    problems.push({
      path: 'region',
      message: `is not a RunPod data center; RunPod's are ${RUNPOD_DATA_CENTERS.join(', ')}`,
    });
  }
  if (provider === 'lambda') {
    const counts = [...new Set(entry.lambda.flatMap((l) => l.counts))].sort((a, b) => a - b);
    if (!counts.includes(spec.gpuCount)) {
      problems.push({
        path: 'gpu_count',
        message: `Lambda sells ${spec.gpuType} only with ${counts.join(', ')} GPU(s) per instance`,
      });
    }
    if (spec.region !== undefined && !LAMBDA_REGIONS.includes(spec.region)) {
      problems.push({
        path: 'region',
        message: `is not a Lambda region; Lambda's regions are ${LAMBDA_REGIONS.join(', ')}`,
      });
    }
  }
  return problems;
}

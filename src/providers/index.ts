/**
 * Composition of the three provider adapters. Base URLs are configurable so the same adapters talk to the real
 * providers or to the local simulators.
 */
import type { Logger } from '../logger';
import { createLambdaAdapter, LAMBDA_DEFAULT_BASE_URL } from './lambda';
import { createRunpodAdapter, RUNPOD_DEFAULT_BASE_URL } from './runpod';
import type { ProviderAdapter, ProviderId } from './types';
import { createVastaiAdapter, VASTAI_DEFAULT_BASE_URL } from './vastai';

export interface ProviderAdaptersConfig {
  runpodBaseUrl?: string;
  vastaiBaseUrl?: string;
  lambdaBaseUrl?: string;
  /** Per HTTP call; a call that takes longer fails with kind `transient`. */
  timeoutMs: number;
  logger: Logger;
}

export function createProviderAdapters(config: ProviderAdaptersConfig): Record<ProviderId, ProviderAdapter> {
  const { timeoutMs, logger } = config;
  return {
    runpod: createRunpodAdapter({ baseUrl: config.runpodBaseUrl ?? RUNPOD_DEFAULT_BASE_URL, timeoutMs, logger }),
    vastai: createVastaiAdapter({ baseUrl: config.vastaiBaseUrl ?? VASTAI_DEFAULT_BASE_URL, timeoutMs, logger }),
    lambda: createLambdaAdapter({ baseUrl: config.lambdaBaseUrl ?? LAMBDA_DEFAULT_BASE_URL, timeoutMs, logger }),
  };
}

export { createLambdaAdapter, createRunpodAdapter, createVastaiAdapter };
export { LAMBDA_DEFAULT_BASE_URL, RUNPOD_DEFAULT_BASE_URL, VASTAI_DEFAULT_BASE_URL };
export * from './types';
export * from './gpu-catalog';

/** The one list of providers we manage instances on, and their names in messages. */
export const PROVIDERS = ['runpod', 'vastai', 'lambda'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export const PROVIDER_NAMES: Record<ProviderId, string> = {
  runpod: 'RunPod',
  vastai: 'Vast.ai',
  lambda: 'Lambda',
};

/**
 * Providers that bill from the accepted create and report no start of their own (Lambda's instances have no time
 * field).
 */
export const BILLS_FROM_CREATE: ReadonlySet<ProviderId> = new Set<ProviderId>(['lambda']);

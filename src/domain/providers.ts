/** The one list of providers we manage instances on, and their names in messages. */
export const PROVIDERS = ['runpod', 'vastai', 'lambda'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export const PROVIDER_NAMES: Record<ProviderId, string> = {
  runpod: 'RunPod',
  vastai: 'Vast.ai',
  lambda: 'Lambda',
};

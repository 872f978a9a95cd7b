import type { ProviderId } from '../providers/types';

/**
 * Providers that run a job: both run a container with a start command (RunPod as the container's args, Vast
 * as `onstart`). Lambda's launch API takes no start command for its VMs, so it cannot run the wrapper.
 */
export const JOB_PROVIDERS: readonly ProviderId[] = ['runpod', 'vastai'];

/**
 * Side effects of the launch workflow, one group per stage of an instance's life: its create (instance-launch.ts),
 * while it runs (instance-running.ts), and its stop, start and end (instance-lifecycle.ts); the provider calls
 * they share are in instance-access.ts. Every activity is safe to retry.
 */
import type { ActivityDeps } from './deps';
import { createLaunchActivities } from './instance-launch';
import { createInstanceLifecycleActivities } from './instance-lifecycle';
import { createRunningInstanceActivities } from './instance-running';

export type { LaunchedAtProvider, SshAccess } from './instance-launch';
export type { PollResult } from './instance-running';

export function createInstanceActivities(deps: ActivityDeps) {
  return {
    ...createLaunchActivities(deps),
    ...createRunningInstanceActivities(deps),
    ...createInstanceLifecycleActivities(deps),
  };
}

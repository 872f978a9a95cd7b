/**
 * Boot deadlines: how long a launch may take to reach running, learned from the service's own past boots of
 * the same provider and GPU when there are enough of them (src/domain/boot-deadlines.ts).
 */
import { createBootTimeQueries } from '../src/db/queries/boot-times';
import { bootDeadlineMs, configuredBootDeadlineMs } from '../src/domain/boot-deadlines';
import type { ProviderId } from '../src/providers/types';
import type { ActivityDeps } from './deps';

export function createBootActivities(deps: ActivityDeps) {
  const boots = createBootTimeQueries(deps.pool);
  return {
    /** The deadline for this launch's boot (ms from its start), and whether it was learned. */
    async bootDeadline(input: { provider: ProviderId; gpuType: string }): Promise<{ ms: number; learned: boolean }> {
      const configured = configuredBootDeadlineMs(input.provider, input.gpuType, deps.bootDeadlines);
      return bootDeadlineMs(await boots.recentBootsMs(input.provider, input.gpuType), configured);
    },
  };
}

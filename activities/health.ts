import type { ActivityDeps } from './deps';

export function createHealthActivities(_deps: ActivityDeps) {
  return {
    async recordProbe(message: string): Promise<{ echoed: string; workerPid: number }> {
      return { echoed: message, workerPid: process.pid };
    },
  };
}

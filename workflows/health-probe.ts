import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { recordProbe } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

export interface HealthProbeInput {
  message: string;
}

export interface HealthProbeResult {
  echoed: string;
  workerPid: number;
}

/** Round trip through a worker and an activity: proves a worker is polling the task queue. */
export async function healthProbe(input: HealthProbeInput): Promise<HealthProbeResult> {
  return recordProbe(input.message);
}

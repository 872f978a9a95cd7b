import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { HealthProbeInput, HealthProbeResult } from './contracts/maintenance';

const { recordProbe } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

/** Round trip through a worker and an activity: proves a worker is polling the task queue. */
export async function healthProbe(input: HealthProbeInput): Promise<HealthProbeResult> {
  return recordProbe(input.message);
}

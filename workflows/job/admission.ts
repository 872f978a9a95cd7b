/** The next attempt's offer: the cheapest the job allows at this moment that admission lets through. */
import { workflowInfo } from '@temporalio/workflow';
import type { JobOffer } from '../../activities/jobs';
import type { LaunchInput } from '../contracts/launch';
import { jobAttemptRowId, jobStartCommandRef } from '../contracts/jobs';
import type { JobRun } from './run';

/**
 * The launch of attempt `n` on `offer`: ids derive from the job and the attempt, so a replayed step joins the same
 * launch.
 */
function attemptLaunchInput(run: JobRun, offer: JobOffer, n: number): LaunchInput {
  const { input, job } = run;
  return {
    instanceId: jobAttemptRowId(input.accountId, input.jobId, n),
    accountId: input.accountId,
    requestHash: `job:${input.jobId}:${n}`,
    provider: offer.provider,
    gpuType: job.spec.gpu,
    gpuCount: job.spec.gpu_count,
    spot: offer.spot,
    name: job.name,
    providerName: `job-${input.jobId.slice(4, 16)}-${n}`,
    dockerImage: job.dockerImage ?? undefined,
    // A reference: the create activity turns it into the wrapper with the attempt's token and env.
    onstartCmd: jobStartCommandRef(input.jobId, n),
    warnings: [],
    apiKeyId: job.apiKeyId ?? undefined,
    ...(job.spec.idle_stop ? { idleStop: job.spec.idle_stop } : {}),
    // The command's end is the attempt's end: a pod that exits is terminated, not kept stopped.
    endWhenStoppedByProvider: true,
    progressWorkflowId: workflowInfo().workflowId,
    ...input.timing.launch,
  };
}

export type Admission =
  | { admitted: { offer: JobOffer; launch: LaunchInput } }
  /** No offer, or every one tried refused: why, and whether it was for want of capacity (no offer at all). */
  | { admitted: null; why: string; noCapacity: boolean };

/** Asks admission for attempt `n + 1` on each offer, cheapest first, until one is admitted or refused for good. */
export async function admitNextAttempt(run: JobRun): Promise<Admission> {
  const { input, spec, db } = run;
  const offers = await db.findJobOffers({
    jobId: input.jobId,
    spot: run.spotAllowed(),
    onDemand: spec.spot_policy !== 'spot',
  });
  const refusals: string[] = [];
  for (const offer of offers) {
    const launch = attemptLaunchInput(run, offer, run.n + 1);
    const refusal = await db.admitJobAttempt({
      jobId: input.jobId,
      n: run.n + 1,
      launch,
      pricePerHourMicros: offer.pricePerHourMicros,
    });
    if (refusal === null) return { admitted: { offer, launch } };
    refusals.push(`${offer.provider}${offer.spot ? ' (spot)' : ''}: ${refusal}`);
    // Money and keys are the account's, not the offer's: the next offer would meet the same refusal.
    if (!refusal.startsWith('limit_reached')) break;
  }
  const noCapacity = offers.length === 0;
  const why = noCapacity
    ? `no available ${spec.gpu} offer among ${spec.providers.join(', ')} within the job's limits`
    : refusals.join('; ');
  return { admitted: null, why, noCapacity };
}
